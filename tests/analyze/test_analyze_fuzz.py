"""`prefixlock analyze` on mutated logs: whatever a file holds, the command ends with a report
(exit 0) or one clear message (exit 2), never a traceback. Each case is a valid sample file
(tests/analyze/data, and small Codex, Gemini and OpenCode files) with seeded mutations: flipped
and dropped bytes, invalid UTF-8, cut lines, deep nesting, huge and non-finite numbers,
timestamps out of range, lone surrogate escapes, values of the wrong kind, duplicated lines. A
quick count runs by default; 1,000 cases in the slow-marked test."""

from __future__ import annotations

import json
import random
from collections import Counter
from pathlib import Path

import pytest

from prefixlock.cli.main import main
from tests.analyze.logkit import CC, CODEX

QUICK, FULL = 40, 1000

GEMINI = json.dumps({
    "sessionId": "g1", "projectHash": "h", "startTime": "2026-03-01T09:00:00Z",
    "messages": [
        {"id": "m1", "type": "user", "timestamp": "2026-03-01T09:00:00Z", "content": "hi"},
        {"id": "m2", "type": "gemini", "timestamp": "2026-03-01T09:00:05Z",
         "model": "gemini-2.5-pro", "tokens": {"input": 12000, "output": 300, "cached": 8000,
                                               "thoughts": 10, "tool": 0, "total": 12310}},
    ],
})  # fmt: skip
OPENCODE = json.dumps({
    "id": "msg_1", "sessionID": "ses_1", "role": "assistant", "modelID": "claude-sonnet-4-5",
    "providerID": "anthropic", "time": {"created": 1772355600000, "completed": 1772355605000},
    "tokens": {"input": 10, "output": 200, "reasoning": 0, "cache": {"read": 9000, "write": 500}},
    "cost": 0.01,
})  # fmt: skip


def _samples() -> list[tuple[str, bytes]]:
    out = [(p.name, p.read_bytes()) for p in sorted(CC.glob("*.jsonl"))]
    out.append(("rollout-2026-05-13T09-00-00-x.jsonl", CODEX.read_bytes()))
    out.append(("session-2026-03-01T09-00-g1.json", GEMINI.encode()))
    out.append(("msg_1.json", OPENCODE.encode()))
    return out


_STRINGS = [
    b'"timestamp":"0001-01-01T00:00:00+14:00"', b'"timestamp":"9999-12-31T23:59:59-14:00"',
    b'"timestamp":1e300', b'"timestamp":-99999999999999', b'"\\ud800"', b'"\\udfff\\ud800"',
    b"1e999", b"-1", b"NaN", b"Infinity", b"123456789012345678901234567890", b"null", b"[]",
    b"{}", b'"x"', b"true", b"\xff\xfe", b"\x00", b"\n", b"\r\n",
]  # fmt: skip


def mutate(data: bytes, rng: random.Random) -> bytes:
    """One to four mutations of `data`."""
    buf = bytearray(data)
    for _ in range(rng.randint(1, 4)):
        op = rng.randrange(9)
        at = rng.randrange(len(buf) + 1)
        if op == 0 and buf:  # flip a byte
            buf[min(at, len(buf) - 1)] ^= 1 << rng.randrange(8)
        elif op == 1:  # cut the file
            del buf[at:]
        elif op == 2:  # deep nesting in place of a value
            n = rng.choice((50, 2_000, 200_000))
            deep = b"[" * n + b"]" * n
            colon = buf.find(b":", at)
            if colon >= 0:
                buf[colon + 1 : colon + 1] = deep + b","
        elif op == 3:  # an odd value after a key
            colon = buf.find(b":", at)
            if colon >= 0:
                end = colon + 1 + rng.randrange(12)
                buf[colon + 1 : end] = rng.choice(_STRINGS)
        elif op == 4:  # an odd fragment anywhere
            buf[at:at] = rng.choice(_STRINGS)
        elif op == 5:  # drop a run of bytes
            del buf[at : at + rng.randrange(1, 200)]
        elif op == 6:  # repeat a line
            lines = bytes(buf).split(b"\n")
            k = rng.randrange(len(lines))
            lines.insert(k, lines[k])
            buf = bytearray(b"\n".join(lines))
        elif op == 7:  # a timestamp moved out of range
            i = buf.find(b'"timestamp":"', at)
            if i >= 0:
                j = i + len(b'"timestamp":"')
                buf[j : j + 4] = rng.choice((b"0000", b"0001", b"9999", b"-001"))
        else:  # a number replaced by a huge one
            for i in range(at, min(at + 400, len(buf))):
                if 48 <= buf[i] <= 57:
                    buf[i : i + 1] = rng.choice((b"9" * 400, b"1e309", b"-0", b"0.5"))
                    break
    return bytes(buf)


def run_case(tmp: Path, seed: int, capsys: pytest.CaptureFixture[str]) -> None:
    rng = random.Random(seed)
    name, data = rng.choice(_samples())
    folder = tmp / f"case{seed}"
    folder.mkdir()
    (folder / name).write_bytes(mutate(data, rng))
    fmt = rng.choice(("table", "json", "jsonl", "csv"))
    args = ["analyze", str(folder), "--format", fmt, "--jobs", "1"]
    if rng.random() < 0.5:
        args += ["-o", str(folder / "out"), "--html", str(folder / "page.html")]
    if rng.random() < 0.3:
        args += ["--export-trace", str(folder / "trace.jsonl")]
    try:
        code = main(args)
    except SystemExit as exc:  # argparse's own exit
        code = int(exc.code or 0)
    err = capsys.readouterr().err
    assert code in (0, 2), (seed, name, err)
    if code == 2:
        assert err.startswith("prefixlock: error:") and err.count("\n") == 1, (seed, err)


@pytest.mark.parametrize("seed", range(QUICK))
def test_mutated_logs_end_in_a_report_or_one_clear_message(
    tmp_path: Path, seed: int, capsys: pytest.CaptureFixture[str]
) -> None:
    run_case(tmp_path, seed, capsys)


@pytest.mark.slow
def test_a_thousand_mutated_logs_end_in_a_report_or_one_clear_message(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    failed = []
    for seed in range(FULL):
        try:
            run_case(tmp_path, seed, capsys)
        except Exception as exc:
            failed.append(f"seed {seed}: {type(exc).__name__}: {str(exc)[:300]}")
    kinds = Counter(f.split(": ")[1] for f in failed)
    print(f"\n{FULL} mutated logs: {len(failed)} ended otherwise {dict(kinds)}")
    assert not failed, "\n".join(failed[:20])
