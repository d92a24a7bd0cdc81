"""Odd input from users and their tools: one clear error, or a turn that goes on.

- A prefix's tools may come as a set (Tool was unhashable: its schema is a mappingproxy) or as
  plain functions (made tools as `@tool` would, as pydantic-ai accepts them).
- A system block or a user message with a lone surrogate (text read with errors=
  "surrogateescape") fails with PrefixError / UserError naming the field, not UnicodeEncodeError
  from deep in the request builder.
- A tool whose output holds a lone surrogate: the turn goes on, the character becomes U+FFFD
  (the whole turn used to fail with UnicodeEncodeError and the result was lost).
- send("") / send(None) with nothing waiting: UserError before anything is sent (was a 400 from
  Anthropic, or on OpenAI a request with no new message).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from prefixlock import Agent, FrozenPrefix, tool
from prefixlock.clock import ManualClock
from prefixlock.emulator import Emulator, Rule, Script, Step
from prefixlock.errors import PrefixError, UserError
from prefixlock.events import ToolResult, TurnComplete


@tool
def read_file(path: str) -> str:
    """Read a file."""
    return "ok \ud83d\ude00 then a lone \udcff byte"


def list_dir(path: str = ".") -> str:
    """List a directory."""
    return "a.py\nb.py"


SCRIPT = Script(
    rules=[
        Rule(
            match="read",
            steps=[
                Step(text="Reading.", tool="read_file", input={"path": "x"}),
                Step(text="Read."),
            ],
        )
    ],
    default="Done.",
)


@pytest.fixture
def emu() -> Iterator[Emulator]:
    with Emulator.start(clock=ManualClock(), script=SCRIPT) as e:
        yield e


def test_tools_in_a_set_or_as_plain_functions_make_the_same_prefix() -> None:
    listed = FrozenPrefix(system="s", tools=[read_file, tool(list_dir)])
    assert FrozenPrefix(system="s", tools={read_file, tool(list_dir)}) == listed
    plain = FrozenPrefix(system="s", tools=[list_dir, read_file])
    assert plain == listed
    runner = plain.runner("list_dir")
    assert runner is not None and runner.fn is list_dir
    assert len({read_file, read_file}) == 1


def test_a_lone_surrogate_in_the_system_prompt_is_a_prefix_error() -> None:
    with pytest.raises(PrefixError, match=r"system block 1 .*surrogate") as info:
        FrozenPrefix(system=["fine", "bad \udcff byte"])
    assert info.value.where == "system"


@pytest.mark.parametrize(
    ("text", "volatile", "match"),
    [
        ("bad \ud800", (), "text: not valid Unicode"),
        ("fine", ("date \udcff",), r"volatile\[0\]: not valid Unicode"),
        (b"bytes", (), "expected text"),
        (None, (), "expected text"),
        ("", (), "nothing to send"),
    ],
)
async def test_bad_user_text_is_a_user_error_and_sends_nothing(
    emu: Emulator, text: Any, volatile: tuple[str, ...], match: str
) -> None:
    agent = Agent(
        FrozenPrefix(system="s " * 300),
        model="claude-sonnet-4-6",
        api_key="test-key",
        base_url=emu.base_url,
    )
    async with agent.session() as s:
        with pytest.raises(UserError, match=match):
            async for _ in s.send(text, volatile=volatile):
                pass
        assert emu.requests == [] and s.turn == 0 and len(s.transcript) == 0
        assert await s.ask("Hello.") == "Done."  # the session is fine


async def test_a_tool_result_with_a_lone_surrogate_does_not_fail_the_turn(emu: Emulator) -> None:
    agent = Agent(
        FrozenPrefix(system="s " * 300, tools=[read_file]),
        model="claude-sonnet-4-6",
        api_key="test-key",
        base_url=emu.base_url,
    )
    async with agent.session() as s:
        events = [e async for e in s.send("Please read x.")]
        result = next(e for e in events if isinstance(e, ToolResult))
        assert result.content == "ok \U0001f600 then a lone \ufffd byte" and not result.is_error
        assert isinstance(events[-1], TurnComplete) and events[-1].text == "Read."


@pytest.mark.parametrize("prefix", ["You are a helpful assistant.", None, {"system": "x"}])
def test_an_agent_without_a_frozen_prefix_is_a_prefix_error(prefix: Any) -> None:
    # It was accepted, and the first send failed with AttributeError: no attribute 'fingerprint'.
    with pytest.raises(PrefixError, match="must be a FrozenPrefix") as info:
        Agent(prefix, model="claude-sonnet-4-6", api_key="test-key")
    assert info.value.where == "prefix"


def test_a_closed_sync_session_says_so(emu: Emulator) -> None:
    agent = Agent(
        FrozenPrefix(system="s " * 300),
        model="claude-sonnet-4-6",
        api_key="test-key",
        base_url=emu.base_url,
    )
    with agent.sync_session() as s:
        assert s.ask("Hello.") == "Done."
    # It was RuntimeError('Event loop is closed') and a "never awaited" warning.
    with pytest.raises(UserError, match="sync session is closed"):
        s.ask("Hello again.")


def _pair(a: int, /, b: int = 2) -> str:
    """Positional-only first parameter."""
    return f"{a}-{b}"


async def test_a_tool_with_positional_only_parameters_can_be_called() -> None:
    # The schema named them, and every call failed: "got some positional-only arguments
    # passed as keyword arguments".
    pair = tool(_pair)
    assert await pair.invoke({"a": 1}) == "1-2"
    assert await pair.invoke({"a": 1, "b": 5}) == "1-5"


def test_a_callable_without_a_name_is_a_prefix_error() -> None:
    import functools

    class Callable_:
        def __call__(self, q: str) -> str:
            return q

    for fn in (functools.partial(_pair, 1), Callable_()):
        with pytest.raises(PrefixError, match="not a function"):  # was AttributeError
            tool(fn)


@pytest.mark.parametrize("model", ["claude-sonnet-4-6", "deepseek-v4-flash"])
async def test_volatile_as_one_string_is_one_text(emu: Emulator, model: str) -> None:
    # A str is a Sequence[str]: volatile="today" went out as five blocks, one per letter.
    url = emu.base_url if model.startswith("claude") else emu.openai_base_url
    agent = Agent(FrozenPrefix(system="s " * 300), model=model, api_key="test-key", base_url=url)
    async with agent.session() as s:
        await s.ask("Hello.", volatile="Today is Tuesday.")
        await s.ask("Again.", volatile=["Today is Tuesday."])
        first, second = (r.body["messages"][-1]["content"] for r in s.requests)
        assert [b["text"] for b in first] == ["Hello.", "Today is Tuesday."]
        assert [b["text"] for b in second] == ["Again.", "Today is Tuesday."]
