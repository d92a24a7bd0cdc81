"""The guard's pure rules on hand-built requests: settings, lookback, verdicts, budgets, routing."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import pytest

from prefixlock.billing.usage import Usage
from prefixlock.cache.units import anthropic_units
from prefixlock.events import CacheBreak, UsageReport
from prefixlock.guard import CacheBudget, CacheBudgetExceeded, CacheGuard
from prefixlock.guard.cacheguard import provider_verdict
from prefixlock.settings import Settings
from prefixlock.wire import WireRequest
from tests.helpers.guardkit import agent, of, start_emulator, turn

SYSTEM = [{"type": "text", "text": "rules " * 3000, "cache_control": {"type": "ephemeral"}}]


def req(messages: list[dict[str, Any]], **extra: Any) -> WireRequest:
    body = {
        "model": "claude-opus-4-7",
        "max_tokens": 100,
        "system": SYSTEM,
        "messages": messages,
        **extra,
    }
    return WireRequest(
        "anthropic", "claude-opus-4-7", "/v1/messages", body, tuple(anthropic_units(body))
    )


def msgs(n: int, mark_last: bool = True) -> list[dict[str, Any]]:
    out = []
    for i in range(n):
        block: dict[str, Any] = {"type": "text", "text": f"message number {i} " * 20}
        if mark_last and i == n - 1:
            block["cache_control"] = {"type": "ephemeral"}
        out.append({"role": "user" if i % 2 == 0 else "assistant", "content": [block]})
    return out


def observe(g: CacheGuard, r: WireRequest, now: float) -> CacheBreak | None:
    p = g.predict(r, now)
    u = Usage(p.uncached, p.read, p.write_5m, p.write_1h, 10)
    return g.observe(r, p, u, now)


def test_thinking_change_is_a_settings_miss() -> None:
    g = CacheGuard()
    observe(g, req(msgs(3)), 0.0)
    p = g.predict(req(msgs(5), thinking={"type": "enabled", "budget_tokens": 2000}), 10.0)
    assert p.cause == "settings" and p.lost > 0
    # The system level still reads: only the messages level is keyed by thinking.
    assert p.read == anthropic_units(req(msgs(1)).body)[0].end


def test_a_turn_past_the_lookback_is_named() -> None:
    g = CacheGuard()
    observe(g, req(msgs(3)), 0.0)
    p = g.predict(req(msgs(3 + 25)), 10.0)  # 25 new blocks, one breakpoint at the end
    assert p.cause == "lookback" and p.read < p.ceiling


def test_unexplained_miss_carries_the_provider_verdict() -> None:
    g = CacheGuard()
    observe(g, req(msgs(3)), 0.0)
    r = req(msgs(5))
    p = g.predict(r, 5.0)
    assert p.read > 0 and p.cause is None
    reported = Usage(0, 0, p.input_total, 0, 5)  # the provider read nothing
    brk = g.observe(r, p, reported, 5.0, verdict="previous_message_not_found")
    assert brk is not None and brk.cause == "unexplained" and brk.tokens_rebilled == p.read
    assert brk.provider_verdict == "previous_message_not_found"
    assert brk.dollars == Decimal(p.read) * (Decimal("6.25") - Decimal("0.5")) / 1_000_000


def test_provider_verdicts_are_parsed() -> None:
    anth = {"diagnostics": {"cache_miss_reason": {"type": "tools_changed"}}}
    assert provider_verdict("anthropic", anth) == "tools_changed"
    assert provider_verdict("anthropic", {"diagnostics": {"cache_miss_reason": None}}) is None
    oai = {"prompt_cache_diagnostics": {"type": "cache_miss", "reason": "model_changed"}}
    assert provider_verdict("openai-responses", oai) == "model_changed"
    hit = {"prompt_cache_diagnostics": {"type": "cache_hit"}}
    assert provider_verdict("openai-responses", hit) is None
    assert provider_verdict("openai-chat", {}) is None


def test_a_bad_budget_limit_names_its_field() -> None:
    from prefixlock.errors import UserError

    bad: list[tuple[str, Any]] = [
        ("session_tokens", -1),
        ("action_dollars", "lots"),
        ("session_dollars", float("nan")),
    ]
    for field, value in bad:
        with pytest.raises(UserError) as e:
            CacheBudget(**{field: value})
        assert e.value.where == f"budget.{field}"
    assert CacheBudget(action_dollars=0.25).action_dollars == Decimal("0.25")  # type: ignore[arg-type]


def test_budget_messages_name_the_limit() -> None:
    b = CacheBudget(session_tokens=100, session_dollars=Decimal("1"))
    b.check(50, Decimal("0.1"), 0, Decimal(0), "x")
    with pytest.raises(CacheBudgetExceeded, match="session limit of 100"):
        b.check(60, Decimal("0.1"), 50, Decimal(0), "x")
    with pytest.raises(CacheBudgetExceeded) as e:
        b.check(10, Decimal("2"), 0, Decimal(0), "switching")
    assert e.value.where == "budget.session_dollars"


async def test_random_routing_misses_are_unexplained() -> None:
    # No prompt_cache_key and a server that routes at random over 8 machines.
    with start_emulator(openai={"routing": "random", "machines": 8}) as emu:
        a = agent(emu, model="gpt-5.4", settings=Settings(send_cache_key=False))
        async with a.session() as s:
            events = []
            for i in range(8):
                events += await turn(s, f"Turn {i}")
    breaks = of(events, CacheBreak)
    assert breaks and {b.cause for b in breaks} == {"unexplained"}
    lost = sum(r.predicted_read - r.usage.cache_read for r in of(events, UsageReport))
    assert sum(b.tokens_rebilled for b in breaks) == lost > 0


def test_incremental_openai_tokens_equal_the_full_count() -> None:
    from prefixlock.cache.units import openai_tokens, openai_units

    g = CacheGuard()
    messages: list[dict[str, Any]] = [{"role": "system", "content": "sys " * 500}]
    bodies = []
    for i in range(6):
        messages = [*messages, {"role": "user", "content": f"question {i} " * 30}]
        bodies.append(
            {
                "model": "gpt-5.4",
                "messages": messages,
                "tools": [{"type": "function", "function": {"name": "t", "parameters": {}}}],
            }
        )
        messages = [*messages, {"role": "assistant", "content": f"answer {i}"}]
    rewritten = [*bodies[2]["messages"][:-1], {"role": "user", "content": "rewritten"}]
    bodies.append({**bodies[2], "messages": rewritten})  # history rewritten: recomputed
    bodies.append({"model": "gpt-5.4", "instructions": "be brief", "input": "hello " * 300})
    for body in bodies:
        r = WireRequest(
            "openai-chat", "gpt-5.4", "/v1/chat/completions", body, tuple(openai_units(body))
        )
        n, keys = g._blocks(r)
        full = openai_tokens(body)
        assert n == len(full) and len(keys) == len(full) // 128
        assert keys == g._blocks(r)[1]


def test_provider_token_counts_are_scaled_not_blamed() -> None:
    g = CacheGuard()
    observe(g, req(msgs(3)), 0.0)
    r = req(msgs(5))
    p = g.predict(r, 5.0)
    # A real provider counts 5% fewer tokens for the same request and reads all it can.
    k = 0.95
    reported = Usage(round(p.uncached * k), round(p.read * k), round(p.write_5m * k), 0, 5)
    assert g.observe(r, p, reported, 5.0) is None
    # Reading half of that is still a miss, in the provider's count.
    r2 = req(msgs(7))
    p2 = g.predict(r2, 6.0)
    half = Usage(0, round(p2.read * k / 2), round((p2.input_total - p2.read / 2) * k), 0, 5)
    brk = g.observe(r2, p2, half, 6.0)
    assert brk is not None and brk.cause == "unexplained"
    assert abs(brk.tokens_rebilled - p2.read * k / 2) < 0.02 * p2.read


def test_the_cache_model_drops_entries_a_later_one_supersedes() -> None:
    """A long session on a clock that never passes the TTL between turns (a manual clock, or
    turns faster than the TTL) keeps a bounded model of the cache: each turn's tail entry is
    superseded by the next ones (the conversation reads the newest), so it goes once it is
    further back than a read looks; the predictions are as before (every turn reads the last)."""
    g = CacheGuard()
    sizes = []
    for n in range(1, 120, 2):
        brk = observe(g, req(msgs(n)), 0.0)
        assert brk is None
        sizes.append(len(g._cache))
    assert max(sizes[-20:]) <= sizes[20], f"the guard's cache model grew: {sizes}"
    p = g.predict(req(msgs(121)), 0.0)
    assert p.cause is None and p.read == p.ceiling > 0
    # An entry still within the lookback of the newest is kept: a request that goes back a
    # turn (a fork) reads it, as on the provider.
    back = g.predict(req(msgs(117)), 0.0)
    assert back.read == req(msgs(117)).units[-1].end


def test_expired_entries_go_an_hour_after_they_expire() -> None:
    g = CacheGuard()
    observe(g, req(msgs(3)), 0.0)
    held = len(g._cache)
    late = g.predict(req(msgs(5)), 600.0)  # idle past the 5-minute TTL: named, still stored
    assert late.cause == "ttl" and len(g._cache) == held
    observe(g, req(msgs(5, mark_last=True)), 600.0 + 3600.0 + 300.0)
    assert all((g._cache.expires_at(k) or 0.0) > 600.0 for k in g._cache.stored_keys())


def test_the_guard_keeps_its_newest_misses_and_counts_every_one() -> None:
    """A long session that misses now and then keeps a bounded list of its misses (it held
    one record a miss for its life); the counts and sums by cause still cover every one."""
    from prefixlock.guard.cacheguard import BREAKS_KEPT

    g = CacheGuard()
    observe(g, req(msgs(3)), 0.0)
    misses = BREAKS_KEPT + 40
    lost = 0
    for i in range(misses):
        r = req(msgs(5 + 2 * i))
        p = g.predict(r, 1.0 + i)
        brk = g.observe(r, p, Usage(0, 0, p.input_total, 0, 5), 1.0 + i)  # read nothing
        assert brk is not None and brk.cause == "unexplained"
        lost += brk.tokens_rebilled
    assert len(g.breaks) == BREAKS_KEPT
    assert g.breaks[-1].request == misses  # the newest kept, in order
    snap = g.snapshot()
    assert snap["breaks"] == misses
    assert snap["by_cause"] == {"unexplained": lost} and snap["rebilled_tokens"] == lost
    g.forget_breaks()
    assert not g.breaks and g.snapshot()["breaks"] == 0 and g.snapshot()["by_cause"] == {}
