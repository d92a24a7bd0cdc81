"""Keeping the tools-and-system entry alive until a compaction reads it: an expected-value choice.

A compaction's compacted context starts with the tools and the system prompt; it reads them
only if their entry (written at the last cold write of the prefix, at 5 minutes) is still alive
(docs/savings.md#compaction). Held history keeps the conversation through a long gap, and the
requests after it read past the system mark, so nothing refreshes that entry: it dies in the
first gap past 5 minutes, and the compaction writes it again (1.25x the input price) where a
read would do (0.1x). A keep-alive read of that entry alone (tools, system prompt, a one-line
note, no output) refreshes it for another TTL at 0.1x.

`plan_prefix_keep` decides, at the moment the entry is `margin` seconds from expiring while the
user is away, whether that read is worth its expected cost (derivation in docs/savings.md,
"Keeping the prefix for the compaction"):

- the saving, if the compaction reads the entry: the prefix at the 5-minute write price less
  its read price;
- the chance that the compaction comes before the prefix is written again anyway (a process
  restart, a new tool list): `(1 - end_rate) ** turns_left`, times the chance that the user comes
  back within the hour (past it the held history is lost too and the next turn writes the
  prefix anyway), over the gaps in their history longer than the time already away;
- the expected reads until then: the rest of this gap (the gaps in the user's history longer than
  the time already away, one read each TTL minus the margin, none past the longest gap after
  which the user came back within the hour) and every later gap before the compaction
  (`turns_left - 1` of them, each with the reads a gap from the history needs).

It sends when the saving times the chance exceeds the reads' expected cost. `turns_to_compaction`
gives `turns_left` from the context now, the context's growth per turn and the threshold.
"""

# pure: imports no I/O (tests/test_layout.py checks it)

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from decimal import Decimal

from ..billing.prices import Price
from ..cache import anthropic
from ..cache.defaults import model_ttl
from .policy import pings_in

# The chance per user turn that the prefix is written cold again before a compaction: the
# process ends and the session is resumed later (Anthropic keeps nothing overnight), or a tool
# server starts or stops. No public log gives a rate (harness/versus/README.md: the six
# user-turn gaps of the Claude Code sample logs, two next-day restarts); an **assumption** of one
# such event every 20 turns.
DEFAULT_END_RATE = 0.05
# Past the hour the held history is gone as well (the next turn writes from the tools on), so no
# read is sent past it, and a longer gap in the history costs the reads of an hour.
HOUR = anthropic.ttl_seconds("1h")


@dataclass(frozen=True)
class PrefixKeep:
    """Whether to read the prefix entry now, and the expected figures behind it."""

    send: bool
    saves: Decimal  # expected dollars saved at the compaction (saving times the chance)
    costs: Decimal  # expected dollars of keep-alive reads until the compaction
    reason: str


def turns_to_compaction(context: int, limit: float, growth: float) -> float:
    """User-turn gaps until the compaction, this one included: the compaction comes before the
    turn whose requests would reach `limit`, its context (the last request and its reply) and
    what the turn adds (`compaction.compaction_due`); the context grows `growth` tokens a turn.
    Infinite when it does not grow."""
    if context >= limit:
        return 1.0
    if growth <= 0:
        return math.inf
    return max(1.0, math.ceil((limit - context) / growth))


def reads_left(gaps: Sequence[float], away: float, period: float) -> float:
    """Expected reads still to send in a gap the user has been away `away` seconds (the first
    now, one each `period` after while they stay away), over the expected gaps longer than
    `away`; one when none is that long (the history says nothing past it)."""
    longer = [min(g, last_return(gaps)) for g in gaps if g > away]
    if not longer:
        return 1.0
    return sum(max(math.ceil((g - away) / period), 1) for g in longer) / len(longer)


def last_return(gaps: Sequence[float]) -> float:
    """The longest gap in the history after which the user came back within the hour: the
    reads stop there (a user still away is taken to be gone past the hour)."""
    return max((g for g in gaps if g <= HOUR), default=HOUR)


def back_within_hour(gaps: Sequence[float], away: float) -> float:
    """The chance that a user away `away` seconds comes back within the hour: of the expected
    gaps longer than `away`, the share that ended within the hour, by the rule of succession
    (one return and one stay added), so that a history with few gaps that long, or none, says
    neither yes nor no for sure."""
    longer = [g for g in gaps if g > away]
    returns = sum(1 for g in longer if g <= HOUR)
    return (returns + 1) / (len(longer) + 2)


def plan_prefix_keep(
    gaps: Sequence[float],
    *,
    away: float,
    turns_left: float,
    prefix_tokens: int,
    price: Price,
    end_rate: float = DEFAULT_END_RATE,
    margin: float = 30.0,
    anchor: int = 0,
    on_model: float = 1.0,
) -> PrefixKeep:
    """Read the prefix entry now, `away` seconds into the user's gap, to keep it for a
    compaction `turns_left` gaps away (see the module's docstring)?

    `anchor` > 0: the prefix ends with a line of that many tokens that the read writes at 1
    hour (`prefixlock.providers.anthropic.anchored_system`): the read costs the rest of the
    prefix at the read price and the line at the 1-hour write price, once; the entry it writes
    then lives an hour past every later request of the session, so no later gap needs a read
    unless it passes the hour (each later gap ends within the hour with the share of expected
    gaps that did).

    `on_model`: the chance that the compaction is made on the model whose entry this reads (the
    cache is per model), e.g. the share of the session's requests sent on it: a read on a model
    the user moved to for one turn keeps an entry the compaction, back on the first model, never
    reads."""
    if not gaps:
        raise ValueError("plan_prefix_keep needs at least one expected gap")
    if not 0 <= end_rate < 1:
        raise ValueError(f"end_rate must be in [0, 1), got {end_rate}")
    if prefix_tokens <= 0 or price.cache_write_5m is None:
        return PrefixKeep(False, Decimal(0), Decimal(0), "no prefix entry with a write fee")
    if away >= HOUR:
        # Past the hour the held history is gone too: the next turn writes from the tools on.
        return PrefixKeep(False, Decimal(0), Decimal(0), "away past the hour")
    if math.isinf(turns_left):
        return PrefixKeep(False, Decimal(0), Decimal(0), "no compaction ahead")
    ttl = float(model_ttl(price))
    period = ttl - margin
    read = price.input_cost(prefix_tokens, "read")
    saving = price.input_cost(prefix_tokens, "write_5m") - read
    if not 0 <= on_model <= 1:
        raise ValueError(f"on_model must be in [0, 1], got {on_model}")
    chance = (1.0 - end_rate) ** turns_left * back_within_hour(gaps, away) * on_model
    if anchor > 0:
        if price.cache_write_1h is None or anchor >= prefix_tokens:
            return PrefixKeep(False, Decimal(0), Decimal(0), "no 1-hour write for the anchor")
        within = sum(1 for g in gaps if g <= HOUR) / len(gaps)
        chance *= within ** max(turns_left - 1.0, 0.0)
        reads = 1.0
        costs = price.input_cost(prefix_tokens - anchor, "read") + price.input_cost(
            anchor, "write_1h"
        )
    else:
        per_gap = sum(pings_in(g, last_return(gaps), margin, ttl) for g in gaps) / len(gaps)
        reads = reads_left(gaps, away, period) + max(turns_left - 1.0, 0.0) * per_gap
        costs = read * Decimal(str(round(reads, 6)))
    saves = saving * Decimal(str(round(chance, 6)))
    send = saves > costs
    verdict = "read" if send else "let it expire"
    return PrefixKeep(
        send,
        saves,
        costs,
        f"{verdict}: compaction in {turns_left:.0f} turns (before a cold write: {chance:.2f}), "
        f"saves ${saves:.4f} against {reads:.2f} reads ${costs:.4f}",
    )
