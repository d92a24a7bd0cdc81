"""A scripted model for the emulator: replies and tool calls by turn or by matching the user text.

Scripts are YAML or JSON files (`prefixlock serve --script FILE`) or built in Python as here.
"""

from __future__ import annotations

import anthropic

from harness.clock import ManualClock
from harness.emulator import Emulator, Rule, Script, Step

SCRIPT = Script(
    rules=[
        Rule(match="weather", steps=[Step(text="I cannot see outside, but I can check the logs.")]),
        Rule(
            turn=1,
            steps=[
                Step(text="Let me read it.", tool="read_file", input={"path": "README.md"}),
                Step(text="The README describes an invoice service."),
            ],
        ),
    ]
)
TOOLS = [{"name": "read_file", "description": "Read a file", "input_schema": {"type": "object"}}]


def main() -> None:
    with Emulator.start(clock=ManualClock(), script=SCRIPT) as emu:
        client = anthropic.Anthropic(api_key="any-key", base_url=emu.base_url)
        messages: list[dict] = [{"role": "user", "content": "What is in this repo?"}]
        first = client.messages.create(
            model="claude-sonnet-4-6", max_tokens=200, tools=TOOLS, messages=messages
        )
        call = next(b for b in first.content if b.type == "tool_use")
        print("model calls", call.name, call.input)
        messages += [
            {
                "role": "assistant",
                "content": [b.model_dump(exclude_none=True) for b in first.content],
            },
            {
                "role": "user",
                "content": [
                    {"type": "tool_result", "tool_use_id": call.id, "content": "# invoice"}
                ],
            },
        ]
        second = client.messages.create(
            model="claude-sonnet-4-6", max_tokens=200, tools=TOOLS, messages=messages
        )
        print("model says ", second.content[0].text)
        other = client.messages.create(
            model="claude-sonnet-4-6",
            max_tokens=200,
            messages=[{"role": "user", "content": "How is the weather?"}],
        )
        print("by match   ", other.content[0].text)


if __name__ == "__main__":
    main()
