"""What `analyze` infers where a log leaves things out or repeats them: a Codex fork's replay of
its parent's history (known by its content, whatever its timestamps), a Claude Code write split
with no total, a compaction whose events were stripped."""

from __future__ import annotations

import json
from decimal import Decimal
from pathlib import Path
from typing import Any

from tests.analyze.logkit import at, cc_assistant, codex_count, codex_meta, write

MODEL = "gpt-5"


def report(*paths: Path) -> dict[str, Any]:
    from prefixlock.analyze import analyze
    from prefixlock.analyze.render import to_json

    rep: dict[str, Any] = json.loads(to_json(analyze(paths, jobs=1).report))
    return rep


def _context(t: float) -> str:
    return json.dumps({"timestamp": at(t), "type": "turn_context", "payload": {"model": MODEL}})


# The parent's three calls, as cumulative totals (input, cached, output): big, as a long
# session's are.
PARENT = [(400_000, 300_000, 4_000), (900_000, 750_000, 9_000), (1_500_000, 1_300_000, 15_000)]
LIVE = (1_000, 800, 50)  # the fork's own call


def _parent(tmp: Path) -> Path:
    rows = [codex_count(60.0 * i, *tot) for i, tot in enumerate(PARENT)]
    return write(tmp / "rollout-parent.jsonl", [codex_meta("parent-thread", 0), _context(0), *rows])


def _fork(tmp: Path, replay_at: list[float]) -> Path:
    (pi, pc, po), (li, lc, lo) = PARENT[-1], LIVE
    return write(tmp / "rollout-fork.jsonl", [
        codex_meta("fork-thread", 3600),
        codex_meta("parent-thread", 0),  # a fork carries its parent's session_meta
        _context(0),
        *(codex_count(t, *tot) for t, tot in zip(replay_at, PARENT, strict=True)),
        codex_count(3700, pi + li, pc + lc, po + lo, last=LIVE),
    ])  # fmt: skip


def _live_cost() -> Decimal:
    from prefixlock.analyze.catalogue import table
    from prefixlock.billing.usage import Usage

    price = table().lookup(MODEL)
    assert price is not None
    inp, cached, out = LIVE
    return price.cost(Usage(inp - cached, cached, 0, 0, out))


def test_a_fork_replaying_its_parent_is_known_by_content_whatever_its_timestamps(
    tmp_path: Path,
) -> None:
    # The replay keeps the parent's own timestamps, a minute apart: no burst to see.
    rep = report(_parent(tmp_path), _fork(tmp_path, [0.0, 60.0, 120.0]))
    by_session = {s["session"]: s for s in rep["sessions"]}
    assert set(by_session) == {"parent-thread", "fork-thread"}  # each named after itself
    fork = by_session["fork-thread"]
    assert fork["requests"] == 1
    t = fork["tokens"]
    assert (t["uncached_input"], t["cache_read"], t["output"]) == (200, 800, 50)
    assert Decimal(fork["usd"]) == _live_cost().quantize(Decimal("0.000001"))
    assert by_session["parent-thread"]["requests"] == 3
    assert rep["notes"]["replay_rows"]["count"] == 3


def test_a_fork_replay_spread_over_seconds_is_skipped_without_its_parent(tmp_path: Path) -> None:
    # Only the fork's file; its replay of the parent takes two seconds (not one).
    rep = report(_fork(tmp_path, [3600.2, 3601.1, 3602.0]))
    (s,) = rep["sessions"]
    assert s["session"] == "fork-thread" and s["requests"] == 1
    assert Decimal(s["usd"]) == _live_cost().quantize(Decimal("0.000001"))
    assert rep["notes"]["replay_rows"]["count"] == 3


def test_a_write_split_without_its_total_is_counted(tmp_path: Path) -> None:
    line = json.loads(cc_assistant(1, 0, w5=4_000, w1=6_000))
    del line["message"]["usage"]["cache_creation_input_tokens"]  # the split alone
    rep = report(write(tmp_path / "split.jsonl", [json.dumps(line)]))
    t = rep["totals"]["tokens"]
    assert (t["cache_write_5m"], t["cache_write_1h"], t["cache_write_unsplit"]) == (4_000, 6_000, 0)
    from prefixlock.analyze.catalogue import table
    from prefixlock.billing.usage import Usage

    price = table().lookup("claude-sonnet-4-5")
    assert price is not None
    expected = price.cost(Usage(10, 0, 4_000, 6_000, 50)).quantize(Decimal("0.000001"))
    assert Decimal(rep["totals"]["usd"]) == expected > Decimal("0.05")


def test_a_stripped_compaction_is_inferred_from_the_context_drop(tmp_path: Path) -> None:
    # A Codex session whose context grows to 200K, then falls 86% with no compaction event.
    rows = [
        codex_count(0, 50_000, 0, 500),
        codex_count(30, 150_000, 50_000, 1_000),
        codex_count(60, 350_000, 200_000, 1_500),  # this call: 200K in, 150K cached
        codex_count(90, 378_000, 200_000, 2_000, last=(28_000, 0, 500)),  # 28K in, none cached
    ]
    rep = report(write(tmp_path / "rollout-s.jsonl", [codex_meta("s", 0), _context(0), *rows]))
    (b,) = [b for b in rep["breaks"] if b["cause"] not in ("session_cold_start",)]
    assert (b["cause"], b["confidence"]) == ("compaction", "low")
    assert "context fell 86%" in b["evidence"] and "inferred" in b["evidence"]
    assert "tools/system changed" not in json.dumps(rep)


def test_a_real_tools_change_is_still_a_prefix_change(tmp_path: Path) -> None:
    # The same drop in reads with the context as big as before is not a compaction.
    rows = [
        codex_count(0, 50_000, 0, 500),
        codex_count(30, 150_000, 50_000, 1_000),
        codex_count(60, 350_000, 200_000, 1_500),
        codex_count(90, 550_000, 220_000, 2_000),  # 200K in, 20K cached
    ]
    rep = report(write(tmp_path / "rollout-s.jsonl", [codex_meta("s", 0), _context(0), *rows]))
    (b,) = [b for b in rep["breaks"] if b["cause"] not in ("session_cold_start",)]
    assert b["cause"] == "prefix_change"
