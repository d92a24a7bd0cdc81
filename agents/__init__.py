"""prefixlock agents: isolated subagents on cheaper models that return summaries, their
definitions (Markdown with YAML front matter, Claude Code's format included), parallel fan-out
with warm-then-fan-out scheduling, and the delegation advisor (its arithmetic lives in
prefixlock.guard.economics)."""

from prefixlock.delegation import DelegationResult, Delegator
from prefixlock.guard.economics import (
    DelegationAdvice,
    ParentState,
    SubagentPlan,
    TaskProfile,
    advise,
)

from .advisor import advise_session, parent_state
from .definitions import AgentDefinition, load_definition, parse_definition
from .registry import AgentRegistry, builtin_definitions
from .runner import DELEGATE_TOOL, SubagentDelegator, cap_summary, default_delegator

__all__ = [
    "DELEGATE_TOOL",
    "AgentDefinition",
    "AgentRegistry",
    "DelegationAdvice",
    "DelegationResult",
    "Delegator",
    "ParentState",
    "SubagentDelegator",
    "SubagentPlan",
    "TaskProfile",
    "advise",
    "advise_session",
    "builtin_definitions",
    "cap_summary",
    "default_delegator",
    "load_definition",
    "parent_state",
    "parse_definition",
]
