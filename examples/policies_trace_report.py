"""Write a small trace with a cache breaker in it, lint it, and print the cache-break report.

The client below puts the current time into its system prompt from the third request on; the
report names the first divergent byte, the cause, and the tokens and dollars re-billed.
Run: .venv/bin/python examples/policies_trace_report.py
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

from prefixlock.billing.prices import PriceTable
from prefixlock.policies import build_report, check_trace, render_summary, render_text

HANDBOOK = "".join(f"Rule {i}: read before you edit, and say why.\n" for i in range(150))


def session_records() -> list[dict[str, object]]:
    messages: list[dict[str, object]] = []
    out = []
    for turn in range(5):
        question = f"Question {turn}: what does module {turn} do?"
        messages.append({"role": "user", "content": question})
        system = HANDBOOK if turn < 2 else f"Current time: 09:{10 + turn}:00\n{HANDBOOK}"
        body = {
            "model": "claude-sonnet-4-6",
            "max_tokens": 512,
            "system": [{"type": "text", "text": system, "cache_control": {"type": "ephemeral"}}],
            "messages": json.loads(json.dumps(messages)),
            "cache_control": {"type": "ephemeral"},
        }
        out.append(
            {
                "session_id": "example",
                "seq": turn,
                "time": 1_800_000_000.0 + 40 * turn,
                "provider": "anthropic",
                "api": "anthropic",
                "model": body["model"],
                "path": "/v1/messages",
                "body": body,
                "usage": {},
                "raw_usage": {},
                "cost": None,
                "cache_key": None,
            }
        )
        messages.append({"role": "assistant", "content": f"Module {turn} parses the config."})
    return out


with tempfile.TemporaryDirectory() as tmp:
    trace = Path(tmp) / "session.jsonl"
    trace.write_text("".join(json.dumps(r) + "\n" for r in session_records()), encoding="utf-8")
    prices = PriceTable.builtin()
    for f in check_trace(str(trace), prices):
        print(f"{f.code} line {f.line}: {f.message}")
    report = build_report(str(trace), prices)
    print(render_summary([report]) + render_text(report), end="")
    session = report.sessions[0]
    assert [b.seq for b in session.breaks] == [2, 3, 4]
    assert all(b.cause == "system prompt changed" for b in session.breaks)
    assert session.dollars > 0
