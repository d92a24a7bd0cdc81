"""Human approval for any tool: deferred tool calls.

A tool declared `@tool(requires_approval=True)` always waits for the caller;
`s.require_approval("write_file", "delegate")` (names of the prefix's tools, checked: a typo is
a UserError naming the known tools; or `"*"` for every tool) marks more tools. When the model
calls one, the turn stops: the other calls of that reply run, an `ApprovalRequired` event lists
the waiting calls, and the turn completes with `stop_reason == "approval"`. The caller decides
each (`s.approve(id)`, `s.deny(id, reason)`), then `s.resume()` runs the approved calls, gives
the denied ones an error result with the reason, and continues the turn with the turn's own
`deps` and output type (unless `resume` is given others). Nothing about approval enters the
prefix or the tool schemas: approving or not changes no cached byte (the calls and their
results are ordinary conversation).
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import pydantic

from .errors import UserError
from .events import ToolCall

if TYPE_CHECKING:
    from .prefix import FrozenPrefix

EVERY_TOOL = "*"


@dataclass(frozen=True)
class Decision:
    """The caller's decision on one waiting call: approved, or denied with a reason."""

    call: ToolCall
    approved: bool
    reason: str = ""


@dataclass(frozen=True)
class StoppedTurn:
    """What the turn that stopped for approval was sent with, for `resume()` to go on with:
    the `deps` its tools got and the structured output it asked for (None: plain text)."""

    deps: object = None
    output_type: type[pydantic.BaseModel] | None = None
    output_retries: int = 0


def check_required(names: Iterable[str], prefix: FrozenPrefix) -> list[str]:
    """`names` when each is a tool of `prefix` (or "*"); else a UserError naming the known
    tools: a misspelt name would otherwise let the tool run unasked."""
    known = prefix.tool_names()
    names = list(names)
    for name in names:
        if name != EVERY_TOOL and name not in known:
            close = difflib.get_close_matches(name, known, n=1) or [
                k for k in known if k.lower() == name.lower()
            ]
            hint = f" (did you mean {close[0]!r}?)" if close else ""
            raise UserError(
                f"no tool {name!r} in the prefix{hint}; its tools are: "
                + (", ".join(known) or "none")
                + f" ({EVERY_TOOL!r} for every tool)",
                where="require_approval",
            )
    return names


@dataclass
class Approvals:
    """Which tools need approval, the calls waiting for it, and the decisions made."""

    required: set[str] = field(default_factory=set)
    pending: dict[str, ToolCall] = field(default_factory=dict)
    decisions: dict[str, Decision] = field(default_factory=dict)
    stopped: StoppedTurn | None = None  # the turn the pending calls belong to

    def require(self, names: Iterable[str]) -> None:
        """Mark tools (by name, unchecked; `check_required` checks) as needing approval."""
        self.required.update(names)

    def needs(self, tool_name: str, prefix: FrozenPrefix | None = None) -> bool:
        """Does a call of `tool_name` wait for the caller: required here, or declared
        `@tool(requires_approval=True)` in `prefix`?"""
        if EVERY_TOOL in self.required or tool_name in self.required:
            return True
        runner = prefix.runner(tool_name) if prefix is not None else None
        return runner is not None and runner.requires_approval

    def defer(self, call: ToolCall) -> None:
        """Hold `call` until the caller decides on it."""
        self.pending[call.id] = call

    def decide(self, call_id: str, approved: bool, reason: str = "") -> None:
        """Record the caller's decision on waiting call `call_id`."""
        call = self.pending.get(call_id)
        if call is None:
            waiting = ", ".join(self.pending) or "none"
            raise UserError(
                f"no tool call {call_id!r} is waiting for approval (waiting: {waiting})",
                where="call_id",
            )
        self.decisions[call_id] = Decision(call, approved, reason)

    def take_decided(self) -> list[Decision]:
        """Every waiting call's decision, in call order; all must be decided."""
        if not self.pending:
            raise UserError("no tool calls are waiting for approval: nothing to resume")
        undecided = [c for c in self.pending if c not in self.decisions]
        if undecided:
            raise UserError(
                f"tool calls still waiting for a decision: {', '.join(undecided)} "
                "(s.approve(id) or s.deny(id, reason) each, then s.resume())"
            )
        decided = [self.decisions[c] for c in self.pending]
        self.clear()
        return decided

    def clear(self) -> None:
        """Forget the waiting calls and their decisions (a new turn began)."""
        self.pending.clear()
        self.decisions.clear()
        self.stopped = None
