"""`RunContext`: what a tool that asks for it receives about the run calling it.

A tool whose first parameter is annotated `RunContext[Deps]` gets one on every call: the
caller's dependencies (`deps`, any object: a database handle, an HTTP client, the user's id),
the session id, the turn, the model and the id of the call. The parameter is left out of the
tool's JSON schema, and `deps` is never serialized anywhere (not into the prefix, a request, the
store or a trace): it only travels from `send(..., deps=)` to the Python function. The prefix
bytes, and so the cache, are the same whatever the deps are.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Generic, TypeVar

DepsT = TypeVar("DepsT")


@dataclass(frozen=True)
class RunContext(Generic[DepsT]):
    """The run a tool call belongs to. `deps` is what the caller passed to `send`/`run`."""

    deps: DepsT
    session_id: str
    turn: int
    model: str
    tool_call_id: str = ""

    def __repr__(self) -> str:  # deps may hold secrets: never print them
        return (
            f"RunContext(session={self.session_id}, turn={self.turn}, model={self.model}, "
            f"call={self.tool_call_id}, deps={type(self.deps).__name__})"
        )
