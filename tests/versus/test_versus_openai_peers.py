"""Each OpenAI peer, unmodified in its own venv (built from PyPI once; skips offline), sends what
its configuration says on every request: the session's stable prompt_cache_key, the retention
its docs show, its wire API; and a 15-minute gap (past the 600-s in-memory TTL) is read from the
cache exactly when the peer asked for the day-long retention."""

from __future__ import annotations

from dataclasses import replace

import pytest

from prefixlock.emulator import BUILTIN_PROMPTS
from prefixlock.prices import PriceTable
from prefixlock.versus.peers import peers_of
from prefixlock.versus.peers.envs import VenvUnavailable, python_for
from prefixlock.versus.run import run_peer
from prefixlock.versus.scenario import IDLE, MCP, Scenario, Turn, on_provider

pytestmark = [pytest.mark.thirdparty, pytest.mark.slow]

# peer -> (wire API, prompt_cache_retention it sends, server-side compaction threshold sent)
SHAPES = {
    "openai-sdk": ("openai-chat", None, False),
    "openai-agents": ("openai-responses", "24h", True),
    "pydantic-ai-openai": ("openai-chat", "24h", False),
    "langchain-openai": ("openai-chat", "24h", False),
}


def _four_turns() -> Scenario:
    turns = tuple(Turn(i, p) for i, p in enumerate(BUILTIN_PROMPTS[:4]))
    turns = (*turns[:2], replace(turns[2], event=MCP, tool_order_seed=5),
             replace(turns[3], event=IDLE, gap_before=900.0))
    return on_provider(Scenario("four", turns), "openai")


@pytest.mark.parametrize("name", [p.name for p in peers_of("openai")])
def test_each_openai_peer_sends_its_documented_cache_settings(name: str) -> None:
    assert set(SHAPES) == {p.name for p in peers_of("openai")}
    peer = next(p for p in peers_of("openai") if p.name == name)
    try:
        python = python_for(peer)
    except VenvUnavailable as exc:
        pytest.skip(str(exc))
    run = run_peer(_four_turns(), PriceTable.builtin(), name, [str(python), str(peer.path)])
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
