"""Quickstart: a frozen prefix, tools, an agent session on the local emulator, and its ledger.

The same code talks to Anthropic, OpenAI or DeepSeek when you drop `base_url`/`api_key` and set
ANTHROPIC_API_KEY / OPENAI_API_KEY / DEEPSEEK_API_KEY. Offline, a few seconds, no key needed.
"""

from __future__ import annotations

import asyncio

from prefixlock import Agent, FrozenPrefix, tool
from prefixlock.clock import ManualClock
from prefixlock.emulator import Emulator
from prefixlock.events import TextDelta, ToolCall, ToolResult, TurnComplete, UsageReport

FILES = {
    "invoice/money.py": "def round_cents(x):\n    return int(x * 100 + 0.5) / 100\n",
    "invoice/totals.py": "def invoice_total(lines):\n"
    "    return sum(round_cents(x) for x in lines)\n",
    "tests/test_totals.py": "def test_total_rounding():\n"
    "    assert invoice_total([...]) == 10.12\n",
}


@tool
def read_file(path: str) -> str:
    """Read a UTF-8 file from the workspace.

    Args:
        path: the file, relative to the workspace root.
    """
    if path not in FILES:
        raise FileNotFoundError(path)  # becomes an error tool result the model sees
    return FILES[path]


@tool
def list_files(path: str = ".") -> str:
    """List the files under a directory of the workspace."""
    return "\n".join(sorted(f for f in FILES if f.startswith(path.strip("./"))))


@tool
def grep(pattern: str, path: str = ".") -> str:
    """Find lines that contain `pattern` in the workspace files."""
    hits = [
        f"{name}:{i}: {line}"
        for name, text in sorted(FILES.items())
        for i, line in enumerate(text.splitlines(), 1)
        if pattern in line
    ]
    return "\n".join(hits) or "no matches"


@tool
async def run_tests(target: str = "tests") -> str:
    """Run the test suite (async tools work too)."""
    return "FAILED tests/test_totals.py::test_total_rounding - assert 10.13 == 10.12"


SYSTEM = (
    "You are a careful coding assistant for the invoice service. Read before you answer, "
    "cite files by path, and keep answers short.\n" * 60
)


async def main() -> None:
    prefix = FrozenPrefix(system=SYSTEM, tools=[read_file, list_files, grep, run_tests])
    print(prefix)
    clock = ManualClock()  # advanced by hand below: no real waiting
    with Emulator.start(clock=clock) as emu:
        agent = Agent(prefix, model="claude-sonnet-4-6", base_url=emu.base_url, api_key="test-key")
        async with agent.session() as s:
            for question in ("Why does test_total_rounding fail?", "How would you fix it?"):
                print(f"\n> {question}")
                async for event in s.send(question):
                    if isinstance(event, TextDelta):
                        print(event.text, end="", flush=True)
                    elif isinstance(event, ToolCall):
                        print(f"\n  [tool] {event.name}({event.input})")
                    elif isinstance(event, ToolResult) and event.is_error:
                        print(f"  [tool error] {event.content}")
                    elif isinstance(event, UsageReport):
                        u = event.usage
                        print(
                            f"\n  [usage] read {u.cache_read} written {u.cache_write} "
                            f"uncached {u.uncached_input} cost ${event.cost:.5f}"
                        )
                    elif isinstance(event, TurnComplete):
                        print()
                clock.advance(20)  # the user reads the answer; the cache stays warm
            ledger = s.ledger
            print(f"\n{ledger.summary()}")
            print(f"ceiling hit rate {ledger.ceiling_hit_rate:.1%}, re-billed {ledger.rebilled}")
            assert ledger.saved is not None and ledger.saved > 0


if __name__ == "__main__":
    asyncio.run(main())
