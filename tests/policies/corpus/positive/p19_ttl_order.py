from pathlib import Path

HANDBOOK = Path("handbook.md").read_text()
GLOSSARY = Path("glossary.md").read_text()


def call(client, question):
    return client.messages.create(
        model="claude-sonnet-4-6",
        max_tokens=256,
        system=[
            {"type": "text", "text": HANDBOOK, "cache_control": {"type": "ephemeral"}},
            {"type": "text", "text": GLOSSARY, "cache_control": {"type": "ephemeral", "ttl": "1h"}},
        ],
        messages=[{"role": "user", "content": question}],
    )
