import time
from pathlib import Path

SYSTEM = Path("system.md").read_text()


def ask(client, question: str):
    started = time.time()
    reply = client.messages.create(
        model="claude-sonnet-4-6",
        max_tokens=512,
        cache_control={"type": "ephemeral"},
        system=SYSTEM,
        messages=[{"role": "user", "content": question}],
        metadata={"user_id": "svc"},
    )
    print("took", time.time() - started)
    return reply
