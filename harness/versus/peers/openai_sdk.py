"""Peer: a bare agent loop on the official `openai` SDK (Chat Completions), cached as OpenAI's
prompt-caching guide documents.

Run by `prefixlock.versus` as a separate process with its own interpreter (its own venv: this
file imports nothing from prefixlock). OpenAI caches every prompt of 1,024+ tokens on its own;
what the guide asks of a client is a stable prefix and a stable `prompt_cache_key` (requests are
routed by the prefix's first tokens combined with the key, so one key per session keeps its
requests on the machine that holds its cache). The loop sends the session's id as
`prompt_cache_key` on every request, and the system prompt and tools as the environment gives
them (tools in the order the tool server listed them). Retention: the default (in memory); the
guide's extended retention (`prompt_cache_retention="24h"`) is an opt-in this loop leaves off,
as the SDK's examples do.

Compaction: none (the SDK has none; the session never reaches the model's window).

Protocol: the same line protocol as anthropic_sdk.py; `start` also carries `session` (the
session's name, used as the cache key).
"""

from __future__ import annotations

import json
import sys
from typing import Any


def _read() -> dict[str, Any]:
    line = sys.stdin.readline()
    if not line:
        raise SystemExit(0)
    data: dict[str, Any] = json.loads(line)
    return data


def _write(obj: dict[str, Any]) -> None:
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()


def _function(tool: dict[str, Any]) -> dict[str, Any]:
    return {
        "type": "function",
        "function": {
            "name": tool["name"],
            "description": tool["description"],
            "parameters": tool["input_schema"],
        },
    }


def main() -> None:
    import openai
    from openai.types.chat import ChatCompletionMessageFunctionToolCall as FunctionCall

    start = _read()
    client = openai.OpenAI(api_key=start["api_key"], base_url=start["base_url"] + "/v1")
    key = f"session-{start['session']}"
    messages: list[dict[str, Any]] = [{"role": "system", "content": start["system"]}]
    while True:
        msg = _read()
        if msg["op"] == "end":
            break
        messages.append({"role": "user", "content": msg["prompt"]})
        tools = [_function(t) for t in msg["tools"]]
        for _ in range(25):
            reply = client.chat.completions.create(
                model=msg["model"],
                messages=messages,  # type: ignore[arg-type]
                tools=tools,  # type: ignore[arg-type]
                max_completion_tokens=4096,
                # The guide's one knob for a multi-turn session: a stable cache key.
                prompt_cache_key=key,
            )
            out = reply.choices[0].message
            calls = [
                c for c in out.tool_calls or [] if isinstance(c, FunctionCall)
            ]
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
            messages.append(turn)
            if not calls:
                break
            for c in calls:
                _write({"op": "tool", "id": c.id, "name": c.function.name,
                        "input": json.loads(c.function.arguments or "{}")})
                answer = _read()
                messages.append(
                    {"role": "tool", "tool_call_id": c.id, "content": answer["content"]}
                )
        _write({"op": "done"})
    client.close()


if __name__ == "__main__":
    main()
