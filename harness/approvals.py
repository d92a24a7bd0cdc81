"""Human approval for any tool: deferred tool calls.

`s.require_approval("write_file", "delegate")` (or `"*"` for every tool) marks tools whose calls
wait for the caller. When the model calls one, the turn stops: the other calls of that reply
run, an `ApprovalRequired` event lists the waiting calls, and the turn completes with
`stop_reason == "approval"`. The caller decides each (`s.approve(id)`, `s.deny(id, reason)`),
then `s.resume()` runs the approved calls, gives the denied ones an error result with the reason,
and continues the turn. Nothing about approval enters the prefix or the tool schemas: approving
or not changes no cached byte (the calls and their results are ordinary conversation).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from .errors import UserError
from .events import ToolCall

EVERY_TOOL = "*"


@dataclass(frozen=True)
class Decision:
    call: ToolCall
    approved: bool
    reason: str = ""


@dataclass
class Approvals:
    """Which tools need approval, the calls waiting for it, and the decisions made."""

    required: set[str] = field(default_factory=set)
    pending: dict[str, ToolCall] = field(default_factory=dict)
    decisions: dict[str, Decision] = field(default_factory=dict)

    def require(self, names: Iterable[str]) -> None:
        self.required.update(names)

    def needs(self, tool_name: str) -> bool:
        return EVERY_TOOL in self.required or tool_name in self.required

    def defer(self, call: ToolCall) -> None:
        self.pending[call.id] = call

    def decide(self, call_id: str, approved: bool, reason: str = "") -> None:
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
        self.pending.clear()
        self.decisions.clear()
