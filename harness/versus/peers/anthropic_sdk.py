"""Peer: a bare agent loop on the official `anthropic` SDK, cached as Anthropic documents.

Run by `prefixlock.versus` as a separate process with its own interpreter (its own venv: this
file imports nothing from prefixlock, only `peer_protocol` beside it). Caching is Anthropic's
documented automatic caching: a top-level `cache_control: {"type": "ephemeral"}` on every
request, which places the breakpoint at the last cacheable block and moves it forward as the
conversation grows. The system prompt and tools are sent as the environment gives them.

Subagents: the start message's `delegate_tool` is offered after the server's tools; the
model's `delegate` calls of one reply run at once, each a loop of its own on
`anthropic.AsyncAnthropic` with the start message's `subagent` system prompt and tools and the
same automatic caching, gathered with `asyncio.gather` (Anthropic's docs for concurrent
requests); each subagent's final text is its call's tool_result.

Compaction: none (the SDK has none; the loop ignores `compact_tokens`, and the session never
reaches the model's window).

Protocol: the line protocol of peer_protocol.py.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from . import peer_protocol
else:  # run as a script, in its own venv: this folder is on the path
    import peer_protocol


def _plain(block: Any) -> dict[str, Any]:
    if block.type == "text":
        return {"type": "text", "text": block.text}
    return {"type": "tool_use", "id": block.id, "name": block.name, "input": block.input}


def _remote(use: dict[str, Any]) -> str:
    """A tool call answered by the tool server."""
    return peer_protocol.ask_tool(use["name"], use["input"], use["id"])


def _mark() -> dict[str, str]:
    """The top-level automatic cache_control: 5 minutes, or the documented 1 hour (`--long`)."""
    if peer_protocol.long_ttl():
        return {"type": "ephemeral", "ttl": "1h"}
    return {"type": "ephemeral"}


async def _subagent(client: Any, model: str, sub: dict[str, Any], task: str) -> str:
    """One subagent: its own conversation on the subagent prompt and tools; its final text."""
    messages: list[dict[str, Any]] = [{"role": "user", "content": task}]
    text = ""
    for _ in range(25):
        reply = await client.messages.create(
            model=model,
            max_tokens=4096,
            system=sub["system"],
            tools=sub["tools"],
            messages=messages,
            extra_body={"cache_control": _mark()},
        )
        content = [_plain(b) for b in reply.content]
        messages.append({"role": "assistant", "content": content})
        text = "".join(b["text"] for b in content if b["type"] == "text")
        uses = [b for b in content if b["type"] == "tool_use"]
        if not uses:
            break
        results = []
        for use in uses:
            answer = await peer_protocol.ask_tool_async(use["name"], use["input"], use["id"])
            results.append({"type": "tool_result", "tool_use_id": use["id"], "content": answer})
        messages.append({"role": "user", "content": results})
    return text


async def _delegated(start: dict[str, Any], model: str, tasks: list[str]) -> list[str]:
    """The reply's `delegate` calls, run at once (asyncio.gather of the subagents' loops)."""
    import anthropic

    async with anthropic.AsyncAnthropic(
        api_key=start["api_key"], base_url=start["base_url"]
    ) as client:
        return list(
            await asyncio.gather(
                *(_subagent(client, model, start["subagent"], task) for task in tasks)
            )
        )


def main() -> None:
    import anthropic

    start = peer_protocol.read()
    client = anthropic.Anthropic(api_key=start["api_key"], base_url=start["base_url"])
    system: str = start["system"]
    delegate = start.get("delegate_tool")
    messages: list[dict[str, Any]] = []
    for msg in peer_protocol.turns():
        messages.append({"role": "user", "content": msg["prompt"]})
        tools = [*msg["tools"], delegate] if delegate else msg["tools"]
        for _ in range(25):
            reply = client.messages.create(
                model=msg["model"],
                max_tokens=4096,
                system=system,
                tools=tools,
                messages=messages,  # type: ignore[arg-type]
                # Automatic prompt caching (Anthropic's docs): one top-level cache_control.
                extra_body={"cache_control": _mark()},
            )
            content = [_plain(b) for b in reply.content]
            messages.append({"role": "assistant", "content": content})
            uses = [b for b in content if b["type"] == "tool_use"]
            if not uses:
                break
            answers: dict[str, str] = {}
            subtasks = [u for u in uses if delegate and u["name"] == delegate["name"]]
            if subtasks:
                found = asyncio.run(
                    _delegated(
                        start, msg["model"], [str(u["input"].get("task", "")) for u in subtasks]
                    )
                )
                answers.update(zip((u["id"] for u in subtasks), found, strict=True))
            for use in uses:
                if use["id"] not in answers:
                    answers[use["id"]] = _remote(use)
            results = [
                {"type": "tool_result", "tool_use_id": use["id"], "content": answers[use["id"]]}
                for use in uses
            ]
            messages.append({"role": "user", "content": results})
    client.close()


if __name__ == "__main__":
    peer_protocol.serve(main)
