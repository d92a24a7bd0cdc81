"""The delegation advisor on a live session: reads the parent's state and the agent definition,
then asks prefixlock.guard.economics (the pure arithmetic) whether the task should run in a
subagent.

    need = TaskProfile(context_tokens=5_000, new_tokens=20_000)
    advice = advise_session(s, need, agent="explorer")
    if advice.recommend:
        result = await s.delegate(task, agent="explorer")  # .ok, .summary, .cost
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from prefixlock.billing.prices import PriceTable
from prefixlock.cache.anthropic import DEFAULT_TTL, ttl_seconds
from prefixlock.guard.economics import (
    DelegationAdvice,
    ParentState,
    SubagentPlan,
    TaskProfile,
    advise,
)

from .runner import SubagentDelegator

if TYPE_CHECKING:
    from prefixlock.session import Session


def parent_state(session: Session, *, later_turns: int = 10) -> ParentState:
    """The parent's state now: model and price, tokens of its context, seconds of TTL left.

    The context is what the last request sent plus the reply it got (both are in the cache or
    about to be); the TTL counts from the last request's start, per the session's TTL setting.
    A session that has sent nothing is cold with an empty context.
    """
    prices = session.agent.prices or PriceTable.default()
    model = session.model
    rows = session.ledger.rows
    if not rows:
        return ParentState(model, prices.require(model), 0, 0.0, later_turns)
    last = rows[-1]
    context = last.usage.input_total + last.usage.output
    ttl = ttl_seconds(session.state.settings.ttl or DEFAULT_TTL)
    left = max(last.time + ttl - session.state.clock.now(), 0.0)
    return ParentState(model, prices.require(model), context, left, later_turns)


def advise_session(
    session: Session,
    task: TaskProfile,
    *,
    agent: str = "explorer",
    model: str | None = None,
    delegator: SubagentDelegator | None = None,
    later_turns: int = 10,
) -> DelegationAdvice:
    """Should `task` run in subagent `agent` (on `model`, default the definition's) rather than
    in `session`? Both costs, the break-even and the reason (see prefixlock.guard.economics)."""
    found = delegator or session.delegator
    d = found if isinstance(found, SubagentDelegator) else SubagentDelegator()
    definition = d.registry.get(agent)
    parent = parent_state(session, later_turns=later_turns)
    prices = session.agent.prices or PriceTable.default()
    chosen = model or definition.model or parent.model
    prefix = d.prefix_for(definition, session.prefix)
    plan = SubagentPlan(prices.resolve(chosen), prices.require(chosen), prefix.tokens)
    return advise(parent, task, plan)
