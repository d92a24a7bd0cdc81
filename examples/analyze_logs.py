"""The cache report for a coding agent's session log: `prefixlock.analyze.analyze(paths)`.

Writes a small Claude Code transcript the way Claude Code does (one line per content block,
each repeating the request's usage; a Task subagent; a coffee break longer than the 5-minute
cache TTL; a compaction), then reads it: the request count after de-duplication, hit rates,
dollars, and every cache break with its cause, confidence and price. It also writes the HTML
page and exports the workload as a trace, which the simulator replays: what a server that kept
the prefix warm would have read. `prefixlock analyze` with no path does the same for the logs
already on this machine (~/.claude/projects, ~/.codex/sessions, OpenCode, Gemini CLI).
"""

from __future__ import annotations

import json
import tempfile
from datetime import UTC, datetime, timedelta
from pathlib import Path

from prefixlock.analyze import analyze
from prefixlock.analyze.export import write_trace
from prefixlock.analyze.html import page
from prefixlock.analyze.report import headline
from prefixlock.sim.simulate import SimConfig, simulate
from prefixlock.sim.tracefile import read_trace

T0 = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)
MODEL = "claude-sonnet-4-5-20250929"


def line(kind: str, n: int, t: float, **fields: object) -> str:
    rec = {"type": kind, "sessionId": "demo-session", "uuid": f"{kind[0]}{n}",
           "timestamp": (T0 + timedelta(seconds=t)).isoformat().replace("+00:00", "Z"),
           "isSidechain": False, "version": "2.1.90", **fields}  # fmt: skip
    return json.dumps(rec)


def request(
    n: int, t: float, read: int, write: int, blocks: int = 2, **fields: object
) -> list[str]:
    """One API call as Claude Code logs it: a line per content block, output growing."""
    split = {"ephemeral_5m_input_tokens": write, "ephemeral_1h_input_tokens": 0}
    usage = {"input_tokens": 8, "cache_read_input_tokens": read, "output_tokens": 0,
             "cache_creation_input_tokens": write, "cache_creation": split}  # fmt: skip
    out = []
    for k in range(blocks):
        usage = dict(usage, output_tokens=40 + 200 * k)
        content = [{"type": "text", "text": "(private answer)"}]
        msg = {"id": f"msg_{n}", "model": MODEL, "role": "assistant", "content": content,
               "usage": usage}  # fmt: skip
        out.append(
            line("assistant", n * 10 + k, t + k, message=msg, requestId=f"req_{n}", **fields)
        )
    return out


def prompt(n: int, t: float, text: str) -> str:
    return line("user", n, t, message={"role": "user", "content": [{"type": "text", "text": text}]})


def transcript() -> list[str]:
    lines = [prompt(1, 0, "Find the bug in the parser")]
    lines += request(1, 5, read=0, write=24000)  # cold start: the system prompt and tools
    lines += request(2, 20, read=24000, write=3000)
    # A Task subagent: its own prefix, its own cold start.
    lines += request(3, 30, read=0, write=15000, isSidechain=True, agentId="explore")
    lines += request(4, 45, read=15000, write=2000, isSidechain=True, agentId="explore")
    lines += request(5, 60, read=27000, write=1500)
    lines.append(prompt(2, 900, "Back from coffee: now fix it"))  # 14 minutes idle
    lines += request(6, 905, read=0, write=29000)  # the 5-minute cache expired
    lines += request(7, 920, read=29000, write=800)
    lines.append(line("system", 3, 1000, subtype="compact_boundary",
                      compactMetadata={"trigger": "auto", "preTokens": 29800}))  # fmt: skip
    lines += request(8, 1010, read=3000, write=8200)  # after compaction: a new, shorter prefix
    return lines


def main() -> None:
    with tempfile.TemporaryDirectory() as d:
        log = Path(d) / "projects" / "-home-me-app" / "demo-session.jsonl"
        log.parent.mkdir(parents=True)
        log.write_text("\n".join(transcript()) + "\n")
        result = analyze([log])
        rep = result.report
        t = rep["totals"]
        notes = {k: v["count"] for k, v in rep["notes"].items()}
        print(f"{notes['usage_lines']} usage lines -> {t['requests']} requests "
              f"({notes['duplicate_lines']} content-block copies merged)")  # fmt: skip
        for agent, a in rep["by_agent"].items():
            print(f"  {agent:<9} {a['requests']} requests, hit {a['hit_rate']:.1%}, ${a['usd']}")
        print("cache breaks:")
        for b in rep["breaks"]:
            lost = (
                "inherent"
                if b["inherent"] and b["cause"].endswith("cold_start")
                else f"${b['usd_lost']} lost"
            )
            print(
                f"  {b['at'][11:19]} {b['thread']:<13} {b['cause']:<20} {b['confidence']:<6} {lost}"
            )
            print(f"      {b['evidence']}")
        print(headline(rep))

        html = Path(d) / "report.html"
        html.write_text(page(rep))
        trace = Path(d) / "workload.jsonl"
        with open(trace, "w") as fh:
            n = write_trace(result.rows, fh)
        sim = simulate(read_trace(trace), SimConfig())
        logged = t["tokens"]["cache_read"] / t["tokens"]["input_total"]
        print(
            f"HTML page: {html.stat().st_size:,} bytes; workload: {n} requests. A server that "
            f"kept every prefix would have served {sim.hit_rate_tokens:.1%} of input from cache "
            f"(the provider served {logged:.1%})."
        )
        assert t["requests"] == 8 and notes["duplicate_lines"] == 8
        causes = [b["cause"] for b in rep["breaks"]]
        assert causes.count("ttl_expiry") == 1 and "compaction" in causes


if __name__ == "__main__":
    main()
