"""A seeded fuzz of the trace readers: 1,000 mutated traces (Mooncake and prefixlock lines), each
either read or refused with one `TraceError` naming the file and line; never another exception.
Also the nesting-depth limit, which would otherwise end in Python's RecursionError."""

from __future__ import annotations

import gzip
import json
import random
from pathlib import Path

import pytest

from prefixlock.sim.simulate import SimConfig, simulate
from prefixlock.sim.trace import TraceError
from prefixlock.sim.tracefile import MAX_DEPTH, read_trace

DATA = Path(__file__).parent / "data"
SEED = 20261204
TRACES = 1000

_PREFIXLOCK = [
    json.dumps(
        {
            "time": 1_700_000_000 + 1.5 * i,
            "session_id": f"s{i % 3}",
            "model": "m",
            "body": {"messages": [{"role": "user", "content": "x " * (40 + i)}]},
            "usage": {"output": 10},
        }
    )
    for i in range(6)
]


def _mooncake_lines() -> list[str]:
    with gzip.open(DATA / "synthetic_head1500.jsonl.gz", "rt", encoding="utf-8") as f:
        return [next(f).rstrip("\n") for _ in range(12)]


_ODD = [
    "",
    "null",
    "[]",
    "{}",
    "1e999",
    "-1",
    "NaN",
    "true",
    '"text"',
    "[" * 5000 + "]" * 5000,
    '{"a": ' * 3000 + "1" + "}" * 3000,
    "\ufeff{}",
    "\x00",
    '{"timestamp": 1e308, "input_length": 1, "hash_ids": [1]}',
    '{"timestamp": 0, "input_length": 99999999999999999999, "hash_ids": [1]}',
    '{"timestamp": 0, "input_length": 1, "hash_ids": [' + "[" * 2000 + "]" * 2000 + "]}",
    '{"timestamp": 0, "input_length": 1, "hash_ids": [{"x": 1}]}',
    '{"timestamp": 0, "input_length": 1, "hash_ids": [1.5]}',
    '{"timestamp": 0, "input_length": 1, "hash_ids": [-3]}',
    '{"timestamp": 0, "input_length": 1, "hash_ids": [' + "9" * 40 + "]}",
    '{"timestamp": "soon", "input_length": 1, "hash_ids": [1]}',
    '{"timestamp": 0, "input_length": 1, "hash_ids": [1], "block_size": 0}',
    '{"ts": "x", "body": 3}',
    '{"ts": 0, "body": {"messages": "hello"}}',
    '{"ts": 0, "body": {"messages": [{"role": "user", "content": ['
    + "[" * 3000
    + "]" * 3000
    + "]}]}}",
]


def _mutate(rng: random.Random, lines: list[str]) -> str:
    out = list(lines)
    for _ in range(rng.randint(1, 4)):
        i = rng.randrange(len(out))
        kind = rng.randrange(8)
        line = out[i]
        if kind == 0 and line:  # flip a character
            j = rng.randrange(len(line))
            out[i] = (
                line[:j]
                + chr(rng.choice([0, 34, 44, 58, 91, 93, 123, 125, 0xFFFD]))
                + line[j + 1 :]
            )
        elif kind == 1:  # cut the line short
            out[i] = line[: rng.randrange(len(line) + 1)]
        elif kind == 2:  # an odd line
            out.insert(i, rng.choice(_ODD))
        elif kind == 3:  # drop a line
            del out[i]
            if not out:
                out = [rng.choice(_ODD)]
        elif kind == 4:  # change a value's type
            try:
                rec = json.loads(line)
            except ValueError:
                continue
            if isinstance(rec, dict) and rec:
                key = rng.choice(sorted(rec))
                rec[key] = rng.choice([None, "x", -1, 0, 1.5, [], {}, True, 2**70, float("inf")])
                out[i] = json.dumps(rec)
        elif kind == 5:  # duplicate a line
            out.insert(i, line)
        elif kind == 6:  # swap two lines (time can go backwards)
            k = rng.randrange(len(out))
            out[i], out[k] = out[k], out[i]
        else:  # raw bytes that are not UTF-8 are written separately
            out[i] = line + rng.choice(["", " ", "\t", "\r"])
    return "\n".join(out) + "\n"


def test_a_thousand_mutated_traces_end_in_a_trace_or_one_error(tmp_path: Path) -> None:
    rng = random.Random(SEED)
    bases = {"mooncake": _mooncake_lines(), "prefixlock": _PREFIXLOCK}
    outcomes = {"read": 0, "refused": 0}
    for n in range(TRACES):
        fmt = "mooncake" if n % 2 == 0 else "prefixlock"
        f = tmp_path / f"t{n}.jsonl"
        text = _mutate(rng, bases[fmt])
        if n % 50 == 7:
            f.write_bytes(text.encode("utf-8")[: rng.randrange(1, 400)] + b"\xff\xfe")
        else:
            f.write_text(text, "utf-8", errors="replace")
        skip_bad = n % 5 == 0
        try:
            trace = read_trace(f, skip_bad=skip_bad)
        except TraceError as exc:
            message = str(exc)
            assert "\n" not in message and len(message) < 600, message
            outcomes["refused"] += 1
        else:
            simulate(trace, SimConfig(price=None, capacity=8))
            outcomes["read"] += 1
        f.unlink()
    assert outcomes["read"] > 100 and outcomes["refused"] > 100, outcomes


@pytest.mark.parametrize("fmt", ["mooncake", "prefixlock"])
def test_nesting_past_the_limit_is_one_error(tmp_path: Path, fmt: str) -> None:
    deep = "[" * (MAX_DEPTH + 5) + "]" * (MAX_DEPTH + 5)
    line = (
        '{"timestamp": 0, "input_length": 1, "hash_ids": [1], "x": ' + deep + "}"
        if fmt == "mooncake"
        else '{"time": 0, "model": "m", "body": {"messages": [], "x": ' + deep + "}}"
    )
    f = tmp_path / "deep.jsonl"
    f.write_text(_mooncake_lines()[0] + "\n" + line + "\n" if fmt == "mooncake" else line + "\n")
    with pytest.raises(TraceError, match="nested deeper than"):
        read_trace(f, fmt=fmt)
