"""The delegation advisor on a live session: reads the parent's state and the agent definition,
then asks prefixlock.guard.economics (the pure arithmetic) whether the task should run in a
subagent.

    need = TaskProfile(context_tokens=5_000, new_tokens=20_000)
    advice = advise_session(s, need, agent="explorer")
    if advice.recommend:
        summary = await s.delegate(task, agent="explorer")
"""

from __future__ import annotations

from typing import Any

from prefixlock.cache.anthropic import DEFAULT_TTL, ttl_seconds
from prefixlock.guard.economics import (
    DelegationAdvice,
    ParentState,
    SubagentPlan,
    TaskProfile,
    advise,
)
from prefixlock.prices import PriceTable

from .runner import SubagentDelegator


def parent_state(session: Any, *, later_turns: int = 10) -> ParentState:
    """The parent's state now: model and price, tokens of its context, seconds of TTL left.

    The context is what the last request sent plus the reply it got (both are in the cache or
    about to be); the TTL counts from the last request's start, per the session's TTL setting.
    A session that has sent nothing is cold with an empty context.
    """
    prices = getattr(getattr(session, "agent", None), "prices", None) or PriceTable.default()
    model = str(session.model)
    rows = list(getattr(session.ledger, "rows", ()))
    if not rows:
        return ParentState(model, prices.require(model), 0, 0.0, later_turns)
    last = rows[-1]
    context = last.usage.input_total + last.usage.output
    ttl = ttl_seconds(str(getattr(session.settings, "ttl", DEFAULT_TTL)))
    left = max(last.time + ttl - session.clock.now(), 0.0)
    return ParentState(model, prices.require(model), context, left, later_turns)


def advise_session(
    session: Any,
    task: TaskProfile,
    *,
    agent: str = "explorer",
    model: str | None = None,
    delegator: SubagentDelegator | None = None,
    later_turns: int = 10,
) -> DelegationAdvice:
    """Should `task` run in subagent `agent` (on `model`, default the definition's) rather than
    in `session`? Both costs, the break-even and the reason (see prefixlock.guard.economics)."""
    found = delegator or getattr(getattr(session, "agent", None), "delegator", None)
    d = found if isinstance(found, SubagentDelegator) else SubagentDelegator()
    definition = d.registry.get(agent)
    parent = parent_state(session, later_turns=later_turns)
    prices = getattr(getattr(session, "agent", None), "prices", None) or PriceTable.default()
    chosen = model or definition.model or parent.model
    prefix = d.prefix_for(definition, getattr(session, "prefix", None))
    plan = SubagentPlan(prices.resolve(chosen), prices.require(chosen), prefix.tokens)
    return advise(parent, task, plan)
