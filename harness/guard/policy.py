"""CachePolicy: what a session does at the events that cost cache money, as the user sets it.

Pure decisions from the guard's figures:
- idle gaps: `plan_idle` prices, over the user's idle-gap distribution (their own history, or
  the rates in prefixlock/versus/README.md), three ways to meet a user who comes back after the
  5-minute TTL: do nothing (the next turn re-writes the context), keep-alive pings up to a
  `max_idle` (each ping reads the context once), or a 1-hour TTL on every write (each write
  costs 2x instead of 1.25x, nothing is lost for gaps under an hour). It returns the cheapest.
- model switches: `allow_switch` takes the guard's quote (`Session.quote_switch`) and switches
  only when the new model pays back the re-written context within the requests of the turns the
  user plans on it (`break_even_turns` counts requests); otherwise the turn stays on the warm
  model.
- tool lists: an MCP server whose tool list changes mid-session (`McpServer.refresh`) is a
  priced prefix change. `allow_tools` applies it under `tools="always"`; under "quote" (the
  default) only when it re-bills nothing (a cold cache), so a warm session keeps its pinned
  tools. A prefix keeps its tools sorted by name, so a server that lists the same tools in
  another order changes no byte at all.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import Literal

from ..prices import Price
from .quote import Quote

IdleMode = Literal["auto", "pings", "1h", "off"]
SwitchMode = Literal["quote", "always"]
ToolsMode = Literal["quote", "always"]
TTL_5M = 300.0
TTL_1H = 3600.0


@dataclass(frozen=True)
class IdlePlan:
    """How a session meets idle gaps, and the expected cost per user turn of each option."""

    mode: Literal["pings", "1h", "off"]
    max_idle: float | None  # pings: stop pinging after this many idle seconds
    expected: dict[str, Decimal]  # option -> expected extra dollars per user turn
    reason: str

    @property
    def ttl(self) -> Literal["5m", "1h"]:
        return "1h" if self.mode == "1h" else "5m"


def pings_in(gap: float, max_idle: float | None, margin: float) -> int:
    """Pings a session sends during an idle `gap`: one each time the cache is `margin` seconds
    from expiring, while the idle time is under `max_idle` and the user is still away."""
    period = TTL_5M - margin
    limit = gap if max_idle is None else min(gap, max_idle)
    count = 0
    while (count + 1) * period < limit:
        count += 1
    return count


def _rewrite(gap: float, last_ping: float, ttl: float) -> bool:
    return gap > last_ping + ttl


def plan_idle(
    gaps: Sequence[float],
    *,
    turns: int,
    context_tokens: int,
    written_per_turn: int,
    price: Price,
    cold_tokens: int = 0,
    margin: float = 30.0,
    mode: IdleMode = "auto",
) -> IdlePlan:
    """The cheapest way through the idle `gaps` (seconds; those of `turns` user turns).

    `context_tokens`: a typical cached context when the user comes back; `written_per_turn`:
    tokens a turn writes to the cache (its new messages); `cold_tokens`: tokens written from
    nothing in those turns whatever the option (each session's first request writes its
    prefix), which a 1-hour TTL also bills at 2x instead of 1.25x. Costs are what each option
    adds over a 5-minute cache that never expires."""
    if turns <= 0:
        raise ValueError("turns must be at least 1")
    if min(context_tokens, written_per_turn, cold_tokens) < 0:
        raise ValueError("token counts cannot be negative")
    loss = price.input_cost(context_tokens, "write_5m") - price.input_cost(context_tokens, "read")
    loss_1h = price.input_cost(context_tokens, "write_1h") - price.input_cost(
        context_tokens, "read"
    )
    ping = price.input_cost(context_tokens, "read")
    off = sum((loss for g in gaps if g > TTL_5M), Decimal(0))
    # A 1-hour TTL bills every write at its price: the turns' new messages and the cold
    # writes of each session's prefix (leaving those out made it look cheaper than it is).
    premium = turns * written_per_turn + cold_tokens
    hour = sum((loss_1h for g in gaps if g > TTL_1H), Decimal(0)) + (
        price.input_cost(premium, "write_1h") - price.input_cost(premium, "write_5m")
    )
    # Pings: try stopping at each observed gap (and never stopping); keep the cheapest.
    best_pings: tuple[Decimal, float | None] | None = None
    caps: list[float | None] = [*sorted({*gaps, 0.0}), None]
    for cap in caps:
        total = Decimal(0)
        for g in gaps:
            n = pings_in(g, cap, margin)
            total += n * ping
            if _rewrite(g, n * (TTL_5M - margin), TTL_5M):
                total += loss
        if best_pings is None or total < best_pings[0]:
            best_pings = (total, cap)
    assert best_pings is not None
    per_turn = {
        "off": off / turns,
        "pings": best_pings[0] / turns,
        "1h": hour / turns,
    }
    if mode == "auto":
        chosen: Literal["pings", "1h", "off"] = min(
            ("off", "pings", "1h"), key=lambda k: per_turn[k]
        )
    else:
        chosen = mode
    cap = best_pings[1] if chosen == "pings" else None
    reason = (
        f"{chosen}: ${per_turn[chosen]:.4f}/turn expected "
        f"(off ${per_turn['off']:.4f}, pings ${per_turn['pings']:.4f}, 1h ${per_turn['1h']:.4f})"
    )
    return IdlePlan(chosen, cap, per_turn, reason)


@dataclass(frozen=True)
class CachePolicy:
    """The user's policy at cache-costly events (see the module docstring)."""

    idle: IdleMode = "auto"
    switch: SwitchMode = "quote"
    tools: ToolsMode = "quote"

    def allow_tools(self, quote: Quote) -> bool:
        """Move to a server's new tool list now? `always` does; `quote` only when the move
        re-bills nothing (new tools are a capability, not a saving: no break-even to wait
        for, so a warm cache is kept)."""
        return self.tools == "always" or not quote.warns

    def allow_switch(self, quote: Quote, turns_on_new_model: int) -> bool:
        """Switch now? `always` does; `quote` only when the switch re-bills nothing or pays
        for itself within the user turns planned on the new model.

        The quote's break-even counts requests (each re-reads the context and bills its output
        at the new prices); a user turn is as many requests as the session's recent turns made
        (the quote's subagent alternative carries that figure), so a one-turn switch of a
        three-request turn has three requests to pay the re-write back."""
        if self.switch == "always" or not quote.warns:
            return True
        be = quote.break_even_turns
        return be is not None and be <= turns_on_new_model * requests_per_turn(quote)


def requests_per_turn(quote: Quote) -> int:
    """Requests per user turn the quote priced its work with (1 when it names none)."""
    for alt in quote.alternatives:
        task = alt.detail.get("task") if alt.kind == "subagent" else None
        if isinstance(task, dict) and isinstance(task.get("turns"), int):
            return max(int(task["turns"]), 1)
    return 1
