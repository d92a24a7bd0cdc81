"""`prefixlock analyze` beside ccusage on a gigabyte of real-shaped logs, in the same run.

    .venv/bin/python -m pytest tests/benchmarks/bench_analyze.py -s
    ANALYZE_BENCH_GB=0.2 .venv/bin/python -m pytest tests/benchmarks/bench_analyze.py -s
    .venv/bin/python tests/benchmarks/bench_analyze.py [GB]

The corpus is made by a written procedure, before either tool runs: the public sample sessions
of tests/analyze/data (one real Claude Code 1.0.108 session with inline subagents, two
synthetic Claude Code files shaped like 2.x and ccusage's fixture, ccusage's Codex fixture; see
data/SOURCES.md) copied until GB_TARGET bytes are written. Copy k gets new ids (every UUID, and
every msg_/req_/toolu_ id and session id, hashed with k) and its timestamps moved k x 3 hours
later, so that no two copies share a request and sessions spread over months. Files lie where
the tools look: CLAUDE_CONFIG_DIR/projects/<project>/<sessionId>.jsonl and
CODEX_HOME/sessions/YYYY/MM/DD/rollout-<id>.jsonl (HOME is an empty folder).

Both tools run as installed: ccusage's native binary, and prefixlock with its modules
byte-compiled first (as pip compiles a wheel it installs; without it, an environment with
PYTHONDONTWRITEBYTECODE, as CI's, compiles every module again on each run). Both write their
JSON report to a file: ccusage 20.0.24 (the Rust build from the npm
registry, `ccusage session --json --offline`, which reads Claude Code and Codex in one run) and
`prefixlock analyze ROOT --format json -o FILE` (its default --jobs: the CPUs). Each runs
ROUNDS times, alternating; printed per round: wall seconds, CPU seconds (user + system, the
process and its children) and peak memory (the largest resident set of the process tree's
members), and the medians. Goals, asserted on the medians: our wall and CPU at most ccusage's,
our peak memory at most ccusage's. On every session made from the real session, and on every
Codex session, the token totals (uncached input, cache read, cache write, output) equal
ccusage's. Skipped where npm or the registry is unavailable.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "tests" / "analyze" / "data"
REAL = "ccv-5c0375b4-57a5-4f26-b12d-d022ee4e51b7.jsonl"
GB_TARGET = float(os.environ.get("ANALYZE_BENCH_GB", "1.0"))
ROUNDS = int(os.environ.get("ANALYZE_BENCH_ROUNDS", "3"))
CCUSAGE = ("ccusage@20.0.24", "@ccusage/ccusage-linux-x64@20.0.24")

_ID = (
    r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"
    r"|(?:msg|req|toolu)[_-][A-Za-z0-9-]+|(?<=\"sessionId\":\")[^\"]+"
)
_TS = r'"timestamp":"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?Z)"'
_PARTS = re.compile(f"{_ID}|{_TS}")
Template = list[Any]


def template(text: str) -> Template:
    """`text` cut at each id and timestamp, so that a copy is a join."""
    parts: Template = []
    pos = 0
    for m in _PARTS.finditer(text):
        parts.append(text[pos : m.start()])
        pos = m.end()
        if m.group(1):
            parts.append(("ts", datetime.fromisoformat(m.group(1).replace("Z", "+00:00"))))
        else:
            parts.append(("id", m.group(0)))
    parts.append(text[pos:])
    return parts


def new_id(k: int, old: str) -> str:
    if re.fullmatch(r"(?:msg|req|toolu)[_-][A-Za-z0-9-]+", old):
        return f"{old}x{k:05d}"
    return str(uuid.UUID(bytes=hashlib.md5(f"{k}:{old}".encode()).digest()))


def render(parts: Template, k: int) -> str:
    shift = timedelta(hours=3 * k)
    out = []
    for p in parts:
        if isinstance(p, str):
            out.append(p)
        elif p[0] == "ts":
            t = (p[1] + shift).isoformat(timespec="milliseconds").replace("+00:00", "Z")
            out.append(f'"timestamp":"{t}"')
        else:
            out.append(new_id(k, p[1]))
    return "".join(out)


def replicate(root: Path, target: int) -> dict[str, int]:
    """Copies of the sample sessions under root/claude and root/codex until `target` bytes;
    returns the count of files of each kind."""
    cc = {p.name: template(p.read_text("utf-8")) for p in sorted((DATA / "claude-code").glob("*"))}
    codex = template((DATA / "codex" / "ccusage-session-alpha.jsonl").read_text("utf-8"))
    counts = {"real": 0, "synthetic": 0, "codex": 0}
    total, k = 0, 0
    while total < target:
        k += 1
        # Every copy holds the real session; one in ten also the synthetic ones.
        names = [REAL] if k % 10 else sorted(cc)
        for name in names:
            text = render(cc[name], k)
            sid = re.search(r'"sessionId":"([^"]+)"', text)
            assert sid is not None
            f = root / "claude" / "projects" / f"p{k % 40:02d}" / f"{sid.group(1)}.jsonl"
            f.parent.mkdir(parents=True, exist_ok=True)
            f.write_text(text, "utf-8")
            total += len(text.encode())
            counts["real" if name == REAL else "synthetic"] += 1
        if k % 10 == 0:
            text = render(codex, k)
            day = root / "codex" / "sessions" / "2026" / "05" / f"{k % 28 + 1:02d}"
            day.mkdir(parents=True, exist_ok=True)
            (day / f"rollout-2026-05-01T09-00-00-{new_id(k, 'codex')}.jsonl").write_text(text)
            total += len(text.encode())
            counts["codex"] += 1
    return counts


def install_ccusage(folder: Path) -> Path | None:
    npm = shutil.which("npm")
    if npm is None:
        return None
    try:
        subprocess.run(
            [npm, "install", "--prefix", str(folder), "--no-audit", "--no-fund", *CCUSAGE],
            check=True, capture_output=True, timeout=300,
        )  # fmt: skip
    except (subprocess.SubprocessError, OSError):
        return None
    exe = folder / "node_modules" / ".bin" / "ccusage"
    try:
        subprocess.run([str(exe), "--version"], check=True, capture_output=True, timeout=60)
    except (subprocess.SubprocessError, OSError):
        return None  # no native binary for this platform
    return exe


def measure(cmd: list[str], env: dict[str, str]) -> tuple[float, float, float]:
    """(wall s, CPU s, peak MB) of one command and its children."""
    start = time.perf_counter()
    with tempfile.TemporaryFile() as err:
        proc = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=err)
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - start
        proc.returncode = os.waitstatus_to_exitcode(status)
        err.seek(0)
        assert proc.returncode == 0, (cmd, err.read())
    # wait4's ru_maxrss is the largest of the process and its waited-for children, in KB.
    return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024


def _theirs(path: Path) -> dict[str, tuple[int, int, int, int]]:
    out = {}
    for s in json.loads(path.read_text())["session"]:
        name = s["period"].rsplit("/", 1)[-1]
        out[name] = (s["inputTokens"], s["cacheReadTokens"], s["cacheCreationTokens"],
                     s["outputTokens"])  # fmt: skip
    return out


def _ours(path: Path) -> tuple[dict[str, tuple[int, int, int, int]], dict[str, Any]]:
    rep = json.loads(path.read_text())
    out = {}
    for s in rep["sessions"]:
        t = s["tokens"]
        w = t["cache_write_5m"] + t["cache_write_1h"] + t["cache_write_unsplit"]
        out[s["session"]] = (t["uncached_input"], t["cache_read"], w, t["output"])
    return out, rep


def run(tmp: Path, gb: float = GB_TARGET, rounds: int = ROUNDS) -> dict[str, Any]:
    exe = install_ccusage(tmp / "npm")
    if exe is None:
        pytest.skip(f"{' '.join(CCUSAGE)} not installable here (npm, registry or platform)")
    logs = tmp / "logs"
    counts = replicate(logs, int(gb * 1e9))
    size = sum(f.stat().st_size for f in logs.rglob("*.jsonl"))
    home = tmp / "home"
    home.mkdir()
    env = dict(os.environ, HOME=str(home), CLAUDE_CONFIG_DIR=str(logs / "claude"),
               CODEX_HOME=str(logs / "codex"))  # fmt: skip
    prefixlock = str(Path(sys.executable).parent / "prefixlock")
    where = "import os, prefixlock; print(os.path.dirname(prefixlock.__file__))"
    package = subprocess.run(
        [sys.executable, "-c", where], check=True, capture_output=True, text=True
    ).stdout.strip()
    subprocess.run([sys.executable, "-m", "compileall", "-q", package], check=True)
    ours_json = tmp / "ours.json"
    cmds = {
        "ccusage": [str(exe), "session", "--json", "--offline"],
        "prefixlock": [prefixlock, "analyze", str(logs), "--format", "json", "-o", str(ours_json)],
    }
    figures: dict[str, list[tuple[float, float, float]]] = {k: [] for k in cmds}
    for _ in range(rounds):
        for name, cmd in cmds.items():
            if name == "ccusage":
                with open(tmp / "theirs.json", "wb") as fh:
                    start = time.perf_counter()
                    proc = subprocess.Popen(cmd, env=env, stdout=fh)
                    _, status, usage = os.wait4(proc.pid, 0)
                    assert os.waitstatus_to_exitcode(status) == 0
                    figures[name].append((time.perf_counter() - start,
                                          usage.ru_utime + usage.ru_stime,
                                          usage.ru_maxrss / 1024))  # fmt: skip
            else:
                figures[name].append(measure(cmd, env))
    theirs = _theirs(tmp / "theirs.json")
    ours, rep = _ours(tmp / "ours.json")
    diff = [s for s in ours if s in theirs and ours[s] != theirs[s]]
    missing = [s for s in ours if s not in theirs]
    med = {
        k: tuple(statistics.median(x[i] for x in v) for i in range(3)) for k, v in figures.items()
    }
    print(f"\n{size / 1e9:.2f} GB, {counts} files; {len(ours):,} sessions, "
          f"{rep['totals']['requests']:,} requests; load average {os.getloadavg()[0]:.1f} on "
          f"{os.cpu_count()} CPUs")  # fmt: skip
    for name, rows in figures.items():
        each = "; ".join(f"{w:.2f} s wall, {c:.2f} s CPU, {m:.0f} MB" for w, c, m in rows)
        w, c, m = med[name]
        print(f"{name}: median {w:.2f} s wall, {c:.2f} s CPU, {m:.0f} MB peak  ({each})")
    ratio = [o / t for o, t in zip(med["prefixlock"], med["ccusage"], strict=True)]
    print(f"prefixlock / ccusage, medians of the same run: wall {ratio[0]:.2f}x, CPU "
          f"{ratio[1]:.2f}x, peak memory {ratio[2]:.2f}x")  # fmt: skip
    print(f"sessions compared with ccusage: {len([s for s in ours if s in theirs]):,}, "
          f"token totals different: {len(diff)}, not found there: {len(missing)}")  # fmt: skip
    return {"median": med, "diff": diff, "missing": missing, "compared": len(theirs)}


def test_faster_than_ccusage_on_a_gigabyte_with_equal_token_totals(tmp_path: Path) -> None:
    got = run(tmp_path)
    assert not got["diff"] and not got["missing"]
    ours, theirs = got["median"]["prefixlock"], got["median"]["ccusage"]
    assert ours[0] <= theirs[0], "wall"
    assert ours[1] <= theirs[1], "CPU"
    assert ours[2] <= theirs[2], "peak memory"


if __name__ == "__main__":
    with tempfile.TemporaryDirectory() as d:
        run(Path(d), float(sys.argv[1]) if len(sys.argv) > 1 else GB_TARGET)
