"""The issue's example: a clock reading assigned to a name, formatted into system=."""

import datetime

import anthropic

RULES = "You are a careful coding assistant.\n"


def ask(client: anthropic.Anthropic, question: str) -> None:
    now = datetime.datetime.now()
    header = f"Current time: {now}\n"
    client.messages.create(
        model="claude-sonnet-4-6",
        max_tokens=1024,
        cache_control={"type": "ephemeral"},
        system=header + RULES,
        messages=[{"role": "user", "content": question}],
    )
