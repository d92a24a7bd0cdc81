"""A model switch is priced before it happens, and the price is what the emulator then bills."""

from __future__ import annotations

from decimal import Decimal

import pytest

from prefixlock.billing.prices import PriceTable
from prefixlock.events import CacheBreak, PrefixChanged, SwitchWarning, UsageReport
from prefixlock.guard.quote import QuoteRequired
from tests.helpers.guardkit import advance, agent, of, run_turns, sent, start_emulator, turn

OPUS, SONNET = "claude-opus-4-7", "claude-sonnet-4-6"
PRICES = PriceTable.default()


def within(a: float | Decimal, b: float | Decimal, rel: float = 0.01) -> bool:
    return abs(float(a) - float(b)) <= rel * abs(float(b))


async def test_switch_quote_matches_what_the_emulator_bills() -> None:
    # Two identical 30-turn sessions on two emulators: A switches Opus -> Sonnet after turn 20,
    # B stays, so B's turn 21 shows what A's cache would have served.
    with start_emulator() as emu_a, start_emulator() as emu_b:
        async with agent(emu_a).session("a") as a, agent(emu_b).session("b") as b:
            await run_turns(emu_a, a, 20)
            await run_turns(emu_b, b, 20)
            quote = a.quote_switch(SONNET)
            assert quote.warns and quote.tokens_rebilled > 10_000
            with pytest.raises(QuoteRequired):
                a.switch_model(SONNET)  # no quote, no policy: refused
            n_before = sent(emu_a)
            a.switch_model(SONNET, quote=quote)
            assert sent(emu_a) == n_before  # switching sends nothing
            events_a = await turn(a, "Turn 21: look at src/app.py and tell me what f21 does.")
            events_b = await turn(b, "Turn 21: look at src/app.py and tell me what f21 does.")
            await run_turns(emu_a, a, 9, start=22)

    first_a = of(events_a, UsageReport)[0]
    first_b = of(events_b, UsageReport)[0]
    assert first_a.model == SONNET and first_a.usage.cache_read == 0
    # Tokens: what B read is what A had cached and re-billed.
    assert within(quote.tokens_rebilled, first_b.usage.cache_read)
    # Dollars: re-billing those tokens on Sonnet (written instead of read), as billed.
    sonnet = PRICES.require(SONNET)
    billed = first_b.usage.cache_read * (sonnet.write_5m - sonnet.cache_read) / 1_000_000
    assert quote.dollars is not None and within(quote.dollars, billed)
    # The next turn's input dollars with and without the switch, against the emulator's usage.
    opus = PRICES.require(OPUS)
    assert quote.with_action is not None and quote.without_action is not None
    assert within(
        quote.with_action.input_dollars or 0,
        sonnet.cost(
            first_a.usage.__class__(
                first_a.usage.uncached_input,
                first_a.usage.cache_read,
                first_a.usage.cache_write_5m,
                first_a.usage.cache_write_1h,
                0,
            )
        ),
    )
    assert within(
        quote.without_action.input_dollars or 0,
        opus.cost(
            first_b.usage.__class__(
                first_b.usage.uncached_input,
                first_b.usage.cache_read,
                first_b.usage.cache_write_5m,
                first_b.usage.cache_write_1h,
                0,
            )
        ),
    )
    # The warning and the explained miss come with the first request on the new model.
    assert [w.quote for w in of(events_a, SwitchWarning)] == [quote]
    assert of(events_a, PrefixChanged)[0].model == SONNET
    (brk,) = of(events_a, CacheBreak)
    assert brk.cause == "model" and within(brk.tokens_rebilled, quote.tokens_rebilled)
    # Break-even on the cheaper model and the warm time are stated.
    assert quote.break_even_turns is not None and quote.break_even_turns > 1
    assert 0 < quote.warm_seconds <= 300
    # Both alternatives, cheapest first: a Sonnet subagent for a turn's work beats re-writing
    # the whole context on Sonnet.
    kinds = [alt.kind for alt in quote.alternatives]
    assert kinds == ["subagent", "wait"]
    assert "run the work in a subagent on claude-sonnet-4-6" in quote.summary()


async def test_switch_after_ttl_costs_nothing_and_does_not_warn() -> None:
    with start_emulator() as emu:
        async with agent(emu).session() as s:
            await run_turns(emu, s, 20)
            advance(emu, 3601)  # past the hour the policy holds the history (docs/savings.md)
            quote = s.quote_switch(SONNET)
            assert not quote.warns and quote.tokens_rebilled == 0 and quote.dollars == 0
            assert quote.warm_seconds == 0
            s.switch_model(SONNET)  # cold cache: no quote needed
            events = await turn(s, "Turn 21: look at src/app.py and tell me what f21 does.")
    assert not of(events, SwitchWarning)
    # The miss is the TTL's, not the switch's.
    assert [b.cause for b in of(events, CacheBreak)] == ["ttl"]


async def test_switch_with_allow_policy_and_to_the_same_model() -> None:
    with start_emulator() as emu:
        async with agent(emu).session() as s:
            await run_turns(emu, s, 3)
            q = s.switch_model(OPUS)  # same model: nothing to do
            assert q.tokens_rebilled == 0 and s.model == OPUS
            s.switch_model(SONNET, policy="allow")
            assert s.model == SONNET
            events = await turn(s, "next")
    assert len(of(events, SwitchWarning)) == 1


async def test_subagent_alternative_is_priced_for_the_given_task() -> None:
    from prefixlock.guard.economics import ParentState, SubagentPlan, TaskProfile, advise

    with start_emulator() as emu:
        async with agent(emu).session() as s:
            await run_turns(emu, s, 6)
            task = TaskProfile(context_tokens=500, new_tokens=3000, turns=3, output_tokens=600)
            q = s.quote_switch(SONNET, task=task)
    (alt,) = [a for a in q.alternatives if a.kind == "subagent"]
    expected = advise(
        ParentState(OPUS, PRICES.require(OPUS), q.context_tokens, q.warm_seconds),
        task,
        SubagentPlan(SONNET, PRICES.require(SONNET)),
    )
    assert alt.dollars == expected.subagent_cost
    assert alt.detail["advice"]["subagent_cost"] == str(expected.subagent_cost)
    assert "3-turn task needing 500 context tokens" in alt.text


async def test_default_subagent_alternative_matches_a_hand_computation() -> None:
    """With no task given, the switch is compared with one user turn like the recent ones run
    in a subagent (own 2,000-token prefix, a tenth of the context): figures by hand."""
    reports: list[UsageReport] = []
    with start_emulator() as emu:
        async with agent(emu).session() as s:
            for i in range(1, 7):
                events = await turn(s, f"Turn {i}: look at src/app.py and tell me what f{i} does.")
                assert not of(events, CacheBreak)  # every request read what it could
                reports += of(events, UsageReport)
                advance(emu, 20)
            q = s.quote_switch(SONNET)
    assert len(reports) == 12  # two requests per user turn: the tool call, then the answer
    opus, sonnet = PRICES.require(OPUS), PRICES.require(SONNET)
    m = Decimal(1_000_000)
    # The task: the last 10 requests' averages, 2 requests per turn, a tenth of the context.
    recent = [r.usage for r in reports[-10:]]
    n = sum(u.cache_write_5m + u.cache_write_1h + u.uncached_input for u in recent) // 10
    o = sum(u.output for u in recent) // 10
    t, c = 2, q.context_tokens
    k, new, out = c // 10, n * t, o * t
    # Subagent on Sonnet: its start (2,000-token prefix + k) is written once and read on the
    # second turn; each turn's new tokens are written, the growth read; the parent (warm, stays
    # on Opus) writes the 500-token summary once and re-reads it on 10 later turns.
    s0 = 2000 + k
    sub_reads = Decimal((new + out) * (t - 1)) / 2 + (t - 1) * s0
    sub = (
        sub_reads * sonnet.cache_read
        + (new + s0) * sonnet.write_5m
        + out * sonnet.output
        + 500 * opus.write_5m
        + 10 * 500 * opus.cache_read
    ) / m
    # Switching this session: the first turn writes the whole context on Sonnet, the second
    # reads it; the task's tokens are re-read on 10 later turns.
    switch_reads = Decimal(c * (t - 1)) + Decimal((new + out) * (t - 1)) / 2
    switch = (
        switch_reads * sonnet.cache_read
        + (new + c) * sonnet.write_5m
        + out * sonnet.output
        + 10 * (new + out) * sonnet.cache_read
    ) / m
    (alt,) = [a for a in q.alternatives if a.kind == "subagent"]
    assert alt.detail["task"] == {
        "context_tokens": k,
        "new_tokens": new,
        "turns": t,
        "output_tokens": out,
        "summary_tokens": 500,
    }
    assert alt.dollars == sub and Decimal(alt.detail["switch_cost"]) == switch
    assert sub < switch and alt.detail["cheaper"] == "subagent"
    assert q.alternatives[0] is alt  # the cheaper way comes first
    assert f"${sub:.4f} for a 2-turn task needing {k:,} context tokens" in alt.text
    assert f"vs ${switch:.4f} switching this session" in alt.text
    assert f"the subagent is cheaper by ${switch - sub:.4f}" in alt.text
    assert alt.text in q.summary()


async def test_a_task_needing_the_whole_context_is_cheaper_switched() -> None:
    from prefixlock.guard.economics import TaskProfile

    with start_emulator() as emu:
        async with agent(emu).session() as s:
            await run_turns(emu, s, 4)
            context = s.quote_switch(SONNET).context_tokens
            task = TaskProfile(context_tokens=context, new_tokens=2000, turns=3, output_tokens=300)
            q = s.quote_switch(SONNET, task=task)
    (alt,) = [a for a in q.alternatives if a.kind == "subagent"]
    switch = Decimal(alt.detail["switch_cost"])
    assert alt.dollars is not None and alt.dollars > switch
    assert alt.detail["cheaper"] == "switch"
    assert f"switching is cheaper by ${alt.dollars - switch:.4f}" in alt.text
    # Not the cheaper way: listed after waiting for the cache to expire.
    assert [a.kind for a in q.alternatives] == ["wait", "subagent"]


async def test_a_quote_made_while_warm_and_used_after_expiry_does_not_warn() -> None:
    # The user reads the price, pauses past the TTL, then confirms: the cache is cold by then,
    # so the switch costs nothing extra and must not warn (the miss is the TTL's).
    with start_emulator() as emu:
        async with agent(emu).session() as s:
            await run_turns(emu, s, 3)
            quote = s.quote_switch(SONNET)
            assert quote.warns
            advance(emu, 3601)  # past the hour the policy holds the history
            applied = s.switch_model(SONNET, quote=quote)
            assert not applied.warns and applied.tokens_rebilled == 0
            events = await turn(s, "Turn 4: look at src/app.py and tell me what f4 does.")
    assert not of(events, SwitchWarning)
    assert [b.cause for b in of(events, CacheBreak)] == ["ttl"]


async def test_a_quote_that_loses_nothing_says_whether_the_cache_is_warm_or_cold() -> None:
    # "Switching" to the model in use keeps a warm cache: the quote must not call it cold.
    with start_emulator() as emu:
        async with agent(emu).session() as s:
            await run_turns(emu, s, 2)
            same = s.quote_switch(s.model)
            assert not same.warns and same.warm_seconds > 0
            assert same.summary().startswith(f"switch_model to {s.model}: re-bills nothing")
            assert "cold" not in same.summary()
            advance(emu, 3601)  # past the hour the policy holds the history
            cold = s.quote_switch(SONNET)
            assert not cold.warns
            assert cold.summary() == f"switch_model to {SONNET}: cache is cold, costs nothing extra"
