"""What a turn's end writes: the per-write TTL decision for the gap before the user's next turn.

Inside a tool loop the next request follows in seconds, so every request writes its tail at the
model's default TTL (Anthropic: 5 minutes). The end of a turn (the model's final answer) is
where the user may walk away. The request that ended the turn cannot know it did (the reply
decides), so at that point the session may send one more, output-free request: the
conversation including the final answer, written at the 1-hour TTL (`seal`), when the turn's
5-minute entries are about to expire and the user has not come back. It reads
everything the turn wrote (a read, 0.1x) and writes only the answer at 2x; the next turn then
finds that entry for up to an hour. Anthropic accepts the 1h marks here because every mark of
that request is 1h (a 1h mark may not follow a 5m one; docs/providers.md#anthropic-breakpoints).

`plan_turn_end` prices, over the expected gaps, the three ways to meet the next turn: nothing
(a gap past the TTL re-writes the context), the 1h seal (sent when the turn's entries are a
margin from expiring and the user is still away: a gap shorter than that costs nothing), and
keep-alive pings (one each TTL minus the margin while the user is away, up to a cap chosen
here). It picks the cheapest; pings and the seal are never both. On Anthropic a seal costs one
ping and holds an hour, so it wins whenever some gaps run past ten minutes.

The expected gaps are the user's own: the gaps between turns of their recent sessions in the
session store (`turn_gaps`), with `DEFAULT_TURN_GAPS` (measured on a public trace,
docs/turn-gaps.md) beside them as a prior that a long history outweighs.
"""

# pure: imports no I/O (tests/test_layout.py checks it)

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import Literal

from ..billing.prices import Price
from ..cache import anthropic
from ..cache.defaults import model_ttl
from .policy import pings_in

# User-turn gaps (seconds): the 10 decile midpoints (5%, 15%, ... 95%) of the development half
# of Mooncake's public conversation trace (2,051 gaps between one conversation's turns; 22.3%
# past 5 minutes, 4.6% past 10). Ten points: a prior that a user's own history soon outweighs.
# `python -m prefixlock.versus.rates TRACE` measures them; docs/turn-gaps.md has the source,
# the split and what the trace leaves out (it spans 59 minutes: no gap past the hour).
DEFAULT_TURN_GAPS: tuple[float, ...] = (
    27.0,
    51.0,
    66.0,
    84.0,
    108.0,
    138.0,
    192.0,
    276.0,
    387.0,
    594.0,
)
HISTORY_SESSIONS = 20  # the user's most recent sessions read for their gaps

TurnEnd = Literal["seal", "pings", "off"]


@dataclass(frozen=True)
class TurnEndPlan:
    """How the end of a turn meets the next one, and the expected cost per turn of each way."""

    mode: TurnEnd
    max_idle: float | None  # pings: stop pinging after this many idle seconds
    expected: dict[str, Decimal]  # way -> expected dollars per turn over a cache that stays
    reason: str


def turn_gaps(rows: Iterable[tuple[int, str, float]]) -> list[float]:
    """Gaps between user turns, from one session's requests as (turn, kind, time) in order:
    from the last request of a turn to the first of the next. Pings, seals and summaries are
    not turns."""
    gaps: list[float] = []
    last_turn: int | None = None
    last_time = 0.0
    for turn, kind, time in rows:
        if kind != "turn":
            continue
        if last_turn is not None and turn > last_turn:
            gaps.append(max(time - last_time, 0.0))
        last_turn, last_time = turn, time
    return gaps


def expected_gaps(own: Sequence[float]) -> list[float]:
    """The gaps to plan with: the user's own, and the defaults as a prior (ten gaps'
    weight), so that a history without a long gap yet does not rule one out."""
    return [*own, *DEFAULT_TURN_GAPS]


def can_hold(price: Price) -> bool:
    """Does `price`'s model take a 1-hour entry beside its 5-minute ones (Anthropic)?"""
    return price.cache_write_1h is not None and price.provider == "anthropic"


def hold_pays(held_write: int, reply_tokens: int) -> bool:
    """Send a request with its last reply held at 1h (`Settings.history_ttl`)?

    Anthropic bills a request's 1h mark for the tokens between the entry it read and that
    mark only, and the new entry covers the whole prefix before it
    (docs/savings.md#held-history). So when the request read the previous request's entry,
    the 1h write is the model's last reply alone: for that premium (0.75x the input price on
    a reply of a few hundred tokens) everything before it survives a gap of up to an hour,
    and the tool loop's tail stays at 5m. When the read fell short (a cold prefix, a resume, a
    lost cache), the 1h mark would bill the whole re-write at 2x: then the request goes at 5m
    and the next one holds it."""
    return 0 < held_write <= reply_tokens


def plan_turn_end(
    gaps: Sequence[float],
    *,
    context_tokens: int,
    answer_tokens: int,
    price: Price,
    margin: float = 30.0,
    mode: Literal["auto", "seal", "pings", "off"] = "auto",
    held_tokens: int = 0,
    ttl: float | None = None,
) -> TurnEndPlan:
    """The cheapest way from a turn's end to the next turn, over the expected `gaps`.

    `context_tokens`: what the turn left cached (the next turn reads it if it is still there);
    `answer_tokens`: the final answer, which the seal writes at 1h (the next turn would
    otherwise write it at the default TTL); `held_tokens`: the part of the context already in
    a 1-hour entry (`hold_pays`), which a gap under the hour does not lose. Only a model with a
    1-hour write price can seal."""
    if not gaps:
        raise ValueError("plan_turn_end needs at least one expected gap")
    if min(context_tokens, answer_tokens, held_tokens) < 0:
        raise ValueError("token counts cannot be negative")
    ttl = float(model_ttl(price)) if ttl is None else ttl
    n = len(gaps)
    hour = anthropic.ttl_seconds("1h")
    read = price.input_cost(context_tokens, "read")
    loss = price.input_cost(context_tokens, "write_5m") - read
    held = min(held_tokens, context_tokens)
    # A gap past the TTL but within the hour re-writes only what is not held.
    unheld = price.input_cost(context_tokens - held, "write_5m") - price.input_cost(
        context_tokens - held, "read"
    )

    def lost(gap: float) -> Decimal:
        if gap <= ttl:
            return Decimal(0)
        return unheld if held and gap <= hour else loss

    off = sum((lost(g) for g in gaps), Decimal(0)) / n
    costs: dict[str, Decimal] = {"off": off}
    can_seal = can_hold(price)
    if can_seal:
        due = ttl - margin  # the seal goes out only when the user is still away by then
        # The seal reads the context, writes the answer at 1h (instead of the next turn's 5m
        # write of it), and a gap past its hour loses the context anyway.
        seal = (
            read
            + price.input_cost(answer_tokens, "write_1h")
            - price.input_cost(answer_tokens, "write_5m")
        )
        total = sum((seal for g in gaps if g > due), Decimal(0))
        total += sum((loss for g in gaps if g > due + hour), Decimal(0))
        costs["seal"] = total / n
    best: tuple[Decimal, float | None] | None = None
    for cap in [*sorted({*gaps, 0.0}), None]:
        total = Decimal(0)
        for g in gaps:
            k = pings_in(g, cap, margin, ttl)
            total += k * read
            if g > k * (ttl - margin) + ttl:
                total += lost(g - k * (ttl - margin))
        if best is None or total < best[0]:
            best = (total, cap)
    assert best is not None
    costs["pings"] = best[0] / n
    if mode == "auto":
        # Ties go to doing nothing, then to the seal (no background pings to drive).
        order: tuple[TurnEnd, ...] = ("off", "seal", "pings")
        chosen: TurnEnd = min((m for m in order if m in costs), key=costs.__getitem__)
    elif mode == "seal" and not can_seal:
        raise ValueError(f"{price.model} has no 1-hour cache write: it cannot seal a turn")
    else:
        chosen = mode
    parts = ", ".join(f"{m} ${c:.4f}" for m, c in costs.items())
    return TurnEndPlan(
        chosen,
        best[1] if chosen == "pings" else None,
        costs,
        f"{chosen}: ${costs[chosen]:.4f}/turn expected over {n} gaps ({parts})",
    )
