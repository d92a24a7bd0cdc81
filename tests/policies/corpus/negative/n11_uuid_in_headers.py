import uuid
from pathlib import Path

SYSTEM = Path("system.md").read_text()


def ask(client, question: str):
    request_id = str(uuid.uuid4())
    return client.messages.create(
        model="claude-sonnet-4-6",
        max_tokens=512,
        cache_control={"type": "ephemeral"},
        system=SYSTEM,
        messages=[{"role": "user", "content": question}],
        extra_headers={"x-request-id": request_id},
    )
