"""CachePolicy: the idle plan (nothing / pings / 1-hour TTL, or OpenAI's day-long retention)
from the idle-gap distribution and the model's prices, and the switch rule from the guard's
quote."""

from __future__ import annotations

from dataclasses import replace
from decimal import Decimal

import pytest

from prefixlock.billing.prices import PriceTable
from prefixlock.guard.policy import CachePolicy, pings_in, plan_idle, requests_per_turn
from prefixlock.guard.quote import Alternative, Quote
from prefixlock.settings import Settings

SONNET = PriceTable.builtin().require("claude-sonnet-4-6")


def test_pings_in_counts_one_ping_per_period_while_the_user_is_away() -> None:
    assert pings_in(200, None, 30) == 0  # back before the first ping is due (270 s)
    assert pings_in(360, None, 30) == 1
    assert pings_in(2400, None, 30) == 8
    assert pings_in(2400, 600, 30) == 2  # max_idle stops them


def test_no_gaps_past_the_ttl_needs_nothing() -> None:
    plan = plan_idle(
        [45.0] * 30, turns=30, context_tokens=30_000, written_per_turn=2_000, price=SONNET
    )
    assert plan.mode == "off"
    assert plan.expected["off"] == 0


def test_short_gaps_are_bridged_by_pings_and_long_ones_are_not_pinged_through() -> None:
    gaps = [45.0] * 28 + [400.0, 14 * 3600.0]
    plan = plan_idle(gaps, turns=30, context_tokens=30_000, written_per_turn=2_000, price=SONNET)
    assert plan.mode == "pings"
    assert plan.max_idle is not None and plan.max_idle < 14 * 3600  # no pinging all night
    assert plan.expected["pings"] < plan.expected["off"]


def test_many_half_hour_gaps_with_small_turns_choose_the_one_hour_ttl() -> None:
    gaps = [1800.0] * 10
    plan = plan_idle(gaps, turns=10, context_tokens=80_000, written_per_turn=500, price=SONNET)
    assert plan.mode == "1h" and plan.ttl == "1h"
    # A one-hour write costs 2x the input price against 1.25x: the premium is in the figures.
    premium = 10 * SONNET.input_cost(500, "write_1h") - 10 * SONNET.input_cost(500, "write_5m")
    assert plan.expected["1h"] == premium / 10


def test_the_one_hour_ttl_also_pays_its_premium_on_each_sessions_cold_prefix_write() -> None:
    gaps = [45.0] * 85 + [360.0, 540.0, 900.0, 1500.0, 2400.0] * 3 + [5400.0] * 3
    args = dict(turns=100, context_tokens=33_000, written_per_turn=2_000, price=SONNET)
    warm_only = plan_idle(gaps, **args)  # type: ignore[arg-type]
    with_starts = plan_idle(gaps, cold_tokens=3 * 22_000, **args)  # type: ignore[arg-type]
    premium = SONNET.input_cost(66_000, "write_1h") - SONNET.input_cost(66_000, "write_5m")
    assert with_starts.expected["1h"] - warm_only.expected["1h"] == premium / 100
    assert with_starts.expected["pings"] == warm_only.expected["pings"]
    # Priced without the starts, the hour looked cheapest; with them pings are.
    assert warm_only.mode == "1h" and with_starts.mode == "pings"
    with pytest.raises(ValueError):
        plan_idle(gaps, cold_tokens=-1, **args)  # type: ignore[arg-type]


def test_a_forced_mode_is_kept_and_bad_turns_refused() -> None:
    plan = plan_idle(
        [400.0], turns=1, context_tokens=10_000, written_per_turn=100, price=SONNET, mode="off"
    )
    assert plan.mode == "off"
    with pytest.raises(ValueError):
        plan_idle([], turns=0, context_tokens=1, written_per_turn=1, price=SONNET)


def _quote(rebilled: int, break_even: int | None, per_turn: int | None = None) -> Quote:
    alts = (
        ()
        if per_turn is None
        else (Alternative("subagent", "", Decimal("0.01"), {"task": {"turns": per_turn}}),)
    )
    return Quote(
        "switch_model",
        "s",
        "x",
        "a",
        "b",
        rebilled,
        Decimal("0.05"),
        None,
        None,
        break_even,
        100.0,
        30_000,
        0.0,
        alts,
    )


def test_switch_only_when_the_quote_pays_back_within_the_planned_turns() -> None:
    policy = CachePolicy()
    assert policy.allow_switch(_quote(0, None), 1)  # cold cache: nothing lost
    assert not policy.allow_switch(_quote(29_000, 9), 1)
    assert policy.allow_switch(_quote(29_000, 9), 12)
    assert not policy.allow_switch(_quote(29_000, None), 100)
    assert CachePolicy(switch="always").allow_switch(_quote(29_000, None), 1)


def test_the_break_even_counts_requests_so_a_turn_of_three_requests_has_three() -> None:
    policy = CachePolicy()
    assert requests_per_turn(_quote(29_000, 3)) == 1  # no figure in the quote: one request
    assert not policy.allow_switch(_quote(29_000, 3), 1)
    assert requests_per_turn(_quote(29_000, 3, per_turn=3)) == 3
    assert policy.allow_switch(_quote(29_000, 3, per_turn=3), 1)
    assert not policy.allow_switch(_quote(29_000, 4, per_turn=3), 1)


GPT5 = PriceTable.builtin().require("gpt-5")


def test_a_switch_to_a_model_no_cheaper_is_followed_though_it_never_pays_back() -> None:
    # Back from a cheap excursion (or up to a stronger model): the quote's break-even is never,
    # because the new model costs more per request; the user chose the model, not a saving.
    back = replace(_quote(896, None), steady_saving=Decimal("-0.004"))
    assert CachePolicy().allow_switch(back, 1)
    # A switch to a cheaper model that does not pay back within the turn still stays.
    down = replace(_quote(29_000, 9), steady_saving=Decimal("0.002"))
    assert not CachePolicy().allow_switch(down, 1)


def test_on_openai_the_long_option_is_the_day_long_retention_at_no_premium() -> None:
    # gpt-5: in-memory entries live 600 s (the price table); no write fee.
    assert GPT5.cache_ttl_seconds == 600 and GPT5.cache_write_5m is None
    gaps = [45.0] * 90 + [360.0, 540.0, 900.0, 1500.0, 2400.0] * 1 + [5400.0] * 3 + [50_400.0] * 2
    plan = plan_idle(
        gaps,
        turns=100,
        context_tokens=33_000,
        written_per_turn=2_000,
        cold_tokens=66_000,
        price=GPT5,
    )
    assert set(plan.expected) == {"off", "pings", "24h"}
    assert plan.mode == "24h" and plan.retention == "24h" and plan.ttl == "5m"
    assert plan.expected["24h"] == 0  # no gap past a day, and no write premium
    # Gaps under the 600-s TTL cost nothing even with no plan: 360 and 540 s are free here.
    miss = GPT5.input_cost(33_000, "write_5m") - GPT5.input_cost(33_000, "read")
    assert plan.expected["off"] == 8 * miss / 100  # 900, 1500, 2400, 3 x 5400, 2 x 50400
    settings = plan.settings(Settings())
    assert settings.retention == "24h" and settings.ttl == "5m"
    # Past a day, even the long retention loses the cache.
    past = plan_idle(
        [30 * 3600.0], turns=1, context_tokens=33_000, written_per_turn=2_000, price=GPT5
    )
    assert past.expected["24h"] == miss


def test_pings_on_openai_are_spaced_by_its_ttl_and_a_foreign_long_option_is_refused() -> None:
    assert pings_in(900, None, 30, ttl=600) == 1  # one ping at 570 s
    assert pings_in(900, None, 30) == 3  # the 5-minute TTL would need three
    plan = plan_idle(
        [900.0], turns=1, context_tokens=33_000, written_per_turn=2_000, price=GPT5, mode="pings"
    )
    assert plan.expected["pings"] == GPT5.input_cost(33_000, "read")  # one read, no re-write
    with pytest.raises(ValueError, match="24h"):
        plan_idle([900.0], turns=1, context_tokens=1, written_per_turn=1, price=GPT5, mode="1h")
    with pytest.raises(ValueError, match="1h"):
        plan_idle([900.0], turns=1, context_tokens=1, written_per_turn=1, price=SONNET, mode="24h")
    # On Anthropic nothing changed: the long option is the 1-hour TTL.
    assert (
        "1h"
        in plan_idle([900.0], turns=1, context_tokens=1, written_per_turn=1, price=SONNET).expected
    )


def _priced(rebilled: int, break_even: int | None, cheaper: str, recommend: bool) -> Quote:
    alt = Alternative(
        "subagent",
        "",
        Decimal("0.01"),
        {
            "task": {"turns": 3},
            "cheaper": cheaper,
            "advice": {"recommend": recommend},
        },
    )
    return Quote(
        "switch_model",
        "s",
        "x",
        "a",
        "b",
        rebilled,
        Decimal("0.05"),
        None,
        None,
        break_even,
        100.0,
        30_000,
        0.0,
        (alt,),
    )


def test_auto_delegates_only_when_the_subagent_beats_both_switching_and_staying() -> None:
    auto = CachePolicy()
    assert auto.switch == "auto"
    # A one-turn excursion that does not pay back (6 requests > 3): the subagent is cheaper
    # than the switch and than staying, so the turn's work is delegated.
    assert auto.switch_action(_priced(29_000, 6, "subagent", True), 1) == "delegate"
    # Cheaper than the switch but not than staying on the warm model: stay.
    assert auto.switch_action(_priced(29_000, 6, "subagent", False), 1) == "stay"
    # The switch is the cheaper of the two: stay (the switch itself does not pay back).
    assert auto.switch_action(_priced(29_000, 6, "switch", True), 1) == "stay"
    # A switch that pays back within the planned turns is made, whatever the subagent costs.
    assert auto.switch_action(_priced(29_000, 6, "subagent", True), 2) == "switch"
    # A one-turn excursion whose switch pays back within the turn (2 requests <= 3): the
    # subagent is cheaper still, so it does the turn (seen on OpenAI, where no write fee makes
    # every switch pay back fast); when the switch is the cheaper, it switches.
    assert auto.switch_action(_priced(29_000, 2, "subagent", True), 1) == "delegate"
    assert auto.switch_action(_priced(29_000, 2, "switch", True), 1) == "switch"
    # Back to a model no cheaper per request: the user's choice of model, followed.
    back = replace(_priced(29_000, None, "subagent", True), steady_saving=Decimal("-0.004"))
    assert auto.switch_action(back, 1) == "switch"
    # A cold cache loses nothing: switch.
    assert auto.switch_action(_priced(0, None, "subagent", True), 1) == "switch"
    # A quote without a subagent alternative: stay.
    assert auto.switch_action(_quote(29_000, None), 1) == "stay"
    # The user's other settings never delegate.
    assert (
        CachePolicy(switch="quote").switch_action(_priced(29_000, 6, "subagent", True), 1) == "stay"
    )
    assert (
        CachePolicy(switch="always").switch_action(_priced(29_000, 6, "subagent", True), 1)
        == "switch"
    )
