"""The Mooncake reader's fast paths read every trace exactly as parsing each line whole does:
the same arrays, or the same error on the same line. The fastest (`_plain_lines`: a batch of
lines written as the published traces are, read by one regular expression and numpy) and the
fast one (each line's `hash_ids` cut out and parsed by numpy, the rest by JSON) each leave the
lines they are not sure of to the next."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from prefixlock.sim import tracefile as trace_mod
from prefixlock.sim.trace import Trace, TraceError
from prefixlock.sim.tracefile import read_trace

FIELDS = (
    "ids",
    "tokens",
    "starts",
    "times",
    "input_len",
    "output_len",
    "session",
    "tenant",
    "model",
    "cache_key",
)


def _read(path: Path, paths: int, monkeypatch: pytest.MonkeyPatch, **kw: Any) -> Trace | str:
    """Read with the fast paths down to `paths` (2: both, 1: no `_plain_lines`, 0: none)."""
    with monkeypatch.context() as m:
        if paths < 2:
            m.setattr(trace_mod, "_plain_lines", lambda data: None)
        if paths < 1:
            m.setattr(trace_mod, "_split_hash_ids", lambda texts: None)
        try:
            return read_trace(path, fmt="mooncake", **kw)
        except TraceError as exc:
            return f"{type(exc).__name__}: {exc}"


def _same(path: Path, monkeypatch: pytest.MonkeyPatch, **kw: Any) -> Trace | str:
    slow = _read(path, 0, monkeypatch, **kw)
    for paths in (2, 1):
        fast = _read(path, paths, monkeypatch, **kw)
        if isinstance(fast, str) or isinstance(slow, str):
            assert fast == slow
            continue
        for f in FIELDS:
            a, b = getattr(fast, f), getattr(slow, f)
            assert a.dtype == b.dtype and np.array_equal(a, b), f
        assert (fast.block_size, fast.skipped, fast.models, fast.name) == (
            slow.block_size,
            slow.skipped,
            slow.models,
            slow.name,
        )
    return slow


def _write(path: Path, lines: list[str]) -> Path:
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_the_usual_lines_take_the_fast_path(tmp_path: Path) -> None:
    lines = [
        json.dumps(
            {
                "timestamp": 3 * i,
                "input_length": 700,
                "output_length": 2,
                "hash_ids": [0, 10 * i + 1, 10 * i + 2],
            }
        )
        for i in range(5)
    ]
    got = trace_mod._split_hash_ids(lines)
    assert got is not None
    rest, ids, counts = got
    assert ids.tolist() == [x for line in lines for x in json.loads(line)["hash_ids"]]
    assert counts == [3] * 5 and json.loads(rest[0])["hash_ids"] == 0
    compact = [line.replace(" ", "") for line in lines]
    assert trace_mod._split_hash_ids(compact) is not None


@pytest.mark.parametrize(
    "line",
    [
        '{"timestamp": 0, "input_length": 9, "hash_ids": [01, 2]}',  # not JSON
        '{"timestamp": 0, "input_length": 9, "hash_ids": [1 2]}',  # not JSON
        '{"timestamp": 0, "input_length": 9, "hash_ids": [1, , 2]}',
        '{"timestamp": 0, "input_length": 9, "hash_ids": [1, 2,]}',
        '{"timestamp": 0, "input_length": 9, "hash_ids": []}',
        '{"timestamp": 0, "input_length": 9, "hash_ids": [-1]}',
        '{"timestamp": 0, "input_length": 9, "hash_ids": [1.0, 2]}',
        '{"timestamp": 0, "input_length": 9, "hash_ids": [1e3]}',
        '{"timestamp": 0, "input_length": 9, "hash_ids": [true]}',
        '{"timestamp": 0, "input_length": 9, "hash_ids": ["a", "b"]}',
        '{"timestamp": 0, "input_length": 9, "hash_ids": [[1], [2]]}',
        '{"timestamp": 0, "input_length": 9, "hash_ids": [4611686018427387904]}',  # 2**62
        '{"timestamp": 0, "input_length": 9, "hash_ids": [4611686018427387903]}',  # 19 digits
        '{"timestamp": 0, "input_length": 9, "hash_ids": [99999999999999999999999]}',
        '{"timestamp": 0, "input_length": 9, "hash_ids": [١]}',  # an Arabic-Indic digit
        '{"timestamp": 0, "input_length": 9, "hash_ids": [1], "hash_ids": [2]}',
        '{"timestamp": 0, "input_length": 9, "x\\"hash_ids": [1]}',
        '{"timestamp": 0, "input_length": 9, "note": "\\"hash_ids\\": [1]", "hash_ids": [3]}',
        '{"timestamp": 0, "input_length": 9, "k": "hash_ids", "hash_ids": [3]}',
        '{"timestamp": 0, "input_length": 9, "hash_ids": 5, "other": [1]}',
        '{"timestamp": 0, "input_length": 9, "hash_ids" : [ 1 ,2 ]}',
        '{"timestamp": 0, "input_length": 9, "hash_ids":\t[1,\t2]}',
        '{"hash_ids": [5, 6], "timestamp": 0, "input_length": 9}',
        '{  "hash_ids": [5], "timestamp": 0, "input_length": 9}',
        '{"timestamp": 0, "input_length": 9, "hash_ids": [0, 1]',  # not closed
        '{"timestamp": 0, "input_length": 9, "meta": {"hash_ids": [7]}, "hash_ids": [1]}',
        '[{"hash_ids": [1]}]',
        '"hash_ids": [1]',
    ],
)
@pytest.mark.parametrize("skip_bad", [False, True])
def test_odd_lines_read_as_the_whole_parse_reads_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, line: str, skip_bad: bool
) -> None:
    good = '{"timestamp": 0, "input_length": 600, "output_length": 1, "hash_ids": [1, 2]}'
    path = _write(tmp_path / "t.jsonl", [good, line, good.replace("[1, 2]", "[1, 3]")])
    _same(path, monkeypatch, skip_bad=skip_bad)


ID = st.one_of(
    st.integers(0, 2**62 - 1),
    st.integers(0, 50),
    st.sampled_from(["a", "b", "", 1.5, True, None, -3, 2**62, 2**64]),
)
RECORD = st.fixed_dictionaries(
    {"hash_ids": st.lists(ID, max_size=6)},
    optional={
        "timestamp": st.one_of(st.integers(0, 10**6), st.floats(0, 1e6), st.just("x")),
        "input_length": st.one_of(st.integers(-1, 5000), st.just(2.0), st.just(None)),
        "output_length": st.integers(0, 50),
        "session_id": st.sampled_from(["s1", "s2", 3]),
        "tenant": st.integers(0, 3),
        "block_size": st.sampled_from([16, 512]),
    },
)
LINE = st.one_of(
    st.tuples(RECORD, st.sampled_from([(", ", ": "), (",", ":"), (" ,  ", " :\t")])).map(
        lambda r: json.dumps(r[0], separators=r[1])
    ),
    st.sampled_from(["", "{broken", "[1, 2]", "null"]),
)


PLAIN = st.builds(
    lambda ts, n, ids, sep: json.dumps(
        {"timestamp": ts, "input_length": n, "output_length": 3, "hash_ids": ids}, separators=sep
    ),
    st.integers(0, 10**6),
    st.integers(1, 9000),
    st.lists(st.one_of(st.integers(0, 60), st.integers(0, 10**18 - 1)), min_size=1, max_size=9),
    st.sampled_from([(", ", ": "), (",", ":")]),
)
SETTINGS = settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)


@SETTINGS
@given(st.lists(LINE, min_size=1, max_size=12), st.booleans(), st.integers(0, 4))
def test_any_trace_reads_the_same_both_ways(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, lines: list[str], skip_bad: bool, limit: int
) -> None:
    _same(_write(tmp_path / "t.jsonl", lines), monkeypatch, skip_bad=skip_bad, limit=limit)


@SETTINGS
@given(st.lists(PLAIN, min_size=1, max_size=12), st.integers(0, 4))
def test_plain_traces_read_fast_and_the_same(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, lines: list[str], limit: int
) -> None:
    assert trace_mod._split_hash_ids(lines) is not None
    published = [line for line in lines if '"hash_ids": [' in line]  # json.dumps' own spacing
    if published:
        data = "\n".join(published).encode()
        assert trace_mod._plain_lines(data) is not None
    lines = sorted(lines, key=lambda line: json.loads(line)["timestamp"])
    got = _same(_write(tmp_path / "t.jsonl", lines), monkeypatch, limit=limit)
    assert isinstance(got, Trace)


def _published(i: int, ids: list[int] | None = None) -> str:
    return json.dumps(
        {
            "timestamp": 7 * i,
            "input_length": 1000 + i,
            "output_length": i % 5,
            "hash_ids": ids if ids is not None else [0, 3 * i + 1, 3 * i + 2],
        }
    )


def test_published_lines_read_from_the_bytes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Lines as the published traces write them are read from the file's bytes, never as text
    lines, and give what the whole parse gives."""
    lines = [_published(i) for i in range(5)]
    got = trace_mod._plain_lines("\n".join(lines).encode())
    assert got is not None
    times, inp, out, ids, per_line = got
    records = [json.loads(line) for line in lines]
    assert times.tolist() == [r["timestamp"] / 1000.0 for r in records]
    assert inp.tolist() == [r["input_length"] for r in records]
    assert out.tolist() == [r["output_length"] for r in records]
    assert ids.tolist() == [x for r in records for x in r["hash_ids"]]
    assert per_line.tolist() == [3] * 5
    path = _write(tmp_path / "t.jsonl", [_published(i) for i in range(4500)])
    with monkeypatch.context() as m:
        m.setattr(trace_mod, "_batches", None)  # not called
        ticks: list[int] = []
        fast = read_trace(path, fmt="mooncake", on_progress=ticks.append)
        assert ticks == [2000, 4000, 4500]
    slow = _same(path, monkeypatch)
    assert isinstance(slow, Trace) and fast.requests == 4500
    for f in FIELDS:
        assert np.array_equal(getattr(fast, f), getattr(slow, f)), f


@pytest.mark.parametrize(
    "line",
    [
        '{"timestamp": 007, "input_length": 9, "output_length": 1, "hash_ids": [1, 2]}',
        '{"timestamp": 0, "input_length": 0, "output_length": 1, "hash_ids": [1, 2]}',
        '{"timestamp": 0, "input_length": 1234567890123456, "output_length": 1, "hash_ids": [1]}',
        '{"timestamp": 0, "input_length": 123456789012345, "output_length": 1, "hash_ids": [1]}',
        '{"timestamp": 1234567890123456, "input_length": 9, "output_length": 1, "hash_ids": [1]}',
        '{"timestamp": 0, "input_length": 9, "output_length": -1, "hash_ids": [1]}',
        '{"timestamp": 1.5, "input_length": 9, "output_length": 1, "hash_ids": [1]}',
        _published(0, [10**18]),  # 19 digits
        _published(0, [10**18 - 1]),  # 18
        '{"timestamp": 0, "input_length": 9, "output_length": 1, "hash_ids": [1 ,2]}',
        '{"timestamp": 0, "input_length": 9, "output_length": 1, "hash_ids": [ 1, 2]}',
        '{"timestamp": 0, "input_length": 9, "output_length": 1, "hash_ids": [1,  2]}',
        '{"timestamp": 0, "input_length": 9, "output_length": 1, "hash_ids": [1, 2 ]}',
        '{"timestamp": 0, "input_length": 9, "output_length": 1, "hash_ids": [1,2]}',
        '{"timestamp": 0, "input_length": 9, "output_length": 1, "hash_ids": [1, , 2]}',
        '{"timestamp": 0, "input_length": 9, "output_length": 1, "hash_ids": [01]}',
        '{"timestamp": 0, "input_length": 9, "output_length": 1, "hash_ids": [, 1]}',
        '{"timestamp": 0, "input_length": 9, "output_length": 1, "hash_ids": [1], "x": 1}',
        '{"input_length": 9, "timestamp": 0, "output_length": 1, "hash_ids": [1]}',
        '  {"timestamp": 0, "input_length": 9, "output_length": 1, "hash_ids": [1]}  ',
        '{"timestamp": 0, "input_length": 9, "output_length": 1, "hash_ids": [1]}\r',
        '\ufeff{"timestamp": 0, "input_length": 9, "output_length": 1, "hash_ids": [1]}',
        '{"timestamp": 0, "input_length": 9, "output_length": 1, "hash_ids": [1]}{}',
        '{"timestamp": 0, "input_length": 9, "output_length": 1, "hash_ids": [١]}',
        "",
        "   ",
    ],
)
@pytest.mark.parametrize("at", [0, 3, 5])
def test_lines_almost_as_published_read_as_the_whole_parse_reads_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, line: str, at: int
) -> None:
    """An odd line among published ones, in the first, a middle or the last batch (of 2), is
    read or reported as the line-by-line reader does, whatever path its batch takes."""
    monkeypatch.setattr(trace_mod, "BATCH", 2)
    lines = [_published(i, [0, 3 * i + 1]) for i in range(6)]
    lines.insert(at, line)
    path = tmp_path / "t.jsonl"
    path.write_bytes(("\n".join(lines) + "\n").encode("utf-8"))
    for skip_bad in (False, True):
        for limit in (0, 2, 4):
            _same(path, monkeypatch, skip_bad=skip_bad, limit=limit)


@SETTINGS
@given(
    st.lists(st.one_of(PLAIN, st.builds(_published, st.integers(0, 99)), LINE), max_size=14),
    st.integers(1, 4),
    st.integers(0, 5),
    st.booleans(),
)
def test_any_mix_reads_the_same_in_batches_of_any_size(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    lines: list[str],
    batch: int,
    limit: int,
    newline_at_end: bool,
) -> None:
    monkeypatch.setattr(trace_mod, "BATCH", batch)
    path = tmp_path / "t.jsonl"
    path.write_text("\n".join(lines) + ("\n" if newline_at_end else ""), encoding="utf-8")
    _same(path, monkeypatch, limit=limit)


def test_gzip_reads_the_same_and_a_broken_one_fails_the_same(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import gzip

    path = tmp_path / "t.jsonl.gz"
    text = "\n".join(_published(i) for i in range(2500)) + "\n"
    path.write_bytes(gzip.compress(text.encode()))
    assert isinstance(_same(path, monkeypatch), Trace)
    path.write_bytes(gzip.compress(text.encode())[:-30])  # cut short
    with pytest.raises(EOFError):
        read_trace(path)
    with monkeypatch.context() as m:
        m.setattr(trace_mod, "_plain_lines", lambda data: None)
        m.setattr(trace_mod, "_split_hash_ids", lambda texts: None)
        with pytest.raises(EOFError):
            read_trace(path)


def test_batches_mix_both_paths(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A batch with one string id goes the whole way; the batches around it stay fast."""
    lines = [
        json.dumps({"timestamp": i, "input_length": 1500, "hash_ids": [1, i + 2, i + 3]})
        for i in range(5000)
    ]
    lines[2500] = json.dumps({"timestamp": 2500, "input_length": 900, "hash_ids": ["x", "y"]})
    got = _same(_write(tmp_path / "t.jsonl", lines), monkeypatch)
    assert isinstance(got, Trace) and got.requests == 5000
    assert got.ids[got.starts[2500]] >= 2**62  # the interned string
