"""The versus scenarios and their runners, end to end on the emulator: prefixlock through its
guard and CachePolicy, and the anthropic SDK peer script through the line protocol (here run
with this interpreter, which has the SDK; the benchmark gives each peer its own venv)."""

from __future__ import annotations

import json
import re
import sys
from decimal import Decimal
from typing import Any

import pytest

from prefixlock.billing.prices import PriceTable
from prefixlock.emulator import BUILTIN_PROMPTS
from prefixlock.guard.policy import CachePolicy
from prefixlock.versus.peers import PEERS
from prefixlock.versus.run import ClientRun, run_peer, run_prefixlock, shrunk
from prefixlock.versus.scenario import (
    COMPACT,
    EVENTS,
    IDLE,
    LONG_IDLE,
    MCP,
    RESUME,
    STEADY,
    SUBAGENT_TASKS,
    SUBAGENTS,
    SUMMARY_TOKENS,
    SWITCH,
    SWITCH_MODEL,
    TURN_GAPS,
    WIDE,
    WIDE_FILES,
    Rates,
    Turn,
    mark_compactions,
    suite,
)
from tests.versus.short import IDLE_TURN, short_turns

PRICES = PriceTable.builtin()


# Rates high enough that two sessions draw every event (the suite's rates are LOG_RATES).
RICH = Rates(switch=0.1, mcp=0.1, wide=0.1, subagents=0.1)
RICH_SEEDS = (5, 6)


def test_scenarios_are_seeded_data_with_every_rare_event() -> None:
    a = suite(tuple(BUILTIN_PROMPTS), RICH_SEEDS, RICH)
    assert a == suite(tuple(BUILTIN_PROMPTS), RICH_SEEDS, RICH)
    for sc in a:
        events = sc.events()
        assert events[SWITCH] >= 1 and events[MCP] >= 1 and events[RESUME] == 1
        assert events[WIDE] >= 1
        assert sc.turns[0].event == STEADY
        assert [t.index for t in sc.turns] == list(range(len(sc.turns)))
        # A switch: one turn on the other model and the turn back (unless that one is an
        # event of its own).
        for before, after in zip(sc.turns, sc.turns[1:], strict=False):
            if before.model == SWITCH_MODEL:
                assert after.model != SWITCH_MODEL and before.event == SWITCH
        for t in sc.turns:
            if t.event == SWITCH and t.model != SWITCH_MODEL:
                assert sc.turns[t.index - 1].model == SWITCH_MODEL
        # Every built-in turn is played once, in order; wide turns come in between.
        assert events[SUBAGENTS] >= 1
        assert [t.script_turn for t in sc.turns if t.event not in (WIDE, SUBAGENTS)] == list(
            range(len(BUILTIN_PROMPTS))
        )
        for t in sc.turns:
            assert t.event == SWITCH or t.model != SWITCH_MODEL
            assert (t.tools is not None) == (t.event == MCP)
            # Every gap is one of the trace's; past the TTL it is an idle gap.
            if t.index and t.event != RESUME:
                assert t.gap_before in TURN_GAPS
                idle = t.event in (IDLE, LONG_IDLE)
                assert (t.gap_before > 300) == idle or t.event in (WIDE, SUBAGENTS)
                assert t.gap_before <= 300 or t.event not in (WIDE, SUBAGENTS)
        # A tool server stops (its tools leave the list), then starts again (they come back
        # after the other server's).
        changes = [t.tools for t in sc.turns if t.tools is not None]
        assert "write_file" not in changes[0]
        if len(changes) > 1:
            assert changes[1][-1] == "write_file"


def test_the_suite_forces_nothing_and_draws_gaps_at_the_traces_rates() -> None:
    """With the logs' rates no event is forced: over many seeds a share of turns near the
    trace's 21.8% has an idle gap, no wide turn comes (no log shows one), one resume each."""
    sessions = suite(tuple(BUILTIN_PROMPTS), seeds=tuple(range(1, 61)))
    turns = [t for sc in sessions for t in sc.turns if t.index and t.event != RESUME]
    idle = sum(1 for t in turns if t.gap_before > 300) / len(turns)
    assert 0.17 < idle < 0.27
    assert all(sc.events()[WIDE] == 0 and sc.events()[RESUME] == 1 for sc in sessions)
    assert sum(1 for sc in sessions if sc.events()[MCP] == 0) > len(sessions) // 2


def test_a_wide_turn_reads_twelve_files_in_one_reply_of_the_sessions_script() -> None:
    from prefixlock.emulator import BUILTIN
    from prefixlock.emulator.workspace import Workspace

    assert set(WIDE_FILES) <= set(Workspace().files)
    sc = suite(tuple(BUILTIN_PROMPTS), RICH_SEEDS, RICH)[0]
    script = sc.script(BUILTIN)
    # Each turn's steps are found by its prompt's text (a compacted history has fewer user
    # turns); the prompt the user types twice says "again" the second time.
    prompts = [t.prompt for t in sc.turns if t.event not in (WIDE, SUBAGENTS)]
    assert len(set(prompts)) == len(prompts) and "Run the whole suite again." in prompts
    # One rule a turn, then one for each subagent's task (its conversation starts with it).
    assert len(script.rules) == len(sc.turns) + len(SUBAGENT_TASKS)
    assert [r.turn for r in script.rules] == [None] * len(script.rules)
    turn_rules, task_rules = script.rules[: len(sc.turns)], script.rules[len(sc.turns) :]
    assert all(
        rule.match and re.search(rule.match, t.prompt)
        for t, rule in zip(sc.turns, turn_rules, strict=True)
    )
    for (task, calls, _), rule in zip(SUBAGENT_TASKS, task_rules, strict=True):
        assert rule.match and re.search(rule.match, task)
        assert [(st.tool, st.input) for st in rule.steps[:-1]] == [(n, a) for n, a in calls]
    for t, rule in zip(sc.turns, turn_rules, strict=True):
        if t.event == SUBAGENTS:
            first = rule.steps[0]
            assert first.tool == "delegate" and len(first.parallel) == len(SUBAGENT_TASKS) - 1
        elif t.event == WIDE:
            first = rule.steps[0]
            assert first.tool == "read_file" and len(first.parallel) == len(WIDE_FILES) - 1
        else:
            assert rule.steps == BUILTIN.rules[t.script_turn or 0].steps


def _short() -> tuple[Turn, ...]:
    return short_turns()


def _tool_calls(body: dict[str, Any], prompt: str) -> list[tuple[str, str]]:
    """The (name, input) of every tool call after the user's `prompt` in a request body."""
    calls: list[tuple[str, str]] = []
    seen = False
    for msg in body["messages"]:
        content = msg["content"]
        blocks = [{"type": "text", "text": content}] if isinstance(content, str) else content
        if msg["role"] == "user" and any(b.get("text") == prompt for b in blocks):
            seen, calls = True, []
        elif seen and msg["role"] == "assistant":
            calls += [
                (b["name"], json.dumps(b["input"], sort_keys=True))
                for b in blocks
                if b["type"] == "tool_use"
            ]
    return calls


@pytest.mark.slow  # seconds of work: CI runs it in its slow step
def test_prefixlock_and_the_sdk_peer_on_the_same_turns() -> None:
    from prefixlock.versus.scenario import Scenario

    sc = Scenario("short", _short())
    ours = run_prefixlock(sc, PRICES, CachePolicy())  # the Agent's default policy
    peer = run_peer(sc, PRICES, "anthropic-sdk", [sys.executable, str(PEERS[0].path)])
    # Same work: the same user turns, answered by the same script.
    assert {r.turn for r in ours.requests} == {r.turn for r in peer.requests} == set(range(14))
    assert all(r.trace for r in (ours, peer))
    assert all(line["body"]["cache_control"] == {"type": "ephemeral"} for line in peer.trace)
    mine, theirs = ours.by_event(), peer.by_event()
    # A tool server stops: its tool leaves the list. Tools come first in the prefix, so both
    # clients write the context again (no client can avoid it); both send the new list.
    mcp_turn = next(t.index for t in sc.turns if t.event == MCP)
    first = next(r for r in ours.requests if r.turn == mcp_turn)
    peer_first = next(r for r in peer.requests if r.turn == mcp_turn)
    assert first.written > 5_000 and peer_first.written > 5_000
    for run in (ours, peer):
        sent = next(row["body"]["tools"] for row in run.trace if row["turn"] == mcp_turn)
        assert "write_file" not in {t["name"] for t in sent}
    # The 15-minute gap: each request held the model's last reply at 1h (docs/savings.md,
    # held history), so the turn after the gap reads the conversation with nothing written
    # between turns and re-writes nothing. What may be sent in the gap is the prefix keep's read
    # of the tools and system prompt alone, for the compaction ahead (docs/savings.md, keeping
    # the prefix for the compaction): a read of the prefix, not of the conversation, which
    # writes at most the system prompt's last line at 1 hour (the prefix anchor, at most 200
    # tokens: docs/savings.md, the prefix anchor) and the one-line note at 5 minutes.
    rows = [row for row in ours.trace if row["turn"] == IDLE_TURN]
    idle = [row for row in rows if row["body"]["max_tokens"] > 0]  # the turn's own requests
    kept = [row["usage"] for row in rows if row["body"]["max_tokens"] == 0]
    assert all(u["cache_write_5m"] < 100 and u["cache_write_1h"] <= 200 for u in kept), kept
    assert all(u["cache_read"] < 25_000 < idle[0]["usage"]["cache_read"] for u in kept), kept
    before = [row for row in ours.trace if row["turn"] == IDLE_TURN - 1][-1]["body"]
    assert before["messages"][-2]["content"][-1]["cache_control"]["ttl"] == "1h"
    assert idle[0]["usage"]["cache_read"] > 20_000 and idle[0]["usage"]["cache_write_5m"] < 2_000
    assert mine[IDLE] < theirs[IDLE]
    # Resume after 14 h: both re-write (no client can keep a cache overnight).
    assert mine[RESUME] <= theirs[RESUME] * Decimal("1.01")
    # The one-turn excursion to opus: the user's move, made (quoted first), with the whole
    # conversation, as the peer makes it: the same tool calls, on haiku.
    away = next(t for t in sc.turns if t.model == SWITCH_MODEL)
    assert any(n.startswith(f"turn {away.index + 1} switched") for n in ours.notes)
    # Both sent the switched turn and the turn back with the conversation (the suite's check).
    assert ours.contextless == peer.contextless == []
    ours_away = [row for row in ours.trace if row["turn"] == away.index]
    peer_away = [row for row in peer.trace if row["turn"] == away.index]
    assert (
        {row["model"] for row in ours_away} == {row["model"] for row in peer_away} == {SWITCH_MODEL}
    )
    assert (
        _tool_calls(ours_away[-1]["body"], away.prompt)
        == _tool_calls(peer_away[-1]["body"], away.prompt)
        != []
    )
    assert len(ours_away) == len(peer_away)
    # The wide turn: twelve parallel reads add 25 blocks to its second request. The peer's one
    # breakpoint is past the 20-block lookback and re-writes the whole context; prefixlock's
    # second breakpoint keeps it read.
    wide = next(t.index for t in sc.turns if t.event == WIDE)
    ours_wide = [r for r in ours.requests if r.turn == wide]
    peer_wide = [r for r in peer.requests if r.turn == wide]
    assert len(ours_wide) == len(peer_wide) == 2
    assert peer_wide[1].written > 20_000 > ours_wide[1].written
    assert mine[WIDE] < theirs[WIDE]
    # The subagents turn: four parallel `delegate` calls on a cold subagent prefix. Every
    # subagent plays its task's steps (the same tool calls for both clients). The peer's four
    # first requests are in flight together and each writes the shared prefix; prefixlock's
    # delegator lets the first one warm it, and the other three read it.
    fan = next(t.index for t in sc.turns if t.event == SUBAGENTS)
    for run in (ours, peer):
        rows = [row for row in run.trace if row["turn"] == fan]
        for task, calls, _ in SUBAGENT_TASKS:
            own = [
                row
                for row in rows
                if _tool_calls(row["body"], task)
                or row["body"]["messages"][0]["content"] in (task, [{"type": "text", "text": task}])
            ]
            assert [json.loads(a) for _, a in _tool_calls(own[-1]["body"], task)] == [
                a for _, a in calls
            ]

    def firsts(run: ClientRun) -> list[tuple[int, int]]:
        return [
            (r["usage"]["cache_read"], r["usage"]["cache_write_5m"])
            for r in run.trace
            if r["turn"] == fan and len(r["body"]["messages"]) == 1
        ]

    ours_first, peer_firsts = firsts(ours), firsts(peer)
    assert len(ours_first) == len(peer_firsts) == len(SUBAGENT_TASKS)
    shared = ours_first[0][1]
    assert shared > 1_024  # past sonnet's cache minimum: the prefix is cacheable
    assert sorted(r for r, _ in ours_first) == [0] + [ours_first[1][0]] * 3
    assert ours_first[1][0] > shared * 0.9 and all(w < 100 for _, w in ours_first[1:])
    assert all(r == 0 and w > shared * 0.9 for r, w in peer_firsts)
    assert mine[SUBAGENTS] < theirs[SUBAGENTS]
    # On this short session the held reply's 1h write (2x instead of 1.25x on each reply) costs
    # the rows without a gap up to 2% (steady: 1.6%); the gap rows pay it back many times over.
    assert all(
        mine.get(e, Decimal(0)) <= theirs.get(e, Decimal(0)) * Decimal("1.02") for e in EVENTS
    ), (mine, theirs)
    assert sum(mine.values()) < sum(theirs.values()) * Decimal("0.9")


@pytest.mark.slow  # seconds of work: CI runs it in its slow step
def test_prefixlock_compacts_by_its_own_setting_and_the_turns_play_on() -> None:
    from prefixlock.settings import Settings
    from prefixlock.versus.scenario import Scenario

    sc = Scenario("short", _short())
    # A threshold this short session passes (the suite's is COMPACT_TOKENS of the window).
    settings = Settings(compact_at=30_000 / 1_000_000)
    ours = run_prefixlock(sc, PRICES, CachePolicy(), settings=settings)
    plain = run_prefixlock(sc, PRICES, CachePolicy(), settings=Settings())
    assert ours.compacted and not plain.compacted
    at = ours.compacted[0]
    marked = mark_compactions(sc, set(ours.compacted))
    # The row: the turns it compacted on and the steady turns between the first and the last.
    first, last = min(ours.compacted), max(ours.compacted)
    between = {t.index for t in sc.turns if first < t.index < last and t.event == STEADY}
    row = sorted(set(ours.compacted) | between)
    assert [t.index for t in marked.turns if t.event == COMPACT] == row
    ours.relabel(marked)
    assert {r.turn for r in ours.requests if r.event == COMPACT} == set(row)
    summary = [
        row
        for row in ours.trace
        if row["turn"] == at and "Summarize this conversation" in str(row["body"])
    ]
    assert len(summary) == 1 and summary[0]["event"] == COMPACT
    # The scripted model answers it as a real model would: a summary of SUMMARY_TOKENS.
    assert summary[0]["usage"]["output"] == SUMMARY_TOKENS

    # After the compaction every turn still plays its own scripted steps: the same requests
    # as without it, plus the summary; and the turns after it read a shorter context.
    def per_turn(run: ClientRun) -> dict[int, int]:
        out: dict[int, int] = {}
        for r in run.requests:
            if not r.ping:
                out[r.turn] = out.get(r.turn, 0) + 1
        return out

    mine, base = per_turn(ours), per_turn(plain)
    assert mine == {t: n + (t in ours.compacted) for t, n in base.items()}
    last = max(r.turn for r in ours.requests)
    read = [r.read + r.written + r.uncached for r in ours.requests if r.turn == last]
    base_read = [r.read + r.written + r.uncached for r in plain.requests if r.turn == last]
    assert max(read) < max(base_read)


def test_the_compaction_row_spans_every_clients_compaction() -> None:
    """Clients compact on different turns (each by its own count): the steady turns from the
    first to the last of them are the row, so each client's summary request is in it."""
    turns = tuple(
        Turn(i, f"p{i}", IDLE if i == 3 else STEADY, 600.0 if i == 3 else 45.0) for i in range(7)
    )
    from prefixlock.versus.scenario import Scenario

    marked = mark_compactions(Scenario("s", turns), {2, 4})
    assert [t.event for t in marked.turns] == [
        STEADY,
        STEADY,
        COMPACT,
        IDLE,
        COMPACT,
        STEADY,
        STEADY,
    ]
    # A client that compacted on the idle-gap turn: that turn is in the row for every client.
    marked = mark_compactions(Scenario("s", turns), {3, 4})
    assert [t.event for t in marked.turns] == [
        STEADY,
        STEADY,
        STEADY,
        COMPACT,
        COMPACT,
        STEADY,
        STEADY,
    ]
    assert mark_compactions(Scenario("s", turns), set()).turns == turns


def test_a_peers_compaction_is_where_its_history_got_shorter() -> None:
    def row(turn: int, messages: int) -> dict[str, object]:
        return {"turn": turn, "body": {"messages": [{}] * messages}}

    # LangChain's shape: a one-message summary request, then the summary and 20 kept messages.
    trace = [row(0, 1), row(0, 3), row(1, 5), row(1, 7), row(2, 1), row(2, 21), row(3, 23)]
    assert shrunk(trace) == [2]
    assert shrunk([row(0, 1), row(1, 3)]) == []
    # A subagents turn: the subagents' own short conversations (their system prompt) are not a
    # compaction of the main one (the SDK peer never compacts; it was counted as compacting).
    sub = "You are a subagent."

    def on(turn: int, messages: int, system: object) -> dict[str, object]:
        return {"turn": turn, "body": {"system": system, "messages": [{}] * messages}}

    main = "You are Forge."
    trace = [
        on(0, 1, main),
        on(0, 3, main),
        on(1, 1, [{"text": "Preamble. "}, {"text": sub}]),
        on(1, 3, sub),
        on(1, 5, main),
        on(2, 7, main),
    ]
    assert shrunk(trace, subagent_system=sub) == []
    assert shrunk(trace) == [1]  # without knowing the subagents' prompt, as before
    # Chat Completions: the system prompt is the first message.
    chat = [
        {"turn": 0, "body": {"messages": [{"role": "system", "content": main}, {}, {}]}},
        {"turn": 1, "body": {"messages": [{"role": "system", "content": sub}, {}]}},
        {"turn": 1, "body": {"messages": [{"role": "system", "content": main}, {}, {}, {}]}},
    ]
    assert shrunk(chat, subagent_system=sub) == []
    # openai-agents on Responses: the server's compaction item is appended to the whole
    # history; the model sees the input from it on, which is shorter.
    compaction = {"type": "compaction", "encrypted_content": "x"}
    responses = [
        {"turn": 0, "body": {"input": [{}] * 30}},
        {"turn": 1, "body": {"input": [{}] * 32}},
        {"turn": 1, "body": {"input": [*[{}] * 32, compaction, {}]}},
        {"turn": 2, "body": {"input": [*[{}] * 32, compaction, {}, {}, {}]}},
    ]
    assert shrunk(responses) == [1]
    # The compaction pass billed on a turn's last request: its reply carried the item, and
    # the next turn's input is the first that holds it. The compaction is the first turn's.
    at_end = [
        {"turn": 0, "body": {"input": [{}] * 30}},
        {"turn": 1, "body": {"input": [{}] * 32}},
        {"turn": 2, "body": {"input": [*[{}] * 32, compaction, {}]}},
        {"turn": 2, "body": {"input": [*[{}] * 32, compaction, {}, {}, {}]}},
    ]
    assert shrunk(at_end) == [1]


def test_coding_pacing_draws_the_sample_logs_gaps_and_leaves_the_chat_suite_as_it_was() -> None:
    """`--pacing coding`: every gap one of the coding-agent logs' six, so most turns follow an
    idle gap and some a gap past the hour; the default suite is the chat pacing, unchanged."""
    from prefixlock.versus.scenario import CODING_TURN_GAPS, PACINGS

    prompts = tuple(BUILTIN_PROMPTS)
    assert suite(prompts, seeds=(1, 2)) == suite(prompts, seeds=(1, 2), gaps=PACINGS["chat"])
    coding = suite(prompts, seeds=tuple(range(1, 9)), gaps=PACINGS["coding"])
    drawn = [t for sc in coding for t in sc.turns if t.index]
    user = [t for t in drawn if t.event not in (RESUME, WIDE, SUBAGENTS)]
    assert {t.gap_before for t in user} <= set(CODING_TURN_GAPS)
    assert all((t.event == LONG_IDLE) == (t.gap_before > 3600) for t in user)
    idle = sum(t.event in (IDLE, LONG_IDLE) for t in user)
    assert idle / len(user) > 0.6  # five of the six gaps pass the 5-minute TTL
    assert any(t.event == LONG_IDLE for t in user)
