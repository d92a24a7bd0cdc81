"""A date belongs in the newest user turn: the prefix stays constant."""

from datetime import date
from pathlib import Path

HANDBOOK = Path("handbook.md").read_text()


def ask(client, history: list[dict], question: str):
    return client.messages.create(
        model="claude-sonnet-4-6",
        max_tokens=1024,
        cache_control={"type": "ephemeral"},
        system=HANDBOOK,
        messages=[*history, {"role": "user", "content": f"(today is {date.today()}) {question}"}],
    )
