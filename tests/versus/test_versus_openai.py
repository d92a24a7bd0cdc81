"""The versus scenarios on OpenAI: the same turns and events on gpt-5 (gpt-5-mini for a switch),
prefixlock through its OpenAI provider and its CachePolicy (the idle plan picks the day-long
retention), and the bare openai SDK loop (Chat Completions with a stable prompt_cache_key) run
with this interpreter, which has the SDK; the benchmark gives each peer its own venv."""

from __future__ import annotations

import sys
from decimal import Decimal
from typing import Any

import pytest

from prefixlock.billing.prices import PriceTable
from prefixlock.emulator import BUILTIN_PROMPTS
from prefixlock.guard.policy import CachePolicy
from prefixlock.versus.peers import PEERS, peers_of
from prefixlock.versus.run import ClientRun, run_peer, run_prefixlock
from prefixlock.versus.scenario import (
    EVENTS,
    IDLE,
    MCP,
    RESUME,
    SUBAGENTS,
    SWITCH,
    WIDE,
    Rates,
    Scenario,
    on_provider,
    suite,
)
from tests.versus.short import short_turns

PRICES = PriceTable.builtin()


def test_the_openai_scenarios_are_the_same_turns_on_openai_models() -> None:
    # Rates high enough that the two sessions have every event (the suite's are LOG_RATES).
    for sc in suite(tuple(BUILTIN_PROMPTS), (5, 6), Rates(0.1, 0.1, 0.1, 0.1)):
        oa = on_provider(sc, "openai")
        assert oa.provider == "openai" and oa.base_model == "gpt-5"
        # The same turns, the subagents ones included (every OpenAI peer offers `delegate`).
        assert any(t.event == SUBAGENTS for t in oa.turns)
        assert [(t.index, t.prompt, t.event, t.gap_before, t.tools) for t in oa.turns] == [
            (t.index, t.prompt, t.event, t.gap_before, t.tools) for t in sc.turns
        ]
        cheap = {i for i, t in enumerate(sc.turns) if t.model != sc.base_model}
        assert cheap and {t.index for t in oa.turns if t.model == "gpt-5-mini"} == cheap
        assert {t.model for t in oa.turns} == {"gpt-5", "gpt-5-mini"}
    with pytest.raises(ValueError):
        on_provider(sc, "gemini")
    assert [p.name for p in peers_of("openai")] == [
        "openai-sdk",
        "openai-agents",
        "pydantic-ai-openai",
        "langchain-openai",
        "openai-sdk-24h",  # the SDK loop with the guide's longer retention (the others use it)
    ]


def _short() -> Scenario:
    # 12 built-in turns, a wide and a subagents one, with one switch, a tool server that stops,
    # one resume and a 15-minute gap (past the 600-s in-memory TTL of gpt-5 in the price table).
    return on_provider(Scenario("short", short_turns()), "openai")


def _tool_names(body: dict[str, Any]) -> set[str]:
    # Chat Completions nests a tool's name under "function"; Responses has it at the top.
    return {str(t.get("function", t)["name"]) for t in body.get("tools", [])}


def _opening(body: dict[str, Any]) -> bool:
    """A conversation's first request: its system prompt (a Chat message, or the Responses
    `instructions`) and one user message."""
    if "messages" in body:
        return len(body["messages"]) == 2
    return len(body["input"]) == 1


def _first(run: ClientRun, event: str) -> tuple[int, int]:
    """(read, uncached) of the first real request of the first turn with `event`."""
    r = next(r for r in run.requests if r.event == event and not r.ping)
    return r.read, r.uncached


@pytest.mark.slow  # seconds of work: CI runs it in its slow step
def test_prefixlock_and_the_openai_sdk_peer_on_the_same_turns() -> None:
    sc = _short()
    # The Agent's default on gpt-5: the day-long retention (no premium over in-memory caching).
    ours = run_prefixlock(sc, PRICES, CachePolicy())
    sdk = next(p for p in PEERS if p.name == "openai-sdk")
    peer = run_peer(sc, PRICES, "openai-sdk", [sys.executable, str(sdk.path)])
    assert {r.turn for r in ours.requests} == {r.turn for r in peer.requests} == set(range(14))
    # prefixlock: one stable key for the session (across the resume too) and the plan's
    # retention on every request; the peer: its own stable key, the default retention.
    # (The conversation's requests offer `delegate`; its subagents' have a key of their own.)
    keys = {
        line["body"]["prompt_cache_key"]
        for line in ours.trace
        if "delegate" in _tool_names(line["body"])
    }
    assert len(keys) == 1
    assert all(line["body"]["prompt_cache_retention"] == "24h" for line in ours.trace)
    assert all(line["body"]["prompt_cache_key"] == "session-short" for line in peer.trace)
    assert not any("prompt_cache_retention" in line["body"] for line in peer.trace)
    mine, theirs = ours.by_event(), peer.by_event()
    # The 15-minute gap and the resume 14 h later: the day-long retention keeps the cache;
    # the peer's in-memory entries expired after 600 s.
    for event in (IDLE, RESUME):
        read, _ = _first(ours, event)
        peer_read, peer_uncached = _first(peer, event)
        assert read > 20_000 and peer_read == 0 and peer_uncached > 20_000
        assert mine[event] < theirs[event]
    # A tool server stops: the tools come before the messages (prefixlock's Responses keeps
    # its instructions before them), so both miss the context after them; prefixlock pays no
    # more.
    _, uncached = _first(ours, MCP)
    _, peer_uncached = _first(peer, MCP)
    assert uncached > 5_000 and peer_uncached > 5_000
    assert mine[MCP] <= theirs[MCP] * Decimal("1.01")
    # A wide turn has no lookback on OpenAI: both read the earlier context on its second
    # request; prefixlock pays no more (to within the bytes of its requests; its context is
    # shorter here, the switched turn having left only a subagent's summary).
    wide = [[r for r in run.requests if r.event == WIDE] for run in (ours, peer)]
    assert all(len(w) == 2 and w[1].read > 20_000 for w in wide)
    assert mine[WIDE] <= theirs[WIDE] * Decimal("1.05")
    # The subagents turn: four parallel `delegate` calls on a cold subagent prefix. The peer's
    # four first requests leave together and each misses it; prefixlock's delegator lets the
    # first one warm it (no write fee on OpenAI: the warming costs only its own miss), and
    # the other three read it.
    fan = next(t.index for t in sc.turns if t.event == SUBAGENTS)

    def firsts(run: ClientRun) -> list[int]:
        return [
            int(line["usage"]["cache_read"])
            for line in run.trace
            if line["turn"] == fan and _opening(line["body"])
        ]

    ours_first, peer_firsts = firsts(ours), firsts(peer)
    assert len(ours_first) == len(peer_firsts) == 4
    assert ours_first[0] == 0 and all(r > 1_024 for r in ours_first[1:])
    assert peer_firsts == [0, 0, 0, 0]
    assert mine[SUBAGENTS] < theirs[SUBAGENTS]
    # The switch: the user's move to gpt-5-mini for one turn, made with the whole
    # conversation (as the peer makes it), and back to gpt-5 the turn after.
    switch = next(t.index for t in sc.turns if t.event == SWITCH)
    assert any(n.startswith(f"turn {switch + 1} switched") for n in ours.notes), ours.notes
    assert "gpt-5-mini" in {line["model"] for line in ours.trace if line["turn"] == switch}
    assert ours.contextless == []  # both ways, with the conversation (the suite's check)
    assert {line["model"] for line in ours.trace if line["turn"] != switch} == {"gpt-5"}
    assert all(mine.get(e, Decimal(0)) <= theirs.get(e, Decimal(0)) for e in EVENTS), (mine, theirs)


def test_the_pings_plan_on_openai_pings_once_through_a_15_minute_gap() -> None:
    sc = _short()
    ours = run_prefixlock(sc, PRICES, CachePolicy(idle="pings"))
    # (The conversation's requests: its subagents are agents of their own, with the default.)
    conversation = [line for line in ours.trace if "delegate" in _tool_names(line["body"])]
    assert conversation and not any("prompt_cache_retention" in ln["body"] for ln in conversation)
    pings = [r for r in ours.requests if r.ping]
    # One ping 30 s before the 600-s TTL ends; the turn after the gap reads the cache.
    assert [r.event for r in pings].count(IDLE) == 1
    assert _first(ours, IDLE)[0] > 20_000
