"""prefixlock agents: isolated subagents on cheaper models that return summaries, their
definitions (Markdown with YAML front matter, Claude Code's format included), parallel fan-out
with warm-then-fan-out scheduling, and the delegation advisor (its arithmetic lives in
prefixlock.guard.economics).

Names are imported lazily (PEP 562): `prefixlock agents --help` loads none of the product.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from prefixlock.lazy import lazy_exports

if TYPE_CHECKING:
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

_EXPORTS = {
    "DELEGATE_TOOL": ".runner",
    "AgentDefinition": ".definitions",
    "AgentRegistry": ".registry",
    "DelegationAdvice": "prefixlock.guard.economics",
    "DelegationResult": "prefixlock.delegation",
    "Delegator": "prefixlock.delegation",
    "ParentState": "prefixlock.guard.economics",
    "SubagentDelegator": ".runner",
    "SubagentPlan": "prefixlock.guard.economics",
    "TaskProfile": "prefixlock.guard.economics",
    "advise": "prefixlock.guard.economics",
    "advise_session": ".advisor",
    "builtin_definitions": ".registry",
    "cap_summary": ".runner",
    "default_delegator": ".runner",
    "load_definition": ".definitions",
    "parent_state": ".advisor",
    "parse_definition": ".definitions",
}

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS, globals())

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
