"""A scripted model for the emulator: replies and tool calls by turn or by matching the user text.

Scripts are YAML or JSON files (`prefixlock serve --script FILE`) or built in Python as here.
`summary` makes a client's compaction request ("Summarize this conversation so far ...") get a
summary of realistic length (the same text whoever asks) instead of the one-line default.
"""

from __future__ import annotations

import anthropic
from anthropic.types import Message, MessageParam, TextBlock, ToolParam

from prefixlock.clock import ManualClock
from prefixlock.emulator import Emulator, Rule, Script, Step, Summary

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
    ],
    summary=Summary(tokens=400),
)
TOOLS: list[ToolParam] = [
    {"name": "read_file", "description": "Read a file", "input_schema": {"type": "object"}}
]


def first_text(message: Message) -> str:
    """The text of the reply's first block (a text block in these replies)."""
    block = message.content[0]
    assert isinstance(block, TextBlock)
    return block.text


def main() -> None:
    # prefixlock: ignore[PL101] the emulator's clock; a reply's content never holds its time
    with Emulator.start(clock=ManualClock(), script=SCRIPT) as emu:
        client = anthropic.Anthropic(api_key="any-key", base_url=emu.base_url)
        messages: list[MessageParam] = [{"role": "user", "content": "What is in this repo?"}]
        first = client.messages.create(
            model="claude-sonnet-4-6", max_tokens=200, tools=TOOLS, messages=messages
        )
        call = next(b for b in first.content if b.type == "tool_use")
        print("model calls", call.name, call.input)
        messages += [
            {
                "role": "assistant",
                "content": first.content,
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
        print("model says ", first_text(second))
        other = client.messages.create(
            model="claude-sonnet-4-6",
            max_tokens=200,
            messages=[{"role": "user", "content": "How is the weather?"}],
        )
        print("by match   ", first_text(other))
        summary = client.messages.create(
            model="claude-sonnet-4-6",
            max_tokens=1000,
            messages=[
                *messages,
                {"role": "assistant", "content": first_text(second)},
                {"role": "user", "content": "Summarize this conversation so far."},
            ],
        )
        print(
            "summary    ",
            summary.usage.output_tokens,
            "output tokens:",
            first_text(summary).splitlines()[0],
        )


if __name__ == "__main__":
    main()
