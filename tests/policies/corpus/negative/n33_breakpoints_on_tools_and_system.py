"""A module-level tool list marked for 1h and the last system block marked for 5m: both stable
parts are cached; the newest user turn after them is not a prefix."""

HANDBOOK = "Read the failing test before editing any file. " * 150
TOOLS = [
    {
        "name": "grep",
        "description": "Search the workspace.",
        "input_schema": {"type": "object"},
        "cache_control": {"type": "ephemeral", "ttl": "1h"},
    },
]


def ask(client, question):
    return client.messages.create(
        model="claude-sonnet-4-6",
        max_tokens=1024,
        tools=TOOLS,
        system=[
            {"type": "text", "text": "You are a careful engineer."},
            {"type": "text", "text": HANDBOOK, "cache_control": {"type": "ephemeral"}},
        ],
        messages=[{"role": "user", "content": question}],
    )
