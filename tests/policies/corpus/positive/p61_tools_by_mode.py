"""Plan mode sends a shorter tool list: the tools come first in the prefix, so a switch of
mode shares nothing with the cached prefix of the other mode."""

READ_TOOLS = [
    {"name": "read_file", "description": "Read a file.", "input_schema": {"type": "object"}}
]
ALL_TOOLS = [
    *READ_TOOLS,
    {"name": "write_file", "description": "Write a file.", "input_schema": {"type": "object"}},
]


def ask(client, messages, plan_mode):
    return client.messages.create(
        model="claude-sonnet-4-6",
        max_tokens=512,
        tools=READ_TOOLS if plan_mode else ALL_TOOLS,
        messages=messages,
    )
