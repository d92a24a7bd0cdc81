"""Build small traces for the linter tests: well-behaved sessions and ones with one fault each.

Sessions are built turn by turn the way a client grows its transcript (append-only), then one
thing is changed, so each trace shows exactly one documented cache breaker.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

HANDBOOK = "".join(f"Rule {i}: read the file before editing it and explain the change.\n"
                   for i in range(350))
TOOLS = [
    {"name": "grep", "description": "Search files.",
     "input_schema": {"properties": {"pattern": {"type": "string"}}, "type": "object"}},
    {"name": "read_file", "description": "Read a file.",
     "input_schema": {"properties": {"path": {"type": "string"}}, "type": "object"}},
]
CC = {"type": "ephemeral"}

Mutator = Callable[[int, dict[str, Any], dict[str, Any]], None]


def anthropic_bodies(turns: int = 4, model: str = "claude-sonnet-4-6",
                     mutate: Mutator | None = None, blocks_per_turn: int = 1
                     ) -> list[dict[str, Any]]:
    """Bodies of an append-only session with a system breakpoint and automatic caching."""
    messages: list[dict[str, Any]] = []
    out = []
    for t in range(turns):
        if blocks_per_turn == 1:
            messages.append({"role": "user", "content": f"Question {t}: why does test_{t} fail?"})
        else:
            messages.append({"role": "user", "content": [
                {"type": "text", "text": f"part {t}.{k}"} for k in range(blocks_per_turn)]})
        body: dict[str, Any] = {
            "model": model,
            "max_tokens": 1024,
            "tools": json.loads(json.dumps(TOOLS)),
            "system": [{"type": "text", "text": HANDBOOK, "cache_control": dict(CC)}],
            "messages": json.loads(json.dumps(messages)),
            "cache_control": dict(CC),
        }
        record: dict[str, Any] = {"seq": t, "time": 1_000.0 + 60 * t}
        if mutate is not None:
            mutate(t, body, record)
        out.append({**record, "body": body})
        messages.append({"role": "assistant", "content": f"Answer {t}."})
    return out


def openai_bodies(turns: int = 4, key: str | None = "sess-1",
                  mutate: Mutator | None = None) -> list[dict[str, Any]]:
    messages: list[dict[str, Any]] = [{"role": "system", "content": HANDBOOK}]
    out = []
    for t in range(turns):
        messages.append({"role": "user", "content": f"Question {t}"})
        body: dict[str, Any] = {"model": "gpt-5.4", "messages": json.loads(json.dumps(messages))}
        if key is not None:
            body["prompt_cache_key"] = key
        record: dict[str, Any] = {"seq": t, "time": 1_000.0 + 30 * t}
        if mutate is not None:
            mutate(t, body, record)
        out.append({**record, "body": body})
        messages.append({"role": "assistant", "content": f"Answer {t}."})
    return out


def write_trace(path: Path, items: list[dict[str, Any]], session: str = "s1",
                api: str | None = None) -> Path:
    """prefixlock's JSONL trace format, one request a line."""
    lines = []
    for it in items:
        body = it["body"]
        a = api or ("anthropic" if str(body["model"]).startswith("claude") else "openai-chat")
        rec = {
            "session_id": it.get("session", session),
            "seq": it["seq"],
            "time": it["time"],
            "provider": "anthropic" if a == "anthropic" else "openai",
            "api": a,
            "model": body["model"],
            "path": "/v1/messages" if a == "anthropic" else "/v1/chat/completions",
            "body": body,
            "usage": {},
            "raw_usage": {},
            "cost": None,
            "cache_key": body.get("prompt_cache_key"),
        }
        lines.append(json.dumps(rec, sort_keys=True))
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def write_raw(path: Path, items: list[dict[str, Any]]) -> Path:
    """Raw request bodies, one per line."""
    path.write_text("".join(json.dumps(it["body"]) + "\n" for it in items), encoding="utf-8")
    return path
