"""The line protocol every peer speaks with `prefixlock.versus` (one JSON object a line).

The peers are scripts run in their own venvs, which hold their framework and none of
prefixlock: a peer imports this module by its bare name (a script's folder is first on its
path), and this module imports only the standard library.

stdin gives `start` (system, base_url, api_key, compact_tokens: the suite's compaction
threshold, for peers that compact; session: the session's name, the OpenAI peers' cache key;
delegate_tool and subagent: the tool that runs a subagent and what the subagent gets), then
`turn` (prompt, model, tools in the order the tool server listed them) or `end`; for each tool
call the peer writes `tool` (id, name, input) and reads `result` (content); a turn ends with
`done`. After `end` the process writes `closed` and reads the next `start`: one process serves
many sessions (`serve`), so its framework is imported once; it exits when the driver closes the
pipe.
"""

from __future__ import annotations

import asyncio
import json
import sys
import threading
from collections.abc import Callable, Iterator
from typing import Any

# Frameworks run the tool calls of one reply concurrently (threads, or tasks that ask from
# worker threads): one question and its answer on the pipe at a time.
_PIPE = threading.Lock()


def read() -> dict[str, Any]:
    """The next message (the process ends quietly when the driver closes the pipe)."""
    line = sys.stdin.readline()
    if not line:
        raise SystemExit(0)
    data: dict[str, Any] = json.loads(line)
    return data


def write(obj: dict[str, Any]) -> None:
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()


def ask_tool(name: str, arguments: dict[str, Any], call_id: str = "") -> str:
    """A tool call answered by the tool server: its result's content."""
    with _PIPE:
        write({"op": "tool", "id": call_id, "name": name, "input": arguments})
        return str(read()["content"])


def remote_tool(name: str) -> Callable[..., str]:
    """A function for a framework's tool `name`: its keyword arguments asked of the server."""

    def call(**arguments: Any) -> str:
        return ask_tool(name, arguments)

    return call


async def ask_tool_async(name: str, arguments: dict[str, Any], call_id: str = "") -> str:
    """`ask_tool` from a worker thread, so the event loop keeps serving the other calls."""
    return await asyncio.to_thread(ask_tool, name, arguments, call_id)


def turns() -> Iterator[dict[str, Any]]:
    """Each `turn` message until `end`; `done` is written when the caller asks for the next."""
    while True:
        msg = read()
        if msg["op"] == "end":
            return
        yield msg
        write({"op": "done"})


def long_ttl() -> bool:
    """Run with the framework's documented longer TTL (`--long`: Anthropic's 1 hour, OpenAI's
    24-hour retention) instead of its default."""
    return "--long" in sys.argv[1:]


def cache_key(start: dict[str, Any]) -> str:
    """The stable per-session `prompt_cache_key` the OpenAI peers send."""
    return f"session-{start['session']}"


def serve(session: Callable[[], None]) -> None:
    """Run `session` (which reads its own `start`) for each session the driver sends, in this
    one process, until the driver closes the pipe; `closed` is written after each."""
    import gc

    while True:
        session()
        # What the session left in reference cycles (LangGraph's, the frameworks' clients) is
        # collected now, between sessions, not in a pause while the next one sends requests
        # together (a subagents turn's four first requests must leave within moments).
        gc.collect()
        write({"op": "closed"})
