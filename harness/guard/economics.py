"""Delegation economics: does a side task cost less in an isolated subagent than in the parent?

Pure arithmetic (no I/O), in `harness` so that the cache guard can quote "run it in a subagent"
as the alternative to a model switch without importing `agents`.

The model, per task of T turns that brings N new tokens (tool results, files read) and O output
tokens, spread evenly over its turns (each turn adds n = N/T new and o = O/T output tokens):

In the parent (its context C is cached):
  turn k (0-based) reads C + k(n+o) and writes n    -> reads T*C + (N+O)(T-1)/2, writes N
  its output O at the parent's output price
  and the task's N+O tokens stay in the parent's context: every later parent turn (L of them)
  reads them again                                   -> L*(N+O) reads
  a cold parent (no TTL left) writes C on its first task turn instead of reading it.

In a subagent (own prefix P, plus K tokens of the parent's context it needs, S0 = P + K):
  turn 0 writes S0 + n, turn k >= 1 reads S0 + k(n+o) and writes n
                                                     -> reads (T-1)*S0 + (N+O)(T-1)/2,
                                                        writes S0 + N
  (a prefix that a sibling already wrote is read, not written: P moves from writes to reads;
  a start S0 below the model's cache minimum is not cached at all: T*S0 at the input price)
  its output O at the subagent's output price
  the parent appends only the call and the summary (S tokens): written once at the parent's
  write price, then read on each of the L later turns
  if the parent's cache expires while the subagent runs (its duration exceeds the TTL left),
  the parent's next turn writes C again instead of reading it.
  A cold parent pays that re-write in both options, so it cancels.

The subagent's cost grows with K (linearly on each side of the cache minimum), the parent's does
not depend on it, so the break-even is the K at which the two are equal: the most parent context
a task may need for delegating to pay.
"""

# pure: imports no I/O (tests/test_layout.py checks it)

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import ROUND_FLOOR, Decimal

from ..billing.prices import MILLION, Price


@dataclass(frozen=True)
class ParentState:
    """The parent session as it stands: its model, how much context is cached, TTL left."""

    model: str
    price: Price
    context_tokens: int  # the parent's whole context (prefix + transcript), cached when warm
    ttl_left_seconds: float  # how long the cache stays warm with no request; <= 0 means cold
    later_turns: int = 10  # parent turns after the task: they re-read whatever the task appended


@dataclass(frozen=True)
class TaskProfile:
    """What a side task is expected to need, wherever it runs."""

    context_tokens: int  # tokens of the parent's context the task needs (K)
    new_tokens: int  # tokens the task brings in: tool results, files read (N)
    turns: int = 4  # model requests the task takes (T)
    output_tokens: int = 1000  # tokens the model writes over the whole task (O)
    summary_tokens: int = 500  # the call plus the summary a subagent returns to the parent (S)
    duration_seconds: float = 0.0  # wall time of the task in a subagent


@dataclass(frozen=True)
class SubagentPlan:
    """The candidate subagent: its model and its own frozen prefix."""

    model: str
    price: Price
    prefix_tokens: int = 2000  # its own system prompt + tool definitions (P)
    prefix_warm: bool = False  # a sibling already wrote this prefix (fan-out after warm-up)


@dataclass(frozen=True)
class DelegationAdvice:
    """Both costs with their line items, the difference, the break-even and the verdict."""

    parent_cost: Decimal  # doing the task in the parent, $
    subagent_cost: Decimal  # doing it in a subagent, summary and parent effects included, $
    difference: Decimal  # parent_cost - subagent_cost: what delegating saves (negative: loses)
    break_even_context_tokens: int | None  # most parent context the task may need to still pay
    break_even_fraction: float | None  # the same as a share of the parent's context
    recommend: bool  # True: delegate
    reason: str
    parent_items: dict[str, Decimal] = field(default_factory=dict)
    subagent_items: dict[str, Decimal] = field(default_factory=dict)
    parent_model: str = ""
    subagent_model: str = ""

    @property
    def saving_fraction(self) -> float:
        """What delegating saves as a share of the parent's cost (negative: it costs more)."""
        return float(self.difference / self.parent_cost) if self.parent_cost else 0.0

    def to_dict(self) -> dict[str, object]:
        return {
            "parent_model": self.parent_model,
            "subagent_model": self.subagent_model,
            "parent_cost": str(self.parent_cost),
            "subagent_cost": str(self.subagent_cost),
            "difference": str(self.difference),
            "break_even_context_tokens": self.break_even_context_tokens,
            "break_even_fraction": self.break_even_fraction,
            "recommend": self.recommend,
            "reason": self.reason,
            "parent_items": {k: str(v) for k, v in self.parent_items.items()},
            "subagent_items": {k: str(v) for k, v in self.subagent_items.items()},
        }


def _d(x: int | float) -> Decimal:
    return Decimal(str(x))


def _money(x: Decimal) -> str:
    return f"${x.quantize(Decimal('0.0001'))}"


def parent_cost_items(parent: ParentState, task: TaskProfile) -> dict[str, Decimal]:
    """Line items ($) of doing `task` inside the parent."""
    p = parent.price
    t = max(task.turns, 1)
    c = _d(parent.context_tokens)
    appended = _d(task.new_tokens + task.output_tokens)
    reads = t * c + appended * (t - 1) / 2
    writes = _d(task.new_tokens)
    if parent.ttl_left_seconds <= 0:
        # Cold: the first task turn writes the context instead of reading it.
        reads -= c
        writes += c
    return {
        "context reads": reads * p.cache_read / MILLION,
        "new-token writes": writes * p.write_5m / MILLION,
        "output": _d(task.output_tokens) * p.output / MILLION,
        "later turns re-read the task": parent.later_turns * appended * p.cache_read / MILLION,
    }


def _subagent_items(
    parent: ParentState, task: TaskProfile, sub: SubagentPlan, context_tokens: Decimal
) -> dict[str, Decimal]:
    p, s = parent.price, sub.price
    t = max(task.turns, 1)
    prefix = _d(sub.prefix_tokens)
    s0 = prefix + context_tokens
    appended = _d(task.new_tokens + task.output_tokens)
    reads = appended * (t - 1) / 2
    writes = _d(task.new_tokens)
    uncached = Decimal(0)
    if s0 < s.min_cacheable_tokens:
        # Below the model's minimum nothing of the start is cached: it is re-sent at the plain
        # input price on every turn (growth past the minimum later is not counted).
        uncached = t * s0
    else:
        reads += (t - 1) * s0
        writes += s0
        if sub.prefix_warm:
            reads += prefix
            writes -= prefix
    summary = _d(task.summary_tokens)
    items = {
        "cold start and turn reads": reads * s.cache_read / MILLION,
        "cold start and new-token writes": writes * s.write_5m / MILLION,
        "uncached start (below the cache minimum)": uncached * s.input / MILLION,
        "output": _d(task.output_tokens) * s.output / MILLION,
        "summary written to parent": summary * p.write_5m / MILLION,
        "later turns re-read the summary": parent.later_turns * summary * p.cache_read / MILLION,
    }
    # A cold parent pays this re-write in both options (the parent side counts it in its
    # reads and writes); a warm one only when the subagent outlives the TTL left.
    rewarm = parent.ttl_left_seconds <= 0 or task.duration_seconds > parent.ttl_left_seconds
    items["parent cache re-write"] = (
        _d(parent.context_tokens) * (p.write_5m - p.cache_read) / MILLION if rewarm else Decimal(0)
    )
    return items


def subagent_cost_items(
    parent: ParentState, task: TaskProfile, sub: SubagentPlan
) -> dict[str, Decimal]:
    """Line items ($) of doing `task` in a subagent, its effect on the parent included."""
    return _subagent_items(parent, task, sub, _d(task.context_tokens))


def _break_even(
    parent: ParentState, task: TaskProfile, sub: SubagentPlan, parent_cost: Decimal
) -> int | None:
    """The most parent context (K) the task may need for the subagent to cost no more.

    The subagent's cost is linear in K on each side of the model's cache minimum: above it each
    context token is written once and read on every later turn; below it, sent uncached on
    every turn. The parent's cost does not depend on K.
    """
    t = max(task.turns, 1)

    def cost(k: Decimal) -> Decimal:
        return sum(_subagent_items(parent, task, sub, k).values(), Decimal(0))

    def floor(k: Decimal) -> int:
        return max(int(k.to_integral_value(rounding=ROUND_FLOOR)), 0)

    edge = max(_d(sub.price.min_cacheable_tokens - sub.prefix_tokens), Decimal(0))
    cached_slope = (sub.price.write_5m + (t - 1) * sub.price.cache_read) / MILLION
    if cached_slope > 0:
        k = edge + (parent_cost - cost(edge)) / cached_slope
        if k >= edge:
            return floor(k)
    elif cost(edge) <= parent_cost:
        return None  # the context the task needs does not change the subagent's cost
    # Above the minimum the subagent never pays: look below it.
    uncached_slope = t * sub.price.input / MILLION
    base = cost(Decimal(0))
    if edge == 0 or base > parent_cost:
        return 0
    if uncached_slope <= 0:
        return floor(edge)
    return floor(min(edge, (parent_cost - base) / uncached_slope))


def advise(parent: ParentState, task: TaskProfile, sub: SubagentPlan) -> DelegationAdvice:
    """Compare the task in the parent with the task in a subagent and recommend, with figures."""
    p_items = parent_cost_items(parent, task)
    s_items = subagent_cost_items(parent, task, sub)
    parent_cost = sum(p_items.values(), Decimal(0))
    sub_cost = sum(s_items.values(), Decimal(0))
    diff = parent_cost - sub_cost
    be_tokens = _break_even(parent, task, sub, parent_cost)
    be_frac: float | None = None
    if be_tokens is not None and parent.context_tokens > 0:
        be_frac = be_tokens / parent.context_tokens
    recommend = diff > 0
    share = (
        f"{task.context_tokens / parent.context_tokens:.0%} of the parent's context"
        if parent.context_tokens
        else f"{task.context_tokens} context tokens"
    )
    if be_tokens is not None and be_frac is not None and be_frac >= 1:
        # A share over 100% reads as nonsense: say what it means.
        pays = (
            f"delegating pays even if the task needs all of the parent's context "
            f"(break-even {be_tokens:,} tokens)"
        )
    elif be_tokens is not None and be_frac is not None:
        pays = f"delegating pays while the task needs under {be_tokens:,} tokens ({be_frac:.0%})"
    elif be_tokens is not None:
        pays = f"delegating pays while the task needs under {be_tokens:,} context tokens"
    else:
        pays = "the subagent's cost does not depend on the context it needs"
    if recommend:
        reason = (
            f"delegate to {sub.model}: {_money(sub_cost)} in a subagent vs {_money(parent_cost)} "
            f"in the parent on {parent.model} (saves {_money(diff)}); the task needs {share}; "
            f"{pays}"
        )
    else:
        reason = (
            f"keep it in the parent: a subagent on {sub.model} costs {_money(sub_cost)} vs "
            f"{_money(parent_cost)} in the parent on {parent.model} ({_money(-diff)} more); "
            f"the task needs {share}, and the subagent's cold start re-bills it; {pays}"
        )
    if s_items["parent cache re-write"] > 0 and parent.ttl_left_seconds > 0:
        reason += (
            f"; the subagent runs {task.duration_seconds:.0f}s, past the parent's "
            f"{parent.ttl_left_seconds:.0f}s of TTL, so the parent re-writes its cache"
        )
    return DelegationAdvice(
        parent_cost=parent_cost,
        subagent_cost=sub_cost,
        difference=diff,
        break_even_context_tokens=be_tokens,
        break_even_fraction=be_frac,
        recommend=recommend,
        reason=reason,
        parent_items=p_items,
        subagent_items=s_items,
        parent_model=parent.model,
        subagent_model=sub.model,
    )
