"""Token totals equal ccusage's on the Claude Code fixtures, by its documented de-duplication rule
(Rust `push_deduped_entry`; docs/session-logs.md#claude-code), written here independently of the
reader: one entry per hash(message.id, requestId); on a collision prefer the non-sidechain entry,
then the larger total, then the one with `speed`. A naive sum of every usage line (what
cacheeconomics does) overcounts, and the reader makes that impossible.
tests/benchmarks/bench_analyze.py runs the real ccusage from npm where it installs."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from prefixlock.analyze.analysis import analyze
from tests.analyze.logkit import ALPHA, CCV

FIELDS = ("input_tokens", "output_tokens", "cache_creation_input_tokens", "cache_read_input_tokens")


def _usage_lines(path: Path) -> list[dict[str, Any]]:
    out = []
    for line in path.read_text().splitlines():
        rec = json.loads(line)
        msg = rec.get("message") or {}
        if (
            isinstance(msg, dict)
            and isinstance(msg.get("usage"), dict)
            and msg.get("model") != "<synthetic>"
        ):
            out.append(rec)
    return out


def _total(rec: dict[str, Any]) -> int:
    u = rec["message"]["usage"]
    return sum(int(u.get(f) or 0) for f in FIELDS)


def ccusage_rule(paths: list[Path]) -> dict[str, int]:
    kept: dict[tuple[str, str | None], dict[str, Any]] = {}
    for p in paths:
        for rec in _usage_lines(p):
            key = (rec["message"]["id"], rec.get("requestId"))
            old = kept.get(key)
            if old is None:
                kept[key] = rec
                continue
            rank_new = (not rec.get("isSidechain"), _total(rec), "speed" in rec["message"]["usage"])
            rank_old = (not old.get("isSidechain"), _total(old), "speed" in old["message"]["usage"])
            if rank_new > rank_old:
                kept[key] = rec
    return {f: sum(int(r["message"]["usage"].get(f) or 0) for r in kept.values()) for f in FIELDS}


def naive_sum(paths: list[Path]) -> dict[str, int]:
    lines = [r for p in paths for r in _usage_lines(p)]
    return {f: sum(int(r["message"]["usage"].get(f) or 0) for r in lines) for f in FIELDS}


def ours(paths: list[Path]) -> dict[str, int]:
    t = analyze(paths, jobs=1).report["totals"]["tokens"]
    return {
        "input_tokens": t["uncached_input"],
        "output_tokens": t["output"],
        "cache_creation_input_tokens": t["cache_write_5m"]
        + t["cache_write_1h"]
        + t["cache_write_unsplit"],
        "cache_read_input_tokens": t["cache_read"],
    }


def test_totals_equal_ccusage_rule_on_each_fixture() -> None:
    for paths in ([CCV], [ALPHA], [CCV, ALPHA]):
        assert ours(paths) == ccusage_rule(paths)


def test_the_naive_sum_overcounts_and_is_not_what_we_report() -> None:
    naive, rule = naive_sum([CCV]), ccusage_rule([CCV])
    assert naive["cache_read_input_tokens"] > rule["cache_read_input_tokens"] * 1.15
    assert ours([CCV]) != naive
