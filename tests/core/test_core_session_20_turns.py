"""A 20-turn session on a 10K-token system prompt with 12 tools, per provider, through respx:
the prefix bytes never change, Anthropic breakpoints never exceed 4, the OpenAI cache key never
changes, and the ledger's dollars equal a hand computation from the published prices."""

from __future__ import annotations

import json
from decimal import Decimal
from typing import Any

import httpx
import pytest
import respx

from prefixlock.agent import Agent
from prefixlock.cache.keys import family_key
from prefixlock.canonical import canonical_bytes
from prefixlock.events import ToolResult, TurnComplete
from prefixlock.prefix import FrozenPrefix
from tests.helpers import sse_responses as sse
from tests.helpers.marks import strip_cache_control

M = Decimal(1_000_000)
TURNS = 20


def _script(kind: str) -> Any:
    """A side effect answering request n: every 4th turn calls a tool first."""
    state = {"n": 0, "pending_tool": False}

    def respond(request: httpx.Request) -> httpx.Response:
        n = state["n"]
        state["n"] += 1
        body = json.loads(request.content)
        last_user_text = json.dumps(body.get("messages") or body.get("input"))[-200:]
        wants_tool = "turn 3" in last_user_text or "turn 7" in last_user_text
        call = [(f"call_{n}", "read_file", {"path": f"src/{n}.py"})] if wants_tool else []
        usage: dict[str, Any]
        if kind == "anthropic":
            usage = {
                "input_tokens": 40 + n,
                "cache_creation_input_tokens": 300 + 3 * n,
                "cache_read_input_tokens": 10_000 + 500 * n,
            }
            return sse.anthropic(text=f"answer {n}", tools=call, usage=usage, output=20 + n)
        if kind == "deepseek":
            usage = {
                "prompt_tokens": 10_500 + 600 * n,
                "completion_tokens": 20 + n,
                "prompt_cache_hit_tokens": 10_000 + 500 * n,
                "prompt_cache_miss_tokens": 500 + 100 * n,
            }
            return sse.chat(text=f"answer {n}", tools=call, usage=usage)
        if kind == "responses":
            usage = {
                "input_tokens": 10_500 + 600 * n,
                "output_tokens": 20 + n,
                "input_tokens_details": {"cached_tokens": 10_112 + 512 * n},
            }
            return sse.responses(text=f"answer {n}", tools=call, usage=usage)
        usage = {
            "prompt_tokens": 10_500 + 600 * n,
            "completion_tokens": 20 + n,
            "prompt_tokens_details": {"cached_tokens": 10_112 + 512 * n},
        }
        return sse.chat(text=f"answer {n}", tools=call, usage=usage)

    return respond, state


def _hand_cost(kind: str, requests: int) -> Decimal:
    """Dollars from the per-million prices in docs/providers.md#anthropic-prices, written out by
    hand."""
    total = Decimal(0)
    for n in range(requests):
        if kind == "anthropic":  # claude-opus-4-7: in 5, 5m write 6.25, read 0.50, out 25
            total += (
                Decimal(40 + n) * 5
                + Decimal(300 + 3 * n) * Decimal("6.25")
                + Decimal(10_000 + 500 * n) * Decimal("0.50")
                + Decimal(20 + n) * 25
            ) / M
        elif kind in (
            "openai",
            "responses",
        ):  # gpt-5: in 1.25, cached 0.125, out 10; prompt includes cached
            cached = 10_112 + 512 * n
            total += (
                Decimal(10_500 + 600 * n - cached) * Decimal("1.25")
                + Decimal(cached) * Decimal("0.125")
                + Decimal(20 + n) * 10
            ) / M
        else:  # deepseek-v4-flash: miss 0.14, hit 0.0028, out 0.28
            total += (
                Decimal(500 + 100 * n) * Decimal("0.14")
                + Decimal(10_000 + 500 * n) * Decimal("0.0028")
                + Decimal(20 + n) * Decimal("0.28")
            ) / M
    return total


CASES = [
    ("anthropic", "claude-opus-4-7", "https://api.anthropic.com/v1/messages", None),
    ("openai", "openai-chat:gpt-5", "https://api.openai.com/v1/chat/completions", None),
    ("deepseek", "deepseek-v4-flash", "https://api.deepseek.com/v1/chat/completions", None),
    ("responses", "gpt-5", "https://api.openai.com/v1/responses", None),
]


@pytest.mark.parametrize(("kind", "model", "url", "base_url"), CASES, ids=[c[0] for c in CASES])
async def test_twenty_turns(
    kind: str,
    model: str,
    url: str,
    base_url: str | None,
    big_prefix: FrozenPrefix,
    router: respx.Router,
    http_client: Any,
) -> None:
    assert big_prefix.segment("system").tokens >= 10_000
    assert len(big_prefix.tools) == 12
    respond, state = _script(kind)
    route = router.post(url).mock(side_effect=respond)
    agent = Agent(
        big_prefix,
        model=model,
        api_key="sk-secret-test",
        base_url=base_url,
        http_client=http_client,
    )
    async with agent.session("session-20") as s:
        for turn in range(TURNS):
            events = [e async for e in s.send(f"turn {turn}: go on")]
            assert isinstance(events[-1], TurnComplete)
            if turn in (3, 7):
                assert any(isinstance(e, ToolResult) and not e.is_error for e in events)
        sent = [json.loads(c.request.content) for c in route.calls]
        assert len(sent) == TURNS + 2 == len(s.requests) == len(s.ledger)
        # Every request: the same prefix bytes, the exact body we built.
        if kind == "anthropic":
            # The marks' TTLs may differ (the policy holds a reply at 1h, and a 1h mark needs
            # 1h marks before it): a mark is not part of what the cache matches, as every
            # request that reads the previous one's entry without its tail mark shows.
            prefix_parts = {
                (
                    canonical_bytes(strip_cache_control(b["tools"])),
                    canonical_bytes(strip_cache_control(b["system"])),
                )
                for b in sent
            }
            for b in sent:
                marks = json.dumps(b).count('"cache_control"')
                assert 3 <= marks <= 4
                assert "cache_control" in b["messages"][-1]["content"][-1]
        else:
            # The system prompt: Responses `instructions`, else the first chat message.
            prefix_parts = {
                (
                    canonical_bytes(b["tools"]),
                    canonical_bytes(b["instructions"] if kind == "responses" else b["messages"][0]),
                )
                for b in sent
            }
            keys = {b["prompt_cache_key"] for b in sent}
            # One key all session long: its prefix family's (prefixlock.cache.keys).
            assert keys == {family_key(s.agent.prefix.fingerprint, 0)}
        assert len(prefix_parts) == 1
        for req, b in zip(s.requests, sent, strict=True):
            assert canonical_bytes(b) == req.body_bytes
            assert req.units == req.recomputed_units()
        # Transcript: user + assistant per turn, plus tool call rounds; nothing lost or doubled.
        assert len(s.transcript) == 2 * TURNS + 2 * 2
        # Dollars equal the hand computation.
        assert s.ledger.cost == _hand_cost(kind, TURNS + 2)
        assert s.ledger.saved is not None and s.ledger.saved > 0
        assert state["n"] == TURNS + 2
