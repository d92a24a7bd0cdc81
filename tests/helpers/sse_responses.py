"""Streaming responses in each provider's wire format, for respx routes."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

import httpx

SSE = {"content-type": "text/event-stream"}


def _frames(events: Sequence[Mapping[str, Any]], named: bool) -> bytes:
    out = []
    for e in events:
        head = f"event: {e['type']}\n" if named else ""
        out.append(f"{head}data: {json.dumps(e)}\n\n")
    return "".join(out).encode()


def anthropic_events(
    text: str = "",
    tools: Sequence[tuple[str, str, Mapping[str, Any]]] = (),
    usage: Mapping[str, Any] | None = None,
    output: int = 7,
    stop: bool = True,
) -> list[dict[str, Any]]:
    u = dict(usage or {"input_tokens": 10})
    events: list[dict[str, Any]] = [
        {"type": "message_start", "message": {"id": "msg_1", "role": "assistant", "usage": u}}
    ]
    i = 0
    if text:
        events += [
            {
                "type": "content_block_start",
                "index": 0,
                "content_block": {"type": "text", "text": ""},
            },
            {
                "type": "content_block_delta",
                "index": 0,
                "delta": {"type": "text_delta", "text": text[:3]},
            },
            {
                "type": "content_block_delta",
                "index": 0,
                "delta": {"type": "text_delta", "text": text[3:]},
            },
            {"type": "content_block_stop", "index": 0},
        ]
        i = 1
    for call_id, name, args in tools:
        raw = json.dumps(args)
        events += [
            {
                "type": "content_block_start",
                "index": i,
                "content_block": {"type": "tool_use", "id": call_id, "name": name, "input": {}},
            },
            {
                "type": "content_block_delta",
                "index": i,
                "delta": {"type": "input_json_delta", "partial_json": raw[:4]},
            },
            {
                "type": "content_block_delta",
                "index": i,
                "delta": {"type": "input_json_delta", "partial_json": raw[4:]},
            },
            {"type": "content_block_stop", "index": i},
        ]
        i += 1
    if stop:
        events += [
            {
                "type": "message_delta",
                "delta": {"stop_reason": "tool_use" if tools else "end_turn"},
                "usage": {"output_tokens": output},
            },
            {"type": "message_stop"},
        ]
    return events


def anthropic(
    text: str = "",
    tools: Sequence[tuple[str, str, Mapping[str, Any]]] = (),
    usage: Mapping[str, Any] | None = None,
    output: int = 7,
) -> httpx.Response:
    return httpx.Response(
        200, headers=SSE, content=_frames(anthropic_events(text, tools, usage, output), True)
    )


def chat_chunks(
    text: str = "",
    tools: Sequence[tuple[str, str, Mapping[str, Any]]] = (),
    usage: Mapping[str, Any] | None = None,
) -> list[dict[str, Any]]:
    chunks: list[dict[str, Any]] = []
    if text:
        chunks.append(
            {
                "id": "c1",
                "choices": [{"index": 0, "delta": {"role": "assistant", "content": text[:3]}}],
            }
        )
        chunks.append({"id": "c1", "choices": [{"index": 0, "delta": {"content": text[3:]}}]})
    for i, (call_id, name, args) in enumerate(tools):
        raw = json.dumps(args)
        chunks.append(
            {
                "id": "c1",
                "choices": [
                    {
                        "index": 0,
                        "delta": {
                            "tool_calls": [
                                {
                                    "index": i,
                                    "id": call_id,
                                    "type": "function",
                                    "function": {"name": name, "arguments": raw[:3]},
                                }
                            ]
                        },
                    }
                ],
            }
        )
        chunks.append(
            {
                "id": "c1",
                "choices": [
                    {
                        "index": 0,
                        "delta": {"tool_calls": [{"index": i, "function": {"arguments": raw[3:]}}]},
                    }
                ],
            }
        )
    chunks.append(
        {
            "id": "c1",
            "choices": [
                {"index": 0, "delta": {}, "finish_reason": "tool_calls" if tools else "stop"}
            ],
        }
    )
    chunks.append(
        {
            "id": "c1",
            "choices": [],
            "usage": dict(usage or {"prompt_tokens": 10, "completion_tokens": 7}),
        }
    )
    return chunks


def chat(
    text: str = "",
    tools: Sequence[tuple[str, str, Mapping[str, Any]]] = (),
    usage: Mapping[str, Any] | None = None,
) -> httpx.Response:
    body = b"".join(f"data: {json.dumps(c)}\n\n".encode() for c in chat_chunks(text, tools, usage))
    return httpx.Response(200, headers=SSE, content=body + b"data: [DONE]\n\n")


def responses(
    text: str = "",
    tools: Sequence[tuple[str, str, Mapping[str, Any]]] = (),
    usage: Mapping[str, Any] | None = None,
) -> httpx.Response:
    output: list[dict[str, Any]] = []
    events: list[dict[str, Any]] = [{"type": "response.created", "response": {"id": "r1"}}]
    if text:
        events.append({"type": "response.output_text.delta", "delta": text})
        output.append(
            {
                "type": "message",
                "role": "assistant",
                "content": [{"type": "output_text", "text": text}],
            }
        )
    for call_id, name, args in tools:
        output.append(
            {
                "type": "function_call",
                "call_id": call_id,
                "name": name,
                "arguments": json.dumps(args),
            }
        )
    for item in output:
        events.append({"type": "response.output_item.done", "item": item})
    events.append(
        {
            "type": "response.completed",
            "response": {
                "id": "r1",
                "status": "completed",
                "output": output,
                "usage": dict(usage or {"input_tokens": 10, "output_tokens": 7}),
            },
        }
    )
    return httpx.Response(200, headers=SSE, content=_frames(events, True))
