"""The agent loop: tools (sync, async, raising, unknown) become tool results, limits stop the
loop, volatile text stays off the transcript, the sync wrapper works, and the whole thing runs
against the emulator with the official SDKs."""

from __future__ import annotations

import json
from collections.abc import AsyncGenerator
from decimal import Decimal
from typing import Any

import pytest
import respx

from prefixlock.agent import Agent
from prefixlock.events import TextDelta, ToolCall, ToolResult, TurnComplete, UsageReport
from prefixlock.prefix import FrozenPrefix
from prefixlock.settings import Settings
from prefixlock.tools import tool
from tests.helpers import sse_responses as sse

URL = "https://api.anthropic.com/v1/messages"


@tool
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


@tool
async def shout(text: str) -> str:
    """Upper-case some text."""
    return text.upper()


@tool
def explode(reason: str) -> str:
    """Always fails."""
    raise RuntimeError(f"boom: {reason}")


PREFIX = FrozenPrefix(system="You use tools.", tools=[add, shout, explode])


def _agent(http_client: Any, **settings: Any) -> Agent:
    return Agent(
        PREFIX,
        model="claude-sonnet-4-6",
        api_key="k",
        http_client=http_client,
        settings=Settings(**settings),
    )


async def test_tools_sync_async_raising_unknown_and_bad_args(
    router: respx.Router, http_client: Any
) -> None:
    calls: list[tuple[str, str, dict[str, Any]]] = [
        ("t1", "add", {"a": 2, "b": 3}),
        ("t2", "shout", {"text": "hi"}),
        ("t3", "explode", {"reason": "test"}),
        ("t4", "no_such_tool", {}),
        ("t5", "add", {"a": "not a number"}),
    ]
    route = router.post(URL).mock(
        side_effect=[sse.anthropic("Working.", tools=calls), sse.anthropic("All done.")]
    )
    async with _agent(http_client).session() as s:
        events = [e async for e in s.send("do things")]
    kinds = [type(e).__name__ for e in events]
    assert kinds[0] == "TextDelta" and kinds[-1] == "TurnComplete"
    assert [e.name for e in events if isinstance(e, ToolCall)] == [c[1] for c in calls]
    results = {e.id: e for e in events if isinstance(e, ToolResult)}
    assert (results["t1"].content, results["t1"].is_error) == ("5", False)
    assert (results["t2"].content, results["t2"].is_error) == ("HI", False)
    assert results["t3"].is_error and "boom: test" in results["t3"].content
    assert results["t4"].is_error and "unknown tool" in results["t4"].content
    assert results["t5"].is_error and "ValidationError" in results["t5"].content
    sent = json.loads(route.calls[1].request.content)["messages"][-1]["content"]
    assert [b["tool_use_id"] for b in sent] == ["t1", "t2", "t3", "t4", "t5"]
    assert [b.get("is_error", False) for b in sent] == [False, False, True, True, True]
    assert [m.role for m in s.transcript] == ["user", "assistant", "user", "assistant"]
    assert sum(isinstance(e, UsageReport) for e in events) == 2
    assert isinstance(events[-1], TurnComplete) and events[-1].text == "All done."


async def test_max_turns_stops_and_results_go_with_the_next_turn(
    router: respx.Router, http_client: Any
) -> None:
    loop = [sse.anthropic(tools=[(f"t{i}", "add", {"a": i, "b": 1})]) for i in range(2)]
    route = router.post(URL).mock(side_effect=[*loop, sse.anthropic("stopped looping")])
    async with _agent(http_client, max_turns=2).session() as s:
        events = [e async for e in s.send("loop")]
        done = events[-1]
        assert isinstance(done, TurnComplete) and done.limit_hit == "turns"
        assert route.call_count == 2
        assert await s.ask("ok, stop") == "stopped looping"
    last = json.loads(route.calls[2].request.content)["messages"][-1]["content"]
    assert [b["type"] for b in last] == ["tool_result", "text"]


async def test_max_dollars_stops_the_loop(router: respx.Router, http_client: Any) -> None:
    usage = {"input_tokens": 1_000_000}  # $3 on claude-sonnet-4-6
    router.post(URL).mock(
        side_effect=[
            sse.anthropic(tools=[("t1", "add", {"a": 1, "b": 1})], usage=usage),
            sse.anthropic("never"),
        ]
    )
    async with _agent(http_client, max_dollars=Decimal("2.50")).session() as s:
        events = [e async for e in s.send("spend")]
    assert isinstance(events[-1], TurnComplete) and events[-1].limit_hit == "dollars"
    assert s.ledger.cost is not None and s.ledger.cost > Decimal("2.50")


async def test_volatile_text_is_sent_but_never_stored(
    router: respx.Router, http_client: Any
) -> None:
    route = router.post(URL).mock(side_effect=[sse.anthropic("a"), sse.anthropic("b")])
    async with _agent(http_client).session() as s:
        await s.ask("first", volatile=["Today is 2026-12-01."])
        await s.ask("second", volatile=["Today is 2026-12-02."])
    first, second = (json.loads(c.request.content) for c in route.calls)
    assert first["messages"][-1]["content"][-1]["text"] == "Today is 2026-12-01."
    assert "2026-12-01" not in json.dumps(second)
    assert all("Today" not in m.text for m in s.transcript)
    # The breakpoint of request 1 sits on a block request 2 still sends unchanged.
    mark = [u for u in s.requests[0].units if u.breakpoint][-1]
    assert s.requests[1].units[mark.position].chain == mark.chain


def test_sync_wrapper(router: respx.Router, http_client: Any) -> None:
    router.post(URL).mock(
        side_effect=[
            sse.anthropic(tools=[("t1", "add", {"a": 20, "b": 22})]),
            sse.anthropic("42"),
            sse.anthropic("still 42"),
        ]
    )
    agent = _agent(http_client)
    with agent.sync_session("sync-1") as s:
        events = s.send("what is 20 + 22?")
        assert any(isinstance(e, TextDelta) for e in events)
        assert s.last_text == "42"
        assert list(s.iter_send("again?"))[-1] == TurnComplete(2, "still 42", "end_turn")
        assert s.id == "sync-1" and len(s.ledger) == 3 and len(s.transcript) == 6


def test_agent_repr_and_errors_hide_the_key() -> None:
    agent = Agent(PREFIX, model="gpt-5", api_key="sk-hidden-123")
    assert "sk-hidden" not in repr(agent) and "sk-hidden" not in repr(agent.provider())
    assert "sk-hidden" not in repr(agent.session())


@pytest.mark.parametrize(
    "model", ["claude-opus-4-7", "gpt-5", "openai-responses:gpt-5", "deepseek-v4-flash"]
)
async def test_end_to_end_on_the_emulator(emulator: Any, model: str) -> None:
    """The official SDKs against the local emulator: the cache warms up and reads."""
    system = "You are a careful coding assistant. Keep the prefix stable. " * 300
    prefix = FrozenPrefix(system=system, tools=[add, shout, explode])
    agent = Agent(
        prefix, model=model, api_key="test-key", base_url=emulator.base_url, clock=emulator.clock
    )
    async with agent.session() as s:
        for text in ("Why does test_parse fail?", "Fix it", "Thanks"):
            events = [e async for e in s.send(text)]
            assert isinstance(events[-1], TurnComplete)
            emulator.clock.advance(5)
        ledger = s.ledger
    assert len(ledger) >= 3
    assert ledger.hit_rate > 0.5
    assert ledger.cost is not None and ledger.saved is not None and ledger.saved > 0
    for req in s.requests:
        assert req.units == req.recomputed_units()
    assert len(emulator.requests) == len(s.requests)


async def test_caller_stopping_mid_turn_leaves_a_valid_conversation(
    router: respx.Router, http_client: Any
) -> None:
    """Breaking out of `send()` while tools run, or while a stream is read, must not leave a
    tool call without its result: the next request would be refused by the provider."""
    route = router.post(URL).mock(
        side_effect=[
            sse.anthropic(tools=[("t1", "add", {"a": 1, "b": 2}), ("t2", "add", {"a": 3, "b": 4})]),
            sse.anthropic("recovered"),
            sse.anthropic(tools=[("t3", "add", {"a": 5, "b": 6})]),
            sse.anthropic("partial answer that is abandoned"),
            sse.anthropic("fine"),
        ]
    )
    async with _agent(http_client).session() as s:
        async for event in s.send("add things"):
            if isinstance(event, ToolCall):
                break  # the caller walks away before any tool result
        assert await s.ask("go on") == "recovered"
        sent = json.loads(route.calls[1].request.content)["messages"][-1]["content"]
        assert [(b["type"], b.get("tool_use_id")) for b in sent[:2]] == [
            ("tool_result", "t1"),
            ("tool_result", "t2"),
        ]
        assert all(b.get("is_error") for b in sent[:2]) and sent[2]["text"] == "go on"
        agen = s.send("more adding")
        assert isinstance(agen, AsyncGenerator)  # so the test can close it early
        async for event in agen:
            if isinstance(event, TextDelta):  # in the follow-up stream, after the tool ran
                break
        await agen.aclose()
        assert await s.ask("and?") == "fine"
        last = json.loads(route.calls[4].request.content)["messages"][-1]["content"]
        assert [(b["type"], b.get("content")) for b in last] == [
            ("tool_result", "11"),
            ("text", None),
        ]
