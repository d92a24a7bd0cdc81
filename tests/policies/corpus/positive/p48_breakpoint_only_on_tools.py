"""Only the tool list is marked: the long handbook after it is re-billed on every turn."""

HANDBOOK = "Read the failing test before editing any file. " * 150
TOOLS = [
    {"name": "grep", "description": "Search the workspace.", "input_schema": {"type": "object"}},
    {
        "name": "read_file",
        "description": "Read one file.",
        "input_schema": {"type": "object"},
        "cache_control": {"type": "ephemeral"},
    },
]


def ask(client, question):
    return client.messages.create(
        model="claude-sonnet-4-6",
        max_tokens=1024,
        tools=TOOLS,
        system=HANDBOOK,
        messages=[{"role": "user", "content": question}],
    )
