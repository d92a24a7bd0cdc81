"""Quotes: the price of a cache-breaking action, computed before it happens.

A model switch, a tool-set change, an effort/thinking change or a compaction makes the next
request miss what the cache holds. `price_action` takes the next request as it would be built
without the action and with it, asks the guard what each would read, and prices the difference:
tokens re-billed, the next turn's dollars both ways, break-even turns on the new prices, how long
the current cache stays warm, and the cheaper alternatives (wait until the cache has expired
anyway; run the work in a subagent, priced with `prefixlock.guard.economics`). Pure: no I/O.

`Quote.warns` is False when nothing cached would be lost (a cold cache): such an action costs
nothing extra and the session neither asks for confirmation nor emits a SwitchWarning.
"""

# pure: imports no I/O (tests/test_layout.py checks it)

from __future__ import annotations

import math
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from ..billing.prices import MILLION, Price
from ..errors import UserError
from ..wire import WireRequest
from .cacheguard import CacheGuard, Prediction
from .economics import TaskProfile

ACTIONS = ("switch_model", "change_tools", "change_prefix", "change_effort", "compact")


class QuoteRequired(UserError):
    """A cache-breaking action was attempted on a warm cache without its quote or a policy."""


class StaleQuote(UserError):
    """The quote was computed for a different session state (more turns, another action)."""


@dataclass(frozen=True)
class Alternative:
    """A cheaper way to get the same result, with its price.

    `kind` "wait": make the change after the cache expires (`after_seconds`), re-writing the
    same tokens then. `kind` "subagent": run the work in a subagent on the new model instead of
    switching this session; `dollars` is the subagent's cost, `switch_cost` the same work done
    by switching, `beats_switch` and `saving` compare the two, `task` is the work assumed.
    Money is `Decimal` dollars. `detail` holds the same figures as JSON-ready data (money as
    strings) plus the advisor's full breakdown (`detail["advice"]`)."""

    kind: str  # "wait" | "subagent"
    text: str
    dollars: Decimal | None = None  # what the alternative costs (or saves, for "wait")
    detail: dict[str, Any] = field(default_factory=dict)
    switch_cost: Decimal | None = None  # "subagent": the same work switching this session
    task: TaskProfile | None = None  # "subagent": the work the prices assume
    after_seconds: float | None = None  # "wait": when the cache expires

    @property
    def saving(self) -> Decimal | None:
        """ "subagent": what it saves against switching (negative: switching is cheaper)."""
        if self.switch_cost is None or self.dollars is None:
            return None
        return self.switch_cost - self.dollars

    @property
    def beats_switch(self) -> bool | None:
        """ "subagent": is the subagent cheaper than switching this session? (None: no
        comparison, another kind.)"""
        saving = self.saving
        return None if saving is None else saving > 0


@dataclass(frozen=True)
class Quote:
    """The price of one action, for the session state it was computed on."""

    action: str
    session_id: str
    state: str  # the session state this quote is valid for (checked when it is used)
    old_model: str
    new_model: str
    tokens_rebilled: int  # cached tokens the next request pays for again
    dollars: Decimal | None  # what re-billing them costs over reading them (new prices)
    next_turn_with: Decimal | None  # next request's input + expected output $, with the action
    next_turn_without: Decimal | None  # the same without it
    break_even_turns: int | None  # turns until the action has paid for itself (None: never)
    warm_seconds: float  # how long the current cache stays warm with no request
    context_tokens: int  # input tokens of the next request
    created_at: float
    alternatives: tuple[Alternative, ...] = ()
    with_action: Prediction | None = None
    without_action: Prediction | None = None
    target: object = None  # the new model id, tool list or settings the quote is for
    # A switch: what each steady request costs less on the new model (old minus new prices;
    # zero or less: the new model is no cheaper, so the switch is not made to save money and
    # no break-even applies). None: not a switch, or an unpriced model.
    steady_saving: Decimal | None = None

    @property
    def warns(self) -> bool:
        """True when the action loses cached tokens (a warm cache): it needs confirmation."""
        return self.tokens_rebilled > 0

    @property
    def extra_dollars(self) -> Decimal | None:
        """What the next turn costs more with the action than without it (None when unpriced)."""
        if self.next_turn_with is None or self.next_turn_without is None:
            return None
        return self.next_turn_with - self.next_turn_without

    @property
    def alternative(self) -> Alternative | None:
        """The cheapest alternative, if any (a subagent that beats the switch comes first)."""
        return self.alternatives[0] if self.alternatives else None

    def summary(self) -> str:
        """One line for a log or a confirmation prompt."""
        if not self.warns:
            if self.warm_seconds > 0:  # a warm cache the action keeps (the same model, say)
                return (
                    f"{self.action} to {self.new_model}: re-bills nothing, the cache stays "
                    f"warm ({self.warm_seconds:.0f}s left)"
                )
            return f"{self.action} to {self.new_model}: cache is cold, costs nothing extra"
        money = "unpriced" if self.dollars is None else f"${self.dollars:.4f}"
        be = "never" if self.break_even_turns is None else f"{self.break_even_turns} turns"
        line = (
            f"{self.action} {self.old_model} -> {self.new_model}: re-bills "
            f"{self.tokens_rebilled:,} cached tokens ({money}); next turn "
            f"{_fmt(self.next_turn_with)} vs {_fmt(self.next_turn_without)}; break-even {be}; "
            f"cache warm for {self.warm_seconds:.0f}s"
        )
        if len(self.alternatives) == 1:
            line += f"; alternative: {self.alternatives[0].text}"
        elif self.alternatives:
            line += "; alternatives: " + "; ".join(
                f"({i}) {a.text}" for i, a in enumerate(self.alternatives, 1)
            )
        return line

    def to_dict(self) -> dict[str, Any]:
        """Plain data (JSON-ready; money as strings)."""
        return {
            "action": self.action,
            "old_model": self.old_model,
            "new_model": self.new_model,
            "tokens_rebilled": self.tokens_rebilled,
            "dollars": None if self.dollars is None else str(self.dollars),
            "next_turn_with": None if self.next_turn_with is None else str(self.next_turn_with),
            "next_turn_without": (
                None if self.next_turn_without is None else str(self.next_turn_without)
            ),
            "break_even_turns": self.break_even_turns,
            "warm_seconds": self.warm_seconds,
            "context_tokens": self.context_tokens,
            "alternatives": [
                {
                    "kind": a.kind,
                    "text": a.text,
                    "dollars": None if a.dollars is None else str(a.dollars),
                }
                for a in self.alternatives
            ],
        }


def _fmt(d: Decimal | None) -> str:
    return "unpriced" if d is None else f"${d:.4f}"


def _steady(price: Price, context: int, new: int, output: int) -> Decimal:
    """$ of one warm turn: the context read, the new tokens written, the output."""
    return (context * price.cache_read + new * price.write_5m + output * price.output) / MILLION


def price_action(
    guard: CacheGuard,
    action: str,
    without: WireRequest,
    with_: WireRequest,
    now: float,
    *,
    session_id: str,
    state: str,
    output_tokens: int = 0,
    new_tokens: int = 0,
    target: object = None,
    subagent: bool = True,
    extra_dollars: Decimal = Decimal(0),
    task: TaskProfile | None = None,
    task_turns: int = 4,
) -> Quote:
    """Price `action`: `without` / `with_` are the next request built both ways.

    `output_tokens` and `new_tokens` are the expected output and new input per turn (averages of
    the session so far), used for the next turn's dollars and the break-even. `extra_dollars` is
    a one-off cost of the action itself (a compaction's summary request), added to the next turn.
    A model switch on a warm cache is compared with running the work in a subagent on the new
    model: `task` (an economics.TaskProfile) is that work; without one, `default_task` of the
    context, `new_tokens`, `output_tokens` and `task_turns` (requests per user turn).
    """
    if action not in ACTIONS:
        raise ValueError(f"unknown action {action!r}")
    p_without = guard.predict(without, now)
    p_with = guard.predict(with_, now)
    rebilled = max(p_without.read - p_with.read, 0)
    old_price = guard.price(without.model)
    new_price = guard.price(with_.model)
    next_without = None if old_price is None else old_price.cost(p_without.usage(output_tokens))
    next_with = (
        None if new_price is None else new_price.cost(p_with.usage(output_tokens)) + extra_dollars
    )
    dollars = (
        None
        if new_price is None
        else CacheGuard._lost_dollars(new_price, p_with.usage(output_tokens), rebilled)
    )
    warm = 0.0
    if p_without.read > 0 and p_without.expires_at is not None:
        warm = max(p_without.expires_at - now, 0.0)
    context = with_.input_tokens
    break_even: int | None = 0
    saving: Decimal | None = None
    if old_price and new_price:
        saving = _steady(old_price, without.input_tokens, new_tokens, output_tokens) - _steady(
            new_price, context, new_tokens, output_tokens
        )
    if next_with is not None and next_without is not None and saving is not None:
        extra = next_with - next_without
        if extra > 0:
            break_even = None if saving <= 0 else 1 + math.ceil(extra / saving)
    elif rebilled > 0:
        break_even = None
    alts: list[Alternative] = []
    if rebilled > 0 and warm > 0:
        alts.append(
            Alternative(
                "wait",
                f"{action.replace('_', ' ')} after the cache expires (in {warm:.0f}s) if you "
                f"pause anyway: the {rebilled:,} tokens are re-written then either way",
                dollars,
                {"after_seconds": warm},
                after_seconds=warm,
            )
        )
    if subagent and action == "switch_model" and rebilled > 0 and old_price and new_price:
        if task is None:
            task = default_task(context, new_tokens, output_tokens, task_turns)
        alt = _subagent_alternative(old_price, new_price, context, warm, task)
        # Cheapest first: a subagent that beats the switch is *the* alternative.
        if alt.detail["cheaper"] == "subagent":
            alts.insert(0, alt)
        else:
            alts.append(alt)
    return Quote(
        action=action,
        session_id=session_id,
        state=state,
        old_model=without.model,
        new_model=with_.model,
        tokens_rebilled=rebilled,
        dollars=dollars,
        next_turn_with=next_with,
        next_turn_without=next_without,
        break_even_turns=break_even,
        warm_seconds=warm,
        context_tokens=context,
        created_at=now,
        alternatives=tuple(alts),
        with_action=p_with,
        without_action=p_without,
        target=target,
        steady_saving=saving if action == "switch_model" else None,
    )


# The default side task a switch is compared with, when the caller names none: the session's
# recent turns (see `default_task`) run by a subagent with a small prefix of its own.
SUBAGENT_PREFIX_TOKENS = 2000  # the subagent's own system prompt + tools (a lean explorer)
CONTEXT_SHARE = 10  # the task needs a tenth of the parent's context (1 / CONTEXT_SHARE)


def default_task(
    context_tokens: int, new_per_request: int, output_per_request: int, requests_per_turn: int
) -> TaskProfile:
    """The work a switch is usually for, as an economics.TaskProfile: one user turn like the
    session's recent ones (its requests, their new input and output tokens), needing a tenth of
    the session's context."""
    from . import economics

    turns = max(requests_per_turn, 1)
    return economics.TaskProfile(
        context_tokens=max(context_tokens // CONTEXT_SHARE, 1),
        new_tokens=max(new_per_request, 1) * turns,
        turns=turns,
        output_tokens=max(output_per_request, 1) * turns,
    )


def _subagent_alternative(
    old: Price,
    new: Price,
    context: int,
    warm: float,
    task: TaskProfile,
) -> Alternative:
    """Running the work on the new model in a subagent, priced by guard.economics, against
    doing the same work in this session switched to the new model (a cold start there: the
    first turn writes the whole context on the new model, the later ones read it)."""
    from . import economics

    parent = economics.ParentState(
        model=old.model, price=old, context_tokens=context, ttl_left_seconds=warm
    )
    plan = economics.SubagentPlan(model=new.model, price=new, prefix_tokens=SUBAGENT_PREFIX_TOKENS)
    advice = economics.advise(parent, task, plan)
    switched = economics.ParentState(
        model=new.model, price=new, context_tokens=context, ttl_left_seconds=0.0
    )
    switch = sum(economics.parent_cost_items(switched, task).values(), Decimal(0))
    sub = advice.subagent_cost
    if sub < switch:
        verdict = f"the subagent is cheaper by ${switch - sub:.4f}"
    elif sub > switch:
        verdict = f"switching is cheaper by ${sub - switch:.4f}"
    else:
        verdict = "both cost the same"
    text = (
        f"run the work in a subagent on {new.model}: ${sub:.4f} for a {task.turns}-turn task "
        f"needing {task.context_tokens:,} context tokens, vs ${switch:.4f} switching this "
        f"session ({verdict}; the parent's cache stays warm)"
    )
    return Alternative(
        "subagent",
        text,
        sub,
        {
            "switch_cost": str(switch),
            "subagent_cost": str(sub),
            "cheaper": "subagent" if sub < switch else "switch",
            "subagent_prefix_tokens": plan.prefix_tokens,
            "task": {
                "context_tokens": task.context_tokens,
                "new_tokens": task.new_tokens,
                "turns": task.turns,
                "output_tokens": task.output_tokens,
                "summary_tokens": task.summary_tokens,
            },
            "advice": advice.to_dict(),
        },
        switch_cost=switch,
        task=task,
    )


def check_quote(quote: Quote | None, *, action: str, state: str, target: object = None) -> None:
    """Raise StaleQuote unless `quote` was made for this action, state and target."""
    if quote is None:
        return
    if quote.action != action:
        raise StaleQuote(f"this quote is for {quote.action}, not {action}", where="quote")
    if quote.state != state:
        raise StaleQuote(
            "the session changed since this quote was made (a turn was sent or another "
            "action applied); ask for a new quote",
            where="quote",
        )
    if target is not None and quote.target is not None and quote.target != target:
        raise StaleQuote(f"this quote is for {quote.target!r}, not {target!r}", where="quote")
