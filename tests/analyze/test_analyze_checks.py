"""The checks `prefixlock analyze` must pass (docs/session-logs.md#checks), on the public
fixtures in data/ (licenses beside them) and synthetic logs for each quirk
(tests/analyze/logkit.py)."""

from __future__ import annotations

import json
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Any

import pytest

from prefixlock.analyze.analysis import analyze
from tests.analyze.logkit import (
    ALPHA,
    CCL,
    CCV,
    CODEX,
    at,
    cc_assistant,
    cc_user,
    codex_count,
    codex_meta,
    write,
)


def report(*paths: Path, **kw: Any) -> dict[str, Any]:
    return analyze(paths, jobs=1, **kw).report


def by_key(rep: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {r["key"]: r for r in rep["requests"]}


def test_c3_inline_sidechains_dedup_split_and_price() -> None:
    rep = report(CCV)
    assert rep["notes"]["usage_lines"]["count"] == 28
    assert rep["notes"]["duplicate_lines"]["count"] == 8
    t = rep["totals"]
    assert t["requests"] == 20
    assert round(t["hit_rate"] * 100, 2) == 87.13
    assert t["usd"] == "0.331151"  # $0.33115 at claude-sonnet-4's $3 / $3.75 / $0.30 / $15
    agents = rep["by_agent"]
    assert agents["main"]["requests"] == 10 and agents["subagent"]["requests"] == 10
    (session,) = rep["sessions"]
    assert len(session["threads"]) == 3  # main and the two Task subagents
    colds = {b["cause"]: b for b in rep["breaks"]}
    assert set(colds) == {"session_cold_start", "subagent_cold_start"}
    reqs = by_key(rep)
    assert reqs[colds["session_cold_start"]["key"]]["cache_write_5m"] == 18764
    assert reqs[colds["subagent_cold_start"]["key"]]["cache_write_5m"] == 12802
    for b in colds.values():
        assert b["inherent"] and not b["avoidable"] and b["usd_lost"] == "0.000000"
    assert t["lost_usd"] == "0.000000"


def test_c4_second_subagent_reads_the_shared_prefix() -> None:
    rep = report(CCV)
    (warm,) = [r for r in rep["requests"] if r["first"] == "2025-09-07T09:52:55.981Z"]
    assert warm["cache_read"] == 11454 and warm["cache_write_5m"] == 1334
    assert warm["break"] is None


def test_c5_compaction_and_rewind_structure_and_na_hit_rate() -> None:
    rep = report(CCL)
    kinds = {e["kind"]: e["evidence"] for e in rep["events"]}
    assert "b2u re-parented to a1" in kinds["history_rewrite"]
    assert "trigger=auto" in kinds["compaction"] and "preTokens=150000" in kinds["compaction"]
    (s,) = rep["sessions"]
    assert s["human_prompts"] == 5 and s["live_branch_prompts"] == 4
    assert s["hit_rate"] is None and rep["totals"]["hit_rate"] is None  # N/A, not 0%
    assert [t["turn"] for t in rep["turns"]] == [1, 2, 3, 4, 5]


def test_c6_model_switches_carry_speed_and_ignore_logged_cost() -> None:
    rep = report(ALPHA)
    switches = [e for e in rep["events"] if e["kind"] == "model_switch"]
    assert [e["evidence"].split(" (")[0] for e in switches] == [
        "model claude-sonnet-4 -> claude-opus-4",
        "model claude-opus-4 -> claude-sonnet-4",
    ]
    reqs = by_key(rep)
    assert reqs["msg-alpha-2:req-alpha-2"]["speed"] == "fast"
    # Priced from the table, with costUSD reported beside it, not used.
    first = reqs["msg-alpha-1:req-alpha-1"]
    assert first["logged_usd"] == 0.12
    assert first["usd"] == "0.001147"  # 100x$3 + 25x$3.75 + 10x$0.30 + 50x$15 per MTok


def test_c7_codex_cumulative_totals_become_deltas() -> None:
    rep = report(CODEX)
    rows = rep["requests"]
    assert [(r["uncached_input"], r["cache_read"], r["output"]) for r in rows] == [
        (750, 250, 125),
        (2000, 500, 300),
    ]
    assert [r["model"] for r in rows] == ["gpt-5.2-codex", "gpt-5.3-codex"]


def test_c8_codex_reemitted_snapshot_is_not_a_request(tmp_path: Path) -> None:
    lines = CODEX.read_text().splitlines()
    f = write(tmp_path / "rollout.jsonl", [*lines, lines[-1]])
    rep = report(f)
    assert rep["totals"]["requests"] == 2 and rep["notes"]["reemits"]["count"] == 1


def test_c9_codex_fork_replay_burst_sets_the_baseline(tmp_path: Path) -> None:
    f = write(tmp_path / "rollout-child.jsonl", [
        codex_meta("child-thread", 0, source={"subagent": {"thread_spawn": {"parent": "p"}}}),
        codex_meta("parent-thread", 0),
        codex_count(0.1, 1000, 0, 100),  # the parent's history, replayed in one second
        codex_count(0.4, 5000, 3000, 400),
        codex_count(30, 9000, 6500, 600, last=(4000, 3500, 200)),
    ])  # fmt: skip
    rep = report(f)
    (r,) = rep["requests"]
    assert (r["uncached_input"], r["cache_read"], r["output"]) == (500, 3500, 200)
    # A spawned subagent is a session named after its own thread, not its parent's.
    assert r["session"] == "child-thread" and r["thread"].startswith("agent:")
    assert rep["notes"]["replay_rows"]["count"] == 2


def _ttl_log(tmp_path: Path, one_hour: bool) -> Path:
    w1, w5 = (30000, 0) if one_hour else (0, 30000)
    return write(tmp_path / "ttl.jsonl", [
        cc_user(1, 0), cc_assistant(1, 5, w5=w5, w1=w1),
        cc_user(2, 425), cc_assistant(2, 425, w5=30500),  # 7 minutes later, read 0
    ])  # fmt: skip


def test_c10_idle_gap_past_a_5m_write_is_ttl_expiry(tmp_path: Path) -> None:
    rep = report(_ttl_log(tmp_path, one_hour=False))
    (b,) = [b for b in rep["breaks"] if not b["inherent"] or b["cause"] == "unknown"]
    assert (b["cause"], b["confidence"]) == ("ttl_expiry", "high")
    assert "gap=7m > ttl=5m (prev write ephemeral_5m)" in b["evidence"]
    assert b["tokens_rebilled"] == 30000
    # 30,000 tokens written at $3.75 instead of read at $0.30 per MTok (sonnet-4-5).
    assert b["usd_lost"] == "0.103500"
    assert rep["totals"]["lost_by_cause"] == {"ttl_expiry": "0.103500"}


def test_c10_same_gap_under_a_1h_write_is_not_ttl(tmp_path: Path) -> None:
    rep = report(_ttl_log(tmp_path, one_hour=True))
    (b,) = [b for b in rep["breaks"] if b["cause"] not in ("session_cold_start",)]
    assert b["cause"] in ("prefix_change", "unknown") and b["confidence"] == "low"


def test_c12_usage_that_is_no_object_is_invalid_usage_not_a_lost_line(tmp_path: Path) -> None:
    lines = []
    for i, usage in enumerate((5, None, "12", [1])):
        rec = json.loads(cc_assistant(i + 1, i * 10))
        rec["message"]["usage"] = usage
        lines.append(json.dumps(rec))
    f = write(tmp_path / "s.jsonl", [*lines, cc_assistant(9, 90, w5=100)])
    rep = report(f)
    notes = {k: v["count"] for k, v in rep["notes"].items()}
    assert notes["usage_lines"] == 5 and notes["invalid_usage"] == 4
    assert "corrupt_lines" not in notes
    assert [r["key"] for r in rep["requests"]] == ["msg_0009:req_0009"]


def test_c11_missing_request_id_dedups_by_message_id(tmp_path: Path) -> None:
    f = write(tmp_path / "s.jsonl", [
        cc_assistant(1, 0, w5=5000, out=3, request_id=None),
        cc_assistant(1, 1, w5=5000, out=40, request_id=None),
        cc_assistant(1, 2, w5=5000, out=212, request_id=None),
    ])  # fmt: skip
    rep = report(f)
    (r,) = rep["requests"]
    assert r["key"] == "msg_0001" and r["output"] == 212 and r["first"] == at(0)


def test_c12_bad_records_are_dropped_and_counted(tmp_path: Path) -> None:
    good = json.loads(cc_assistant(3, 20, w5=100))
    split = json.dumps(good).replace("secret answer 3", "line one\nline two")
    null = json.loads(cc_assistant(4, 30))
    null["message"]["usage"]["cache_read_input_tokens"] = None
    f = write(tmp_path / "bad.jsonl", [
        cc_assistant(1, 0, w5=100),
        cc_assistant(2, 10, model="<synthetic>"),
        cc_assistant(5, 12, isApiErrorMessage=True),
        split,  # a record split by a raw newline inside a string
        json.dumps(null),
        "{not json at all",
        cc_assistant(6, 40, read=100),
        '{"type":"assistant","message":{"id":"msg_tail"',  # a live write in progress
    ], end="")  # fmt: skip
    rep = report(f)
    notes = {k: v["count"] for k, v in rep["notes"].items()}
    assert notes["synthetic"] == 1 and notes["api_errors"] == 1 and notes["invalid_usage"] == 1
    assert notes["rejoined_records"] == 1 and notes["corrupt_lines"] == 1
    assert notes["partial_trailing"] == 1
    assert sorted(r["key"] for r in rep["requests"]) == [
        "msg_0001:req_0001", "msg_0003:req_0003", "msg_0006:req_0006"
    ]  # fmt: skip


def test_c13_dated_ids_resolve_and_unknown_models_stay_unpriced(tmp_path: Path) -> None:
    f = write(tmp_path / "m.jsonl", [
        cc_assistant(1, 0, w5=1000, model="claude-sonnet-4-5-20250929"),
        cc_assistant(2, 10, read=1000, model="claude-imaginary-9-20300101"),
    ])  # fmt: skip
    rep = report(f)
    reqs = by_key(rep)
    assert reqs["msg_0001:req_0001"]["usd"] == "0.004530"  # claude-sonnet-4-5's prices
    assert reqs["msg_0002:req_0002"]["usd"] is None
    t = rep["totals"]
    assert t["unpriced"] == {"models": ["claude-imaginary-9-20300101"], "tokens": 1060}
    assert t["usd"] == "0.004530"  # the priced part; the rest is named, not $0


def test_c14_resume_copy_counts_once_and_the_boundary_break_is_a_resume(tmp_path: Path) -> None:
    a = tmp_path / "p" / "first.jsonl"
    a.parent.mkdir()
    shutil.copy(CCV, a)
    lines = CCV.read_text().splitlines()
    # The resumed file repeats the history, then its own request reads only the system part.
    extra = json.loads(lines[-1])
    extra["message"]["id"], extra["requestId"] = "msg_resumed", "req_resumed"
    extra["timestamp"] = "2025-09-07T09:56:00.000Z"
    extra["message"]["usage"].update(
        cache_read_input_tokens=4000, cache_creation_input_tokens=22000,
        cache_creation={"ephemeral_5m_input_tokens": 22000, "ephemeral_1h_input_tokens": 0},
    )  # fmt: skip
    write(tmp_path / "p" / "second.jsonl", [*lines, json.dumps(extra)])
    rep = report(tmp_path / "p")
    assert rep["totals"]["requests"] == 21
    assert rep["notes"]["cross_file_duplicates"]["count"] == 20
    (b,) = [b for b in rep["breaks"] if b["key"] == "msg_resumed:req_resumed"]
    assert b["cause"] == "history_rewrite" and b["evidence"].startswith("resume")


def _texts(obj: Any) -> list[str]:
    if isinstance(obj, dict):
        return [t for k, v in obj.items() for t in (
            [v] if k in ("text", "content") and isinstance(v, str) else _texts(v)
        )]  # fmt: skip
    if isinstance(obj, list):
        return [t for v in obj for t in _texts(v)]
    return []


def test_c15_no_prompt_or_output_text_in_any_output(tmp_path: Path) -> None:
    from prefixlock.analyze import render
    from prefixlock.analyze.html import page

    secrets = {t for line in CCV.read_text().splitlines() for t in _texts(json.loads(line))}
    secrets = {s for s in secrets if len(s) > 12}
    assert len(secrets) > 10
    rep = report(CCV)
    for text in (render.to_json(rep), render.to_csv(rep), render.to_table(rep), page(rep)):
        assert not [s for s in secrets if s in text]


def test_lines_read_field_by_field_give_the_same_structure_as_lines_parsed_whole(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import msgspec

    from prefixlock.analyze import claude_code

    def whole(line: bytes) -> object:
        raise msgspec.ValidationError("every line the forgiving way: json.loads, then coerced")

    def read(path: Path) -> tuple[object, ...]:
        r = claude_code.parse(path.read_text().splitlines(keepends=True), str(path))
        reqs = [
            (q.key, q.thread, q.turn, q.rewrite, q.compaction, q.total_tokens) for q in r.requests
        ]
        return reqs, r.prompts, r.live_prompts, [(e.kind, e.evidence) for e in r.events]

    fast = [read(p) for p in (CCV, CCL)]
    monkeypatch.setattr(claude_code, "_decode_line", whole)
    assert fast == [read(p) for p in (CCV, CCL)]


def test_model_switch_break_is_priced_and_a_prefix_change_is_inferred(tmp_path: Path) -> None:
    opus = "claude-opus-4-5-20251101"
    f = write(tmp_path / "switch.jsonl", [
        cc_assistant(1, 0, w5=40000),
        cc_assistant(2, 30, read=40000, w5=500),
        cc_assistant(3, 60, w5=41000, model=opus),  # switch: cold again
        cc_assistant(4, 90, read=41000, w5=300, model=opus),
        cc_assistant(5, 120, read=41300, w5=200, model=opus),
        cc_assistant(6, 150, read=41000, w5=900, model=opus),
        cc_assistant(7, 180, read=30000, w5=12500, model=opus),  # under the floor
    ])  # fmt: skip
    rep = report(f)
    b = {x["key"].split(":")[0]: x for x in rep["breaks"]}
    assert (b["msg_0003"]["cause"], b["msg_0003"]["confidence"]) == ("model_switch", "high")
    assert b["msg_0003"]["avoidable"] and float(b["msg_0003"]["usd_lost"]) > 0
    assert "msg_0006" not in b  # a small dip is not a break
    assert set(b) == {"msg_0001", "msg_0003"}  # 30,000 of 42,100 read: above half, no break
    sens = report(f, sensitive=True)
    s = {x["key"].split(":")[0]: x for x in sens["breaks"]}
    assert (s["msg_0007"]["cause"], s["msg_0007"]["confidence"]) == ("prefix_change", "low")
    floor = "the session's floor (40000): tools/system changed"
    assert floor in s["msg_0007"]["evidence"]


def test_unsplit_writes_are_priced_at_the_ttl_given(tmp_path: Path) -> None:
    f = write(tmp_path / "old.jsonl", [cc_assistant(1, 0, w5=1_000_000, out=0, split=False)])
    assert report(f)["totals"]["usd"] == "3.750030"  # 5m write price (claude-sonnet-4-5)
    assert report(f, ttl="1h")["totals"]["usd"] == "6.000030"  # 1h write price


def test_filters_by_date_session_and_project() -> None:
    rep = report(ALPHA, since="2026-01-10")
    assert rep["totals"]["requests"] == 1
    rep = report(ALPHA, until="2026-01-09")
    assert rep["totals"]["requests"] == 2
    assert report(CCV, project="/path/to/Demo")["totals"]["requests"] == 20
    assert report(CCV, project="elsewhere")["totals"]["requests"] == 0


def _fixture_logs(tmp_path: Path) -> Path:
    """The four fixture logs, each in a folder of its own, plus a resume's copy of one."""
    logs = tmp_path / "logs"
    for i, src in enumerate([CCV, CCL, ALPHA, CODEX]):
        (logs / f"d{i}").mkdir(parents=True)
        shutil.copy(src, logs / f"d{i}" / src.name)
    shutil.copy(CCV, logs / "d0" / "resumed.jsonl")  # a resume's copy, in a share of its own
    return logs


def test_several_readers_give_the_report_one_reader_gives(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from prefixlock.analyze import sources
    from prefixlock.analyze.render import to_json

    logs = _fixture_logs(tmp_path)
    # Every file its own share, and the pool used however little there is to read.
    monkeypatch.setattr(sources, "POOL_BYTES", 0)
    monkeypatch.setattr(sources, "CHUNK_BYTES", 1)
    one = analyze([logs], jobs=1).report
    assert one["notes"]["cross_file_duplicates"]["count"] > 0
    assert to_json(analyze([logs], jobs=3).report) == to_json(one)


def test_each_file_analysed_where_it_is_read_gives_the_report_of_the_rows(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from prefixlock.analyze import render, report, sources
    from prefixlock.analyze.html import page
    from prefixlock.analyze.render import to_csv, to_json, to_jsonl, to_table

    # A resume's copy (its threads in two files), and a Codex fork replaying its parent: the
    # files whose threads are made again where they meet.
    logs = _fixture_logs(tmp_path)
    model = json.dumps({"timestamp": at(0), "type": "turn_context", "payload": {"model": "gpt-5"}})
    parent = [codex_count(60.0 * i, 1000 * i, 500 * i, 10 * i) for i in (1, 2)]
    write(logs / "x" / "rollout-parent.jsonl", [codex_meta("parent", 0), model, *parent])
    write(logs / "x" / "rollout-fork.jsonl", [
        codex_meta("fork", 3600), codex_meta("parent", 0), model, *parent,
        codex_count(3700, 2500, 1200, 30, last=(500, 200, 10)),
    ])  # fmt: skip
    rows = analyze([logs], jobs=1)
    assert rows.rows
    want = rows.report
    assert want["notes"]["cross_file_duplicates"]["count"] > 0
    assert want["notes"]["replay_rows"]["count"] > 0
    monkeypatch.setattr(sources, "POOL_BYTES", 0)
    monkeypatch.setattr(sources, "CHUNK_BYTES", 1)
    spools = tmp_path / "tmp"
    spools.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(spools))
    for jobs in (1, 3):
        got = analyze([logs], jobs=jobs, keep_rows=False)
        assert got.rows == []
        assert not list(spools.iterdir())  # the records read back from where nothing is left
        for out in (to_json, to_jsonl, to_csv, page, to_table):
            assert out(got.report) == out(want), (jobs, out)
        assert to_table(got.report, by="request") == to_table(want, by="request")
        with monkeypatch.context() as m:  # streamed, as a big report is
            m.setattr(render, "INDENTED", 0)
            assert to_json(got.report) == to_json(want)
            # To a file, its records copied as bytes through a buffer smaller than a thread's
            # (and, second, than any) records.
            for size in (600, 8):
                m.setattr(report, "PIECE_BYTES", size)
                with open(tmp_path / "r.json", "w", encoding="utf-8", newline="") as fh:
                    render.write_json(got.report, fh)
                assert (tmp_path / "r.json").read_text("utf-8") == to_json(want), size


def test_a_session_whose_prompts_another_file_counts_is_made_from_every_file(
    tmp_path: Path,
) -> None:
    from prefixlock.analyze.render import to_json, to_table

    # sess-a's requests in one file and one more of its prompts in another (a file with no
    # request of it): the session's record made where its file was read is not the report's;
    # sess-b, wholly in its file, is.
    logs = tmp_path / "logs"
    write(logs / "a.jsonl", [
        cc_user(1, 0, session="sess-a"), cc_assistant(1, 5, w5=3000, session="sess-a"),
        cc_user(2, 60, session="sess-a"), cc_assistant(2, 65, read=3000, session="sess-a"),
    ])  # fmt: skip
    write(logs / "b.jsonl", [cc_user(9, 120, "again", session="sess-a", parent="a2")])
    write(logs / "c.jsonl", [
        cc_user(5, 0, session="sess-b"), cc_assistant(5, 5, w1=4000, session="sess-b"),
    ])  # fmt: skip
    want = analyze([logs], jobs=1).report
    got = analyze([logs], jobs=1, keep_rows=False).report
    prompts = {s["session"]: s["human_prompts"] for s in got["sessions"]}
    assert prompts == {"sess-a": 3, "sess-b": 1}
    assert to_json(got) == to_json(want)
    assert to_table(got, by="turn") == to_table(want, by="turn")


@pytest.mark.skipif(sys.platform != "linux", reason="the readers are forked on Linux only")
def test_a_reader_that_fails_ends_the_read_with_its_traceback(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import multiprocessing
    import os

    from prefixlock.analyze import sources

    logs = tmp_path / "logs"
    logs.mkdir()
    for i in range(4):
        shutil.copy(CCV, logs / f"s{i}.jsonl")
    monkeypatch.setattr(sources, "POOL_BYTES", 0)
    monkeypatch.setattr(sources, "CHUNK_BYTES", 1)
    # The reading process fails on the first share it takes; this one waits to read its own
    # until that has happened, so that the other is sure to take one.
    started = multiprocessing.get_context("fork").Event()
    here, read_one = os.getpid(), sources._read_one

    def failing(item: Any) -> Any:
        if os.getpid() != here:
            started.set()
            raise ValueError("disk on fire")
        assert started.wait(60)
        return read_one(item)

    monkeypatch.setattr(sources, "_read_one", failing)
    with pytest.raises(RuntimeError, match=r"(?s)a reading process failed.*disk on fire"):
        analyze([logs], jobs=2)


def test_a_files_result_crosses_processes_whole() -> None:
    import dataclasses
    import pickle

    import msgspec

    from prefixlock.analyze.model import Event, FileResult, Request

    req = Request("codex", "s", "main", "k", 1.0, 2.0, "gpt-5", 1, 2, 3, 4, 5, 6, False, "fast",
                  "f.jsonl", 7, 8, "/p", 0.5, True, True, "c", "r", True, (1, 2), True)  # fmt: skip
    assert all(
        v != f.default
        for f, v in zip(msgspec.structs.fields(Request), msgspec.structs.astuple(req), strict=True)
    )
    got = FileResult("f.jsonl", "codex", [req], [Event("s", "main", "compaction", 1.0, "e")])
    got.notes["lines"] = 3
    got.prompts, got.live_prompts, got.projects = {"s": 1}, {"s": 1}, {"s": "/p"}
    got.texts, got.session, got.parent = {("s", 1): "hi"}, "s", "parent"
    assert all(getattr(got, f.name) for f in dataclasses.fields(FileResult))  # every field set
    assert pickle.loads(pickle.dumps(got)) == got
