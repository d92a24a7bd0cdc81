"""prefixlock agents: isolated subagents on cheaper models that return summaries, their
definitions (Markdown with YAML front matter, Claude Code's format included), parallel fan-out
with warm-then-fan-out scheduling, and the delegation advisor (its arithmetic lives in
prefixlock.guard.economics).

Names are imported lazily (PEP 562): `prefixlock agents --help` loads none of the product.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from prefixlock.lazy import lazy_exports

if TYPE_CHECKING:  # what this package exports (prefixlock.lazy reads it)
    from prefixlock.delegation import DelegationResult as DelegationResult
    from prefixlock.delegation import Delegator as Delegator
    from prefixlock.guard.economics import DelegationAdvice as DelegationAdvice
    from prefixlock.guard.economics import ParentState as ParentState
    from prefixlock.guard.economics import SubagentPlan as SubagentPlan
    from prefixlock.guard.economics import TaskProfile as TaskProfile
    from prefixlock.guard.economics import advise as advise

    from .advisor import advise_session as advise_session
    from .advisor import parent_state as parent_state
    from .definitions import AgentDefinition as AgentDefinition
    from .definitions import load_definition as load_definition
    from .definitions import parse_definition as parse_definition
    from .registry import AgentRegistry as AgentRegistry
    from .registry import builtin_definitions as builtin_definitions
    from .runner import DELEGATE_TOOL as DELEGATE_TOOL
    from .runner import SubagentDelegator as SubagentDelegator
    from .runner import cap_summary as cap_summary
    from .runner import default_delegator as default_delegator


# Annotated so type checkers read the lazy names as the package's own attributes.
__getattr__: Callable[[str], Any]
__dir__: Callable[[], list[str]]
__getattr__, __dir__ = lazy_exports(__name__)
