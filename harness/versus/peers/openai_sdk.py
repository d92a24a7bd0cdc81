"""Peer: a bare agent loop on the official `openai` SDK (Chat Completions), cached as OpenAI's
prompt-caching guide documents.

Run by `prefixlock.versus` as a separate process with its own interpreter (its own venv: this
file imports nothing from prefixlock, only `peer_protocol` beside it). OpenAI caches every
prompt of 1,024+ tokens on its own; what the guide asks of a client is a stable prefix and a
stable `prompt_cache_key` (requests are routed by the prefix's first tokens combined with the
key, so one key per session keeps its requests on the machine that holds its cache). The loop
sends the session's id as `prompt_cache_key` on every request, and the system prompt and tools
as the environment gives them (tools in the order the tool server listed them). Retention: the
default (in memory); the guide's extended retention (`prompt_cache_retention="24h"`) is an
opt-in this loop leaves off, as the SDK's examples do.

Subagents: the start message's `delegate_tool` is offered after the server's tools; the
model's `delegate` calls of one reply run at once, each a loop of its own on
`openai.AsyncOpenAI` with the start message's `subagent` system prompt and tools and the same
`prompt_cache_key`, gathered with `asyncio.gather` (the SDK's async client, as its README shows
for concurrent requests); each subagent's final text is its call's tool message.

Compaction: none (the SDK has none; the session never reaches the model's window).

Protocol: the line protocol of peer_protocol.py; the cache key is its `cache_key(start)`.
"""

from __future__ import annotations

import asyncio
import json
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from . import peer_protocol
else:  # run as a script, in its own venv: this folder is on the path
    import peer_protocol


def _function(tool: dict[str, Any]) -> dict[str, Any]:
    return {
        "type": "function",
        "function": {
            "name": tool["name"],
            "description": tool["description"],
            "parameters": tool["input_schema"],
        },
    }


def _assistant(out: Any, calls: list[Any]) -> dict[str, Any]:
    """The reply as the next request's assistant message."""
    turn: dict[str, Any] = {"role": "assistant", "content": out.content}
    if calls:
        turn["tool_calls"] = [
            {
                "id": c.id,
                "type": "function",
                "function": {"name": c.function.name, "arguments": c.function.arguments},
            }
            for c in calls
        ]
    return turn


def _remote(call: Any) -> str:
    """A tool call answered by the tool server."""
    return peer_protocol.ask_tool(call.function.name, _arguments(call), call.id)


def _arguments(call: Any) -> dict[str, Any]:
    arguments: dict[str, Any] = json.loads(call.function.arguments or "{}")
    return arguments


def _retention() -> dict[str, Any]:
    """The guide's extended retention with `--long` (the peer's longer-TTL row), else none."""
    return {"prompt_cache_retention": "24h"} if peer_protocol.long_ttl() else {}


async def _subagent(client: Any, model: str, key: str, sub: dict[str, Any], task: str) -> str:
    """One subagent: its own conversation on the subagent prompt and tools; its final text."""
    from openai.types.chat import ChatCompletionMessageFunctionToolCall as FunctionCall

    messages: list[dict[str, Any]] = [
        {"role": "system", "content": sub["system"]},
        {"role": "user", "content": task},
    ]
    tools = [_function(t) for t in sub["tools"]]
    text = ""
    for _ in range(25):
        reply = await client.chat.completions.create(
            model=model,
            messages=messages,
            tools=tools,
            max_completion_tokens=4096,
            prompt_cache_key=key,
            **_retention(),
        )
        out = reply.choices[0].message
        calls = [c for c in out.tool_calls or [] if isinstance(c, FunctionCall)]
        messages.append(_assistant(out, calls))
        text = out.content or ""
        if not calls:
            break
        for c in calls:
            answer = await peer_protocol.ask_tool_async(c.function.name, _arguments(c), c.id)
            messages.append({"role": "tool", "tool_call_id": c.id, "content": answer})
    return text


async def _delegated(start: dict[str, Any], model: str, key: str, tasks: list[str]) -> list[str]:
    """The reply's `delegate` calls, run at once (asyncio.gather of the subagents' loops)."""
    import openai

    async with openai.AsyncOpenAI(
        api_key=start["api_key"], base_url=start["base_url"] + "/v1"
    ) as client:
        return list(
            await asyncio.gather(
                *(_subagent(client, model, key, start["subagent"], task) for task in tasks)
            )
        )


def main() -> None:
    import openai
    from openai.types.chat import ChatCompletionMessageFunctionToolCall as FunctionCall

    start = peer_protocol.read()
    delegate = start.get("delegate_tool")
    client = openai.OpenAI(api_key=start["api_key"], base_url=start["base_url"] + "/v1")
    key = peer_protocol.cache_key(start)
    messages: list[dict[str, Any]] = [{"role": "system", "content": start["system"]}]
    for msg in peer_protocol.turns():
        messages.append({"role": "user", "content": msg["prompt"]})
        tools = [_function(t) for t in (*msg["tools"], *([delegate] if delegate else []))]
        for _ in range(25):
            reply = client.chat.completions.create(
                model=msg["model"],
                messages=messages,  # type: ignore[arg-type]
                tools=tools,  # type: ignore[arg-type]
                max_completion_tokens=4096,
                # The guide's one knob for a multi-turn session: a stable cache key.
                prompt_cache_key=key,
                **_retention(),
            )
            out = reply.choices[0].message
            calls = [c for c in out.tool_calls or [] if isinstance(c, FunctionCall)]
            messages.append(_assistant(out, calls))
            if not calls:
                break
            answers: dict[str, str] = {}
            subtasks = [c for c in calls if delegate and c.function.name == delegate["name"]]
            if subtasks:
                tasks = [str(_arguments(c).get("task", "")) for c in subtasks]
                found = asyncio.run(_delegated(start, msg["model"], key, tasks))
                answers.update(zip((c.id for c in subtasks), found, strict=True))
            for c in calls:
                if c.id not in answers:
                    answers[c.id] = _remote(c)
                messages.append({"role": "tool", "tool_call_id": c.id, "content": answers[c.id]})
    client.close()


if __name__ == "__main__":
    peer_protocol.serve(main)
