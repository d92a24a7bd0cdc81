"""Fixture paths and builders of synthetic session-log lines for the analyze tests: Claude Code
assistant/user lines and Codex rollout lines, shaped like the real ones in data/ (see
data/SOURCES.md) with only the fields the quirk under test needs."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

DATA = Path(__file__).resolve().parent / "data"
CC = DATA / "claude-code"
CCV = CC / "ccv-5c0375b4-57a5-4f26-b12d-d022ee4e51b7.jsonl"
CCL = CC / "ccl-dag_compact_after_rewind.jsonl"
ALPHA = CC / "ccusage-session-alpha-chat.jsonl"
CODEX = DATA / "codex" / "ccusage-session-alpha.jsonl"
T0 = datetime(2026, 3, 1, 9, 0, tzinfo=UTC)


def at(seconds: float) -> str:
    return (
        (T0 + timedelta(seconds=seconds)).isoformat(timespec="milliseconds").replace("+00:00", "Z")
    )


def cc_assistant(
    n: int,
    t: float,
    *,
    read: int = 0,
    w5: int = 0,
    w1: int = 0,
    uncached: int = 10,
    out: int = 50,
    model: str = "claude-sonnet-4-5-20250929",
    request_id: str | None = "auto",
    session: str = "sess-a",
    split: bool = True,
    **extra: Any,
) -> str:
    usage: dict[str, Any] = {
        "input_tokens": uncached,
        "cache_creation_input_tokens": w5 + w1,
        "cache_read_input_tokens": read,
        "output_tokens": out,
    }
    if split:
        usage["cache_creation"] = {"ephemeral_5m_input_tokens": w5, "ephemeral_1h_input_tokens": w1}
    rec: dict[str, Any] = {
        "parentUuid": f"u{n}",
        "isSidechain": False,
        "sessionId": session,
        "version": "2.1.63",
        "type": "assistant",
        "uuid": f"a{n}",
        "timestamp": at(t),
        "message": {
            "id": f"msg_{n:04d}",
            "type": "message",
            "role": "assistant",
            "model": model,
            "content": [{"type": "text", "text": f"secret answer {n}"}],
            "usage": usage,
        },
    }
    if request_id == "auto":
        rec["requestId"] = f"req_{n:04d}"
    elif request_id is not None:
        rec["requestId"] = request_id
    rec.update(extra)
    return json.dumps(rec)


def cc_user(
    n: int, t: float, text: str = "do it", session: str = "sess-a", parent: str | None = None
) -> str:
    return json.dumps({
        "parentUuid": parent if parent is not None else (f"a{n - 1}" if n > 1 else None),
        "isSidechain": False, "sessionId": session, "version": "2.1.63", "type": "user",
        "uuid": f"u{n}", "timestamp": at(t),
        "message": {"role": "user", "content": [{"type": "text", "text": text}]},
    })  # fmt: skip


def codex_meta(sid: str, t: float, **payload: Any) -> str:
    return json.dumps(
        {"timestamp": at(t), "type": "session_meta", "payload": {"id": sid, **payload}}
    )


def codex_count(
    t: float, inp: int, cached: int, out: int, last: tuple[int, int, int] | None = None
) -> str:
    total = {"input_tokens": inp, "cached_input_tokens": cached, "output_tokens": out,
             "reasoning_output_tokens": 0, "total_tokens": inp + out}  # fmt: skip
    info: dict[str, Any] = {"total_token_usage": total}
    if last is not None:
        info["last_token_usage"] = {"input_tokens": last[0], "cached_input_tokens": last[1],
                                    "output_tokens": last[2]}  # fmt: skip
    return json.dumps(
        {"timestamp": at(t), "type": "event_msg", "payload": {"type": "token_count", "info": info}}
    )


def write(path: Path, lines: list[str], end: str = "\n") -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(lines) + end, encoding="utf-8")
    return path
