"""Each OpenAI peer, unmodified in its own venv (built from PyPI once; skips offline), sends what
its configuration says on every request: the session's stable prompt_cache_key, the retention
its docs show, its wire API; and a 15-minute gap (past the 600-s in-memory TTL) is read from the
cache exactly when the peer asked for the day-long retention."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from prefixlock.billing.prices import PriceTable
from prefixlock.emulator import BUILTIN_PROMPTS
from prefixlock.versus.peers import peers_of
from prefixlock.versus.peers.envs import VenvUnavailable, python_for
from prefixlock.versus.run import run_peer
from prefixlock.versus.scenario import (
    IDLE,
    MCP,
    SUBAGENT_TASKS,
    SUBAGENTS,
    SUBAGENTS_PROMPT,
    Scenario,
    Turn,
    on_provider,
)
from tests.versus.short import SERVER_STOPPED

pytestmark = [pytest.mark.thirdparty, pytest.mark.slow]

# peer -> (wire API, prompt_cache_retention it sends, server-side compaction threshold sent)
SHAPES = {
    "openai-sdk": ("openai-chat", None, False),
    "openai-sdk-24h": ("openai-chat", "24h", False),  # the SDK loop at its documented longer TTL
    "openai-agents": ("openai-responses", "24h", True),
    "pydantic-ai-openai": ("openai-chat", "24h", False),
    "langchain-openai": ("openai-chat", "24h", False),
}


def _four_turns() -> Scenario:
    turns = tuple(Turn(i, p) for i, p in enumerate(BUILTIN_PROMPTS[:4]))
    turns = (
        *turns[:2],
        replace(turns[2], event=MCP, tools=SERVER_STOPPED),
        replace(turns[3], event=IDLE, gap_before=900.0),
    )
    return on_provider(Scenario("four", turns), "openai")


@pytest.mark.parametrize("name", [p.name for p in peers_of("openai")])
def test_each_openai_peer_sends_its_documented_cache_settings(name: str) -> None:
    assert set(SHAPES) == {p.name for p in peers_of("openai")}
    peer = next(p for p in peers_of("openai") if p.name == name)
    try:
        python = python_for(peer)
    except VenvUnavailable as exc:
        pytest.skip(str(exc))
    run = run_peer(_four_turns(), PriceTable.builtin(), name, peer.command(str(python)))
    api, retention, compacts = SHAPES[name]
    assert run.trace and {r.turn for r in run.requests} == {0, 1, 2, 3}
    for line in run.trace:
        body = line["body"]
        assert body["prompt_cache_key"] == "session-four"
        assert body.get("prompt_cache_retention") == retention
        assert ("context_management" in body) == compacts
        assert ("input" in body) == (api == "openai-responses")
    idle = next(r for r in run.requests if r.event == IDLE)
    assert (idle.read > 0) == (retention == "24h")


def _subagents_turn() -> Scenario:
    return on_provider(
        Scenario("fan", (Turn(0, BUILTIN_PROMPTS[0]), Turn(1, SUBAGENTS_PROMPT, event=SUBAGENTS))),
        "openai",
    )


def _user_text(body: dict[str, Any]) -> str:
    """The first user message's text (Chat Completions or Responses)."""
    items = body.get("messages") or body["input"]
    first = next(m for m in items if m.get("role") == "user")
    content = first["content"]
    if isinstance(content, str):
        return content
    return "".join(str(part.get("text", "")) for part in content)


def _tool_names(body: dict[str, Any]) -> set[str]:
    return {str(t.get("name") or t["function"]["name"]) for t in body.get("tools", [])}


@pytest.mark.parametrize("name", [p.name for p in peers_of("openai")])
def test_each_openai_peer_runs_the_four_subagents_in_parallel(name: str) -> None:
    peer = next(p for p in peers_of("openai") if p.name == name)
    try:
        python = python_for(peer)
    except VenvUnavailable as exc:
        pytest.skip(str(exc))
    run = run_peer(_subagents_turn(), PriceTable.builtin(), name, peer.command(str(python)))
    parent = [line for line in run.trace if _user_text(line["body"]) == BUILTIN_PROMPTS[0]]
    # The session offers `delegate` after the server's tools on every request; a subagent gets
    # the `general` agent's tools, without it.
    assert parent and all("delegate" in _tool_names(line["body"]) for line in parent)
    fan = [line for line in run.trace if line["turn"] == 1 and line not in parent]
    assert {_user_text(line["body"]) for line in fan} == {t for t, _, _ in SUBAGENT_TASKS}
    for task, calls, _ in SUBAGENT_TASKS:
        own = [line for line in fan if _user_text(line["body"]) == task]
        # Each subagent plays its task's steps: one request per tool call, and its answer.
        assert len(own) == len(calls) + 1
        assert all("delegate" not in _tool_names(line["body"]) for line in own)
        assert all(line["body"]["prompt_cache_key"] == "session-fan" for line in own)
    # Sent together on a cold prefix: all four first requests leave before any response starts,
    # so none of them reads the subagents' prefix.
    firsts = [
        r
        for r, line in zip(run.requests, run.trace, strict=True)
        if line in fan and len(line["body"].get("messages") or line["body"]["input"]) <= 2
    ]
    assert len(firsts) == len(SUBAGENT_TASKS) and all(r.read == 0 for r in firsts)
