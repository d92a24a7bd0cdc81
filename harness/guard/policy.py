"""CachePolicy: what a session does at the events that cost cache money, as the user sets it.

Pure decisions from the guard's figures:
- idle gaps: `plan_idle` prices, over the user's idle-gap distribution (their own history, or
  the rates in prefixlock/versus/README.md), three ways to meet a user who comes back after the
  5-minute TTL: do nothing (the next turn re-writes the context), keep-alive pings up to a
  `max_idle` (each ping reads the context once), or a 1-hour TTL on every write (each write
  costs 2x instead of 1.25x, nothing is lost for gaps under an hour). It returns the cheapest.
  On an OpenAI model without a write fee the cache lives `cache_ttl_seconds` (in memory) and
  the long option is OpenAI's extended retention instead (`prompt_cache_retention="24h"`,
  `Settings(retention="24h")`): the price table bills its reads and writes as in-memory ones,
  so it costs nothing over the in-memory cache and loses only what a gap past a day loses.
  `IdlePlan.settings(base)` gives the session's settings for the chosen option.
- model switches: `allow_switch` takes the guard's quote (`Session.quote_switch`) and switches
  only when the new model pays back the re-written context within the requests of the turns the
  user plans on it (`break_even_turns` counts requests); otherwise the turn stays on the warm
  model. A switch to a model no cheaper per request is not made to save money and is followed.
  `switch_action` adds delegation (`switch="auto"`, the default): when the switch does
  not pay back and the quote's subagent alternative (priced by guard.economics) costs less than
  both switching and staying, the work runs in a subagent on the new model
  (`Session.delegate(..., agent=policy.delegate_agent, model=...)`) and only its summary
  reaches the warm conversation.
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

from ..billing.prices import Price
from ..cache import anthropic, openai
from ..cache.defaults import UNPRICED_TTL_SECONDS, model_ttl
from ..settings import Settings
from .quote import Quote

IdleMode = Literal["auto", "pings", "1h", "24h", "off"]
SwitchMode = Literal["auto", "quote", "always"]
SwitchAction = Literal["switch", "stay", "delegate"]
# The built-in agent that inherits the session's tools (agents/builtin/general.md): a turn's
# work delegated instead of a switch needs whatever tools the turn would have used.
DELEGATE_AGENT = "general"
ToolsMode = Literal["quote", "always"]


def extended_retention(price: Price) -> bool:
    """Does `price`'s model keep its cache a day on request (OpenAI's
    `prompt_cache_retention="24h"`)? OpenAI models without a write fee do; those with one
    (gpt-5.6 and later) take `prompt_cache_options.ttl` instead, and other providers have
    neither."""
    return price.provider == "openai" and price.cache_write_5m is None


@dataclass(frozen=True)
class IdlePlan:
    """How a session meets idle gaps, and the expected cost per user turn of each option."""

    mode: Literal["pings", "1h", "24h", "off"]
    max_idle: float | None  # pings: stop pinging after this many idle seconds
    expected: dict[str, Decimal]  # option -> expected extra dollars per user turn
    reason: str

    @property
    def ttl(self) -> anthropic.TTL:
        return "1h" if self.mode == "1h" else "5m"

    @property
    def retention(self) -> str | None:
        """OpenAI's `prompt_cache_retention` for this plan (None: the default, in memory)."""
        return "24h" if self.mode == "24h" else None

    def settings(self, base: Settings) -> Settings:
        """`base` with what this plan changes: the 1-hour TTL or the day-long retention.
        (Pings are not a setting: the session's `enable_keepalive` turns them on.)"""
        if self.mode == "1h":
            return base.with_(ttl="1h")
        if self.mode == "24h":
            return base.with_(retention="24h")
        return base


def pings_in(
    gap: float, max_idle: float | None, margin: float, ttl: float = UNPRICED_TTL_SECONDS
) -> int:
    """Pings a session sends during an idle `gap`: one each time the cache (entries living
    `ttl` seconds) is `margin` seconds from expiring, while the idle time is under `max_idle`
    and the user is still away."""
    period = ttl - margin
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
    adds over a cache that never expires. The cache lives the model's `cache_ttl_seconds`
    (Anthropic: 5 minutes; OpenAI in memory: as the price table says); on a model with
    extended retention (`extended_retention`) the long option is "24h", else "1h"."""
    if turns <= 0:
        raise ValueError("turns must be at least 1")
    if min(context_tokens, written_per_turn, cold_tokens) < 0:
        raise ValueError("token counts cannot be negative")
    ttl = float(model_ttl(price) or UNPRICED_TTL_SECONDS)
    loss = price.input_cost(context_tokens, "write_5m") - price.input_cost(context_tokens, "read")
    ping = price.input_cost(context_tokens, "read")
    off = sum((loss for g in gaps if g > ttl), Decimal(0))
    long_mode: Literal["1h", "24h"]
    if extended_retention(price):
        # A day-long retention bills as in memory: no premium, only gaps past a day lose.
        long_mode = "24h"
        long_cost = sum((loss for g in gaps if g > openai.EXTENDED_RETENTION_SECONDS), Decimal(0))
    else:
        long_mode = "1h"
        loss_1h = price.input_cost(context_tokens, "write_1h") - price.input_cost(
            context_tokens, "read"
        )
        # A 1-hour TTL bills every write at its price: the turns' new messages and the cold
        # writes of each session's prefix (leaving those out made it look cheaper than it is).
        premium = turns * written_per_turn + cold_tokens
        long_cost = sum((loss_1h for g in gaps if g > anthropic.ttl_seconds("1h")), Decimal(0)) + (
            price.input_cost(premium, "write_1h") - price.input_cost(premium, "write_5m")
        )
    # Pings: try stopping at each observed gap (and never stopping); keep the cheapest.
    best_pings: tuple[Decimal, float | None] | None = None
    caps: list[float | None] = [*sorted({*gaps, 0.0}), None]
    for cap in caps:
        total = Decimal(0)
        for g in gaps:
            n = pings_in(g, cap, margin, ttl)
            total += n * ping
            if _rewrite(g, n * (ttl - margin), ttl):
                total += loss
        if best_pings is None or total < best_pings[0]:
            best_pings = (total, cap)
    assert best_pings is not None
    per_turn = {
        "off": off / turns,
        "pings": best_pings[0] / turns,
        long_mode: long_cost / turns,
    }
    chosen: Literal["pings", "1h", "24h", "off"]
    if mode == "auto":
        chosen = min(("off", "pings", long_mode), key=lambda k: per_turn[k])
    elif mode in ("1h", "24h") and mode != long_mode:
        raise ValueError(
            f"idle {mode!r} is not available on {price.model}: its long option is {long_mode!r}"
        )
    else:
        chosen = mode
    cap = best_pings[1] if chosen == "pings" else None
    reason = (
        f"{chosen}: ${per_turn[chosen]:.4f}/turn expected "
        f"(off ${per_turn['off']:.4f}, pings ${per_turn['pings']:.4f}, "
        f"{long_mode} ${per_turn[long_mode]:.4f})"
    )
    return IdlePlan(chosen, cap, per_turn, reason)


@dataclass(frozen=True)
class CachePolicy:
    """The user's policy at cache-costly events (see the module docstring)."""

    idle: IdleMode = "auto"
    switch: SwitchMode = "auto"
    delegate_agent: str = DELEGATE_AGENT  # the agent `switch="auto"` delegates a turn to
    tools: ToolsMode = "quote"

    def allow_tools(self, quote: Quote) -> bool:
        """Move to a server's new tool list now? `always` does; `quote` only when the move
        re-bills nothing (new tools are a capability, not a saving: no break-even to wait
        for, so a warm cache is kept)."""
        return self.tools == "always" or not quote.warns

    def switch_action(self, quote: Quote, turns_on_new_model: int) -> SwitchAction:
        """What to do with the user's move to the quote's model for `turns_on_new_model` turns.

        Under `auto`, a one-turn excursion that re-bills a warm cache is delegated whenever
        the quote's subagent alternative (priced for one turn's work) is cheaper than the
        switch and than doing the work here on the warm model (the advisor's verdict), even
        when the switch would pay back: the cheapest way to do that turn on the new model.
        Otherwise `switch` when `allow_switch` says so (it pays back, re-bills nothing, goes
        to a model no cheaper, or the user set `always`); then `delegate` as above for a
        longer stay that does not pay back; else `stay`."""
        delegate = self.switch == "auto" and quote.warns and delegation_pays(quote)
        cheaper_model = quote.steady_saving is None or quote.steady_saving > 0
        if delegate and cheaper_model and turns_on_new_model <= 1:
            return "delegate"
        if self.allow_switch(quote, turns_on_new_model):
            return "switch"
        return "delegate" if delegate else "stay"

    def allow_switch(self, quote: Quote, turns_on_new_model: int) -> bool:
        """Switch now? `always` does; `quote` and `auto` only when the switch re-bills nothing
        or pays for itself within the user turns planned on the new model.

        The quote's break-even counts requests (each re-reads the context and bills its output
        at the new prices); a user turn is as many requests as the session's recent turns made
        (the quote's subagent alternative carries that figure), so a one-turn switch of a
        three-request turn has three requests to pay the re-write back."""
        if self.switch == "always" or not quote.warns:
            return True
        if quote.steady_saving is not None and quote.steady_saving <= 0:
            # A model no cheaper per request (back to the main model after a cheap excursion,
            # or up to a stronger one) is the user's choice of model, not a saving: it never
            # pays back in dollars, and holding the session on the cheaper model would do
            # other work than the user asked for.
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


def delegation_pays(quote: Quote) -> bool:
    """True when the quote's subagent alternative costs less than switching (the quote's
    comparison) and than staying on the warm model (the delegation advisor's verdict)."""
    for alt in quote.alternatives:
        if alt.kind != "subagent":
            continue
        advice = alt.detail.get("advice")
        recommended = isinstance(advice, dict) and advice.get("recommend") is True
        return alt.detail.get("cheaper") == "subagent" and recommended
    return False
