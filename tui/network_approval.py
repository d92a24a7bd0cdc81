"""The chat's question when a sandboxed command failed for want of the network: run it again
with the network? (y: once, a: always for this command's program and first argument in this
chat, n: no).

The sandbox keeps the network off (`prefixlock.coding.sandbox`); a command whose output shows
it could not reach the network (`sandbox_policy.network_failure`) is offered once more with the
host's network, all or nothing for that command (no per-host filter). An "always" covers the
command's program and first argument (`npm install`, `git clone`, `sh fetch.sh`:
`sandbox_policy.network_key`) and lives only in
this chat's memory: no file, so no repository and no command can pre-approve it. Headless
`prefixlock run` has no one to ask, so the network stays off there unless the user's own
settings open it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from prefixlock.coding.sandbox_policy import network_key
from prefixlock.coding.workspace import ApprovalRequest

if TYPE_CHECKING:
    from .backend import ChatBackend


class NetworkApprovals:
    """The user's answers about the network, for one chat (`Sandbox.ask_network`)."""

    def __init__(self, backend: ChatBackend) -> None:
        self.backend = backend
        self.always: set[str] = set()  # `network_key`s the user let use the network

    async def ask(self, command: str) -> bool:
        key = network_key(command)
        if key in self.always:
            if self.backend.notify is not None:
                await self.backend.notify(
                    f"run with the network: {command}: always for `{key}` (this session)"
                )
            return True
        if self.backend.approve is None:
            return False
        decision = await self.backend.approve(
            ApprovalRequest(
                "run",
                "run_command",
                f"run with the network: {command}",
                f"{command}\n\nIt failed without the network (the sandbox keeps it off). Run "
                "it again with the host's network? All or nothing for this command: every "
                f"host it reaches. y: once · a: always for `{key}` commands in this chat · "
                "n: no",
            )
        )
        if decision == "session":
            self.always.add(key)
        return decision in (True, "once", "session")
