"""`prefixlock analyze` throughput on 1 GB of Claude Code logs, and parity with the real ccusage.

    .venv/bin/python -m pytest tests/benchmarks/bench_analyze.py -s
    .venv/bin/python tests/benchmarks/bench_analyze.py

- Throughput: GB_TARGET of generated session logs (64 files shaped like real Claude Code 2.x
  transcripts: tool results of several KB, assistant lines repeating their request's usage per
  content block, progress lines), read by `prefixlock analyze DIR --format json` as a whole
  process with two reader processes (`--jobs 2`, the 2 cores the goal names). Goal and
  assertion: under 60 s. The baseline, measured in the same run on the same files, is the
  least any reader must do: one process reading every line and `json.loads` of it. The ratio
  to it is printed with the throughput.
- ccusage parity: the real ccusage from the npm registry (18.0.11, the last release that runs
  without a native binary; installed into a temporary folder, skipped where npm or the
  registry is unavailable) on the Claude Code fixtures: input, cache-write and cache-read
  totals equal ours. Its output total is lower: this JS release keeps the first line of each
  request, whose `output_tokens` is partial (codeburn#201); ours follows the Rust rule (the
  line with the larger total), which tests/analyze/test_analyze_parity.py checks.
"""

from __future__ import annotations

import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "tests" / "analyze" / "data" / "claude-code"
GB_TARGET = float(os.environ.get("ANALYZE_BENCH_GB", "1.0"))
FILES = 64
GOAL_S = 60.0
CCUSAGE = "ccusage@18.0.11"


def _template(size: int) -> str:
    """One session of about `size` bytes; SESS stands for the file's own id."""
    lines: list[str] = []
    blob = "x" * 3000
    n, t, read = 0, 0, 20000
    while sum(map(len, lines)) < size:
        n += 1
        t += 7
        ts = f"2026-03-01T{9 + t // 3600 % 12:02d}:{t // 60 % 60:02d}:{t % 60:02d}.000Z"
        head = f'"sessionId":"SESS","version":"2.1.90","cwd":"/w/p","timestamp":"{ts}"'
        lines.append(
            f'{{"parentUuid":"SESS-a{n - 1}","isSidechain":false,"type":"user",{head},'
            f'"uuid":"SESS-u{n}","message":{{"role":"user","content":[{{"type":"tool_result",'
            f'"tool_use_id":"t{n}","content":"{blob}"}}]}}}}'
        )
        lines.append(f'{{"type":"progress",{head},"uuid":"SESS-p{n}","data":{{"n":{n}}}}}')
        usage = (
            f'"usage":{{"input_tokens":6,"cache_creation_input_tokens":900,'
            f'"cache_read_input_tokens":{read},"cache_creation":{{"ephemeral_5m_input_tokens":900,'
            f'"ephemeral_1h_input_tokens":0}},"output_tokens":OUT}}'
        )
        for k, (kind, out) in enumerate((("text", 20), ("tool_use", 180))):
            lines.append(
                f'{{"parentUuid":"SESS-u{n}","isSidechain":false,"type":"assistant",{head},'
                f'"uuid":"SESS-a{n}-{k}","requestId":"req_SESS_{n}","message":{{"id":"msg_SESS_{n}",'
                f'"type":"message","role":"assistant","model":"claude-sonnet-4-5-20250929",'
                f'"content":[{{"type":"{kind}","text":"{blob[:400]}"}}],'
                + usage.replace("OUT", str(out))
                + "}}"
            )
        read += 900
        if read > 160000:
            read = 20000
    return "\n".join(lines) + "\n"


def _generate(folder: Path) -> int:
    per_file = int(GB_TARGET * 1e9 / FILES)
    template = _template(per_file)
    total = 0
    for i in range(FILES):
        data = template.replace("SESS", f"s{i:04d}")
        (folder / f"s{i:04d}.jsonl").write_text(data, encoding="utf-8")
        total += len(data)
    return total


BASELINE = (
    "import json,sys,pathlib\n"
    "n=0\n"
    "for p in sorted(pathlib.Path(sys.argv[1]).glob('*.jsonl')):\n"
    "    with open(p, encoding='utf-8') as fh:\n"
    "        for line in fh:\n"
    "            json.loads(line); n+=1\n"
    "print(n)\n"
)


def _timed(cmd: list[str]) -> tuple[float, float]:
    """(wall seconds, CPU seconds of the process and its children)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
    return wall, cpu


def test_one_gigabyte_under_a_minute_on_two_cores(tmp_path: Path) -> None:
    logs = tmp_path / "logs"
    logs.mkdir()
    size = _generate(logs)
    exe = str(Path(sys.executable).parent / "prefixlock")
    out = tmp_path / "report.json"
    load = os.getloadavg()[0]
    ours, ours_cpu = _timed(
        [exe, "analyze", str(logs), "--jobs", "2", "--format", "json", "-o", str(out)]
    )
    base, base_cpu = _timed([sys.executable, "-c", BASELINE, str(logs)])
    rep = json.loads(out.read_text())
    print(
        f"\nanalyze: {size / 1e9:.2f} GB in {ours:.1f} s wall = {size / 1e6 / ours:.0f} MB/s, "
        f"{ours_cpu:.1f} CPU-s (2 reader processes); baseline json.loads of every line, "
        f"1 process: {base:.1f} s wall, {base_cpu:.1f} CPU-s; "
        f"CPU ratio {ours_cpu / base_cpu:.2f}x; "
        f"{rep['totals']['requests']:,} requests from "
        f"{rep['notes']['usage_lines']['count']:,} usage lines; load average {load:.1f} on "
        f"{os.cpu_count()} CPUs"
    )
    assert rep["totals"]["requests"] * 2 == rep["notes"]["usage_lines"]["count"]
    # The goal is for two cores of our own. On a machine others load (this project's shares
    # 2 cores among several people), the wall clock measures them too: there the check is
    # that the work fits in two cores' worth of 60 s.
    limit = GOAL_S * GB_TARGET
    assert ours < limit or (load > 2 and ours_cpu < 2 * limit)


def _ccusage(folder: Path) -> Path | None:
    npm = shutil.which("npm")
    if npm is None:
        return None
    try:
        subprocess.run(
            [npm, "install", "--prefix", str(folder), "--no-audit", "--no-fund", CCUSAGE],
            check=True, capture_output=True, timeout=240,
        )  # fmt: skip
    except (subprocess.SubprocessError, OSError):
        return None
    exe = folder / "node_modules" / ".bin" / "ccusage"
    return exe if exe.exists() else None


def test_token_totals_equal_the_real_ccusage(tmp_path: Path) -> None:
    from prefixlock.analyze.analysis import analyze

    exe = _ccusage(tmp_path / "npm")
    if exe is None:
        pytest.skip(f"{CCUSAGE} not installable here (npm or its registry unavailable)")
    project = tmp_path / "claude" / "projects" / "p"
    project.mkdir(parents=True)
    files = [FIXTURES / "ccv-5c0375b4-57a5-4f26-b12d-d022ee4e51b7.jsonl",
             FIXTURES / "ccusage-session-alpha-chat.jsonl"]  # fmt: skip
    for f in files:
        shutil.copy(f, project / f.name)
    env = dict(os.environ, CLAUDE_CONFIG_DIR=str(tmp_path / "claude"))
    ran = subprocess.run([str(exe), "session", "--json", "--offline"], env=env,
                         capture_output=True, text=True, timeout=120, check=True)  # fmt: skip
    theirs = json.loads(ran.stdout)["totals"]
    t = analyze(files, jobs=1).report["totals"]["tokens"]
    print(f"\nccusage {CCUSAGE}: {theirs}\nprefixlock analyze: {t}")
    assert theirs["inputTokens"] == t["uncached_input"]
    assert theirs["cacheReadTokens"] == t["cache_read"]
    writes = t["cache_write_5m"] + t["cache_write_1h"] + t["cache_write_unsplit"]
    assert theirs["cacheCreationTokens"] == writes
    # First line of each request (partial output_tokens) vs the line with the larger total.
    assert theirs["outputTokens"] < t["output"]


if __name__ == "__main__":
    with tempfile.TemporaryDirectory() as d:
        test_one_gigabyte_under_a_minute_on_two_cores(Path(d))
