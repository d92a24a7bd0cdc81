"""Tool approval in the chat through the SDK's deferred tool calls (`prefixlock.approvals`).

The chat's session requires approval for the workspace's write and command tools whose action
the user has not allowed for the session (`gated_tools`). When the model calls one the turn
stops with the calls pending; the app shows each call's diff or command (`preview`), records
the user's answer on the session (`Session.approve` / `deny`) and resumes the turn
(`Session.resume`), so the TUI is a user of the SDK mechanism like any other program.

`preview` builds the request the workspace itself would show: it runs the call on a copy of the
workspace whose approval callback records the request and declines, so the diff is computed by
the same code that will write (the workspace asks before it changes anything).
"""

from __future__ import annotations

import copy
import json
from collections.abc import Iterable
from dataclasses import dataclass

from prefixlock.coding.workspace import Action, ApprovalRequest, Decision, Workspace
from prefixlock.events import ToolCall

#: The workspace tools that act, and the action each needs allowed.
TOOL_ACTIONS: dict[str, Action] = {
    "edit_file": "write",
    "write_file": "write",
    "run_command": "run",
}


def gated_tools(allowed: Iterable[str]) -> set[str]:
    """The tools whose calls wait for the user: those whose action is not allowed."""
    ok = set(allowed)
    return {tool for tool, action in TOOL_ACTIONS.items() if action not in ok}


async def preview(workspace: Workspace, call: ToolCall) -> ApprovalRequest | str:
    """What the user is asked about `call`, or, when the call cannot succeed (a path outside
    the workspace, an old_string not found, bad arguments), its error: nothing to approve,
    the model gets that error when the call runs."""
    asked: list[ApprovalRequest] = []

    async def record(request: ApprovalRequest) -> Decision:
        asked.append(request)
        return False  # declined: the probe never writes or runs anything

    probe = copy.copy(workspace)
    probe.approve = record
    probe.allowed = set()  # ask for everything, whatever the session allows
    tool = next((t for t in probe.write_tools() if t.name == call.name), None)
    if tool is None:
        return f"{call.name} is not a workspace tool"
    try:
        await tool.invoke(call.input)
    except Exception as exc:  # the workspace's refusal, or the decline of the probe
        if asked:
            return asked[0]
        return f"{type(exc).__name__}: {exc}"
    return asked[0] if asked else f"{call.name} ran without asking"  # pragma: no cover


@dataclass(frozen=True)
class McpCallRequest:
    """What the user is asked before an MCP tool call: the server, the tool, the arguments."""

    tool: str  # mcp__SERVER__TOOL
    summary: str  # "inv: total (mcp__inv__total)"
    detail: str  # the arguments, as JSON
    action: str = "mcp"


def mcp_request(call: ToolCall) -> McpCallRequest:
    """The dialog's question for an MCP tool call (`mcp__SERVER__TOOL`)."""
    _, server, tool = [*call.name.split("__", 2), "", ""][:3]
    arguments = json.dumps(call.input, indent=2, ensure_ascii=False, sort_keys=True)
    return McpCallRequest(
        call.name, f"MCP server {server}: {tool} ({call.name})", f"arguments:\n{arguments}"
    )


def decision_note(summary: str, decision: Decision) -> str:
    shown = {True: "approved", "once": "approved", "session": "allowed for the session"}
    return f"{summary}: {shown.get(decision, 'declined')}"
