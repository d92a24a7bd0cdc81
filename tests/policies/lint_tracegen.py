"""Build small traces for the linter tests: well-behaved sessions and ones with one fault each.

Sessions are built turn by turn the way a client grows its transcript (append-only), then one
thing is changed, so each trace shows exactly one documented cache breaker.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

HANDBOOK = "".join(
    f"Rule {i}: read the file before editing it and explain the change.\n" for i in range(350)
)
TOOLS = [
    {
        "name": "grep",
        "description": "Search files.",
        "input_schema": {"properties": {"pattern": {"type": "string"}}, "type": "object"},
    },
    {
        "name": "read_file",
        "description": "Read a file.",
        "input_schema": {"properties": {"path": {"type": "string"}}, "type": "object"},
    },
]
CC = {"type": "ephemeral"}

Mutator = Callable[[int, dict[str, Any], dict[str, Any]], None]


def anthropic_bodies(
    turns: int = 4,
    model: str = "claude-sonnet-4-6",
    mutate: Mutator | None = None,
    blocks_per_turn: int = 1,
    handbook: str = HANDBOOK,
) -> list[dict[str, Any]]:
    """Bodies of an append-only session with a system breakpoint and automatic caching."""
    messages: list[dict[str, Any]] = []
    out = []
    for t in range(turns):
        if blocks_per_turn == 1:
            messages.append({"role": "user", "content": f"Question {t}: why does test_{t} fail?"})
        else:
            messages.append(
                {
                    "role": "user",
                    "content": [
                        {"type": "text", "text": f"part {t}.{k}"} for k in range(blocks_per_turn)
                    ],
                }
            )
        body: dict[str, Any] = {
            "model": model,
            "max_tokens": 1024,
            "tools": json.loads(json.dumps(TOOLS)),
            "system": [{"type": "text", "text": handbook, "cache_control": dict(CC)}],
            "messages": json.loads(json.dumps(messages)),
            "cache_control": dict(CC),
        }
        record: dict[str, Any] = {"seq": t, "time": 1_000.0 + 60 * t}
        if mutate is not None:
            mutate(t, body, record)
        out.append({**record, "body": body})
        messages.append({"role": "assistant", "content": f"Answer {t}."})
    return out


def openai_bodies(
    turns: int = 4, key: str | None = "sess-1", mutate: Mutator | None = None
) -> list[dict[str, Any]]:
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


MARK = {"mode": "explicit"}


def gpt56_bodies(
    turns: int = 4,
    mode: str = "implicit",
    tail_mark: bool = True,
    keep_marks: bool = False,
    mutate: Mutator | None = None,
    api: str = "openai-chat",
) -> list[dict[str, Any]]:
    """An append-only gpt-5.6 session the way prefixlock's builder sends it: a
    `prompt_cache_breakpoint` on the system prompt and one on the newest user message (moved
    there each turn, so earlier messages lose theirs; `keep_marks` leaves them in place)."""
    system = {
        "role": "system" if api == "openai-chat" else "developer",
        "content": [
            {
                "type": "text" if api == "openai-chat" else "input_text",
                "text": HANDBOOK,
                "prompt_cache_breakpoint": dict(MARK),
            }
        ],
    }
    history: list[dict[str, Any]] = []
    out = []
    for t in range(turns):
        part: dict[str, Any] = {
            "type": "text" if api == "openai-chat" else "input_text",
            "text": f"Question {t}: why does test_{t} fail?",
        }
        history.append({"role": "user", "content": [part]})
        items = json.loads(json.dumps([system, *history]))
        if tail_mark:
            items[-1]["content"][-1]["prompt_cache_breakpoint"] = dict(MARK)
            if keep_marks:
                part["prompt_cache_breakpoint"] = dict(MARK)
        body: dict[str, Any] = {
            "model": "gpt-5.6-terra",
            "messages" if api == "openai-chat" else "input": items,
            "prompt_cache_key": "sess-1",
            "prompt_cache_options": {"mode": mode, "ttl": "30m"},
        }
        record: dict[str, Any] = {"seq": t, "time": 1_000.0 + 30 * t}
        if mutate is not None:
            mutate(t, body, record)
        out.append({**record, "body": body})
        history.append({"role": "assistant", "content": f"Answer {t}."})
    return out


def write_trace(
    path: Path, items: list[dict[str, Any]], session: str = "s1", api: str | None = None
) -> Path:
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


# --- the trace part of the corpus (tests/policies/corpus/positive/traces) ----------------------

SHORT_HANDBOOK = "".join(
    f"Rule {i}: read the file first, then explain the change.\n" for i in range(90)
)  # ~1,300 tokens: over claude-sonnet-4-6's minimum


def _at_least(t0: int, fn: Mutator) -> Mutator:
    def m(t: int, body: dict[str, Any], rec: dict[str, Any]) -> None:
        if t >= t0:
            fn(t, body, rec)

    return m


def _set(key: str, value: Any) -> Callable[[int, dict[str, Any], dict[str, Any]], None]:
    return lambda t, body, rec: body.__setitem__(key, value)


def corpus_traces() -> dict[str, tuple[str, list[dict[str, Any]]]]:
    """name -> (format, records): one documented cache breaker per trace."""

    def system_edit(t: int, body: dict[str, Any], rec: dict[str, Any]) -> None:
        body["system"][0]["text"] = "Updated rules.\n" + body["system"][0]["text"]

    def history_edit(t: int, body: dict[str, Any], rec: dict[str, Any]) -> None:
        body["messages"][0]["content"] = "Reminder: be brief. " + body["messages"][0]["content"]

    def late(t: int, body: dict[str, Any], rec: dict[str, Any]) -> None:
        rec["time"] += 900

    def rotate(t: int, body: dict[str, Any], rec: dict[str, Any]) -> None:
        body["prompt_cache_key"] = f"request-{t}"

    def clock(t: int, body: dict[str, Any], rec: dict[str, Any]) -> None:
        body["system"] = [
            {"type": "text", "text": body["system"][0]["text"]},
            {"type": "text", "text": f"Current time: 10:0{t}:00", "cache_control": dict(CC)},
        ]

    def short(t: int, body: dict[str, Any], rec: dict[str, Any]) -> None:
        body["model"] = "claude-opus-4-7"  # minimum 2,048 tokens

    def openai_clock(t: int, body: dict[str, Any], rec: dict[str, Any]) -> None:
        part = body["messages"][0]["content"][0]
        part["text"] = f"Current time: 10:0{t}:00\n" + part["text"]

    def a(mut: Mutator | None = None, **kw: Any) -> list[dict[str, Any]]:
        return anthropic_bodies(4, mutate=mut, handbook=SHORT_HANDBOOK, **kw)

    return {
        "t01_model_switch.jsonl": ("trace", a(_at_least(2, _set("model", "claude-opus-4-8")))),
        "t02_system_edited.jsonl": ("trace", a(_at_least(2, system_edit))),
        "t03_tools_reordered.jsonl": (
            "trace",
            a(_at_least(2, lambda t, b, r: b.__setitem__("tools", list(reversed(b["tools"]))))),
        ),
        "t04_tool_choice_changed.jsonl": (
            "trace",
            a(_at_least(2, _set("tool_choice", {"type": "any"}))),
        ),
        "t05_history_rewritten.jsonl": ("trace", a(_at_least(2, history_edit))),
        "t06_openai_no_cache_key.jsonl": ("raw", openai_bodies(3, key=None)),
        "t07_cache_key_rotates.jsonl": ("trace", openai_bodies(3, mutate=rotate)),
        "t08_idle_past_ttl.jsonl": ("trace", a(_at_least(2, late))),
        "t09_lookback_exceeded.jsonl": ("trace", a(blocks_per_turn=25)[:3]),
        "t10_breakpoint_on_clock.jsonl": ("raw", a(clock)),
        "t11_below_minimum.jsonl": ("trace", a(short)),
        "t12_openai_breakpoint_on_clock.jsonl": ("trace", gpt56_bodies(mutate=openai_clock)),
    }


def write_corpus(directory: Path) -> list[Path]:
    directory.mkdir(parents=True, exist_ok=True)
    out = []
    for name, (fmt, items) in corpus_traces().items():
        p = directory / name
        (write_trace if fmt == "trace" else write_raw)(p, items)
        out.append(p)
    return out


if __name__ == "__main__":
    for written in write_corpus(Path(__file__).parent / "corpus" / "positive" / "traces"):
        print(written)
