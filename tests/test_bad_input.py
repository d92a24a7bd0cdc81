"""Every command refuses bad input before any work: one line, exit code 2, no traceback.

A table of bad arguments over every command (run, models, demo, serve, sim, sessions, lint,
agents, chat), run in-process as a user runs them (tests/helpers/cli.run_cli). Each must end
with exit 2 and exactly one line on stderr (argparse's usage errors say one `error:` line after
the usage, which is allowed), and write nothing under the working folder.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.helpers.cli import run_cli

MISSING = "no-such-file-or-folder"

BAD: list[tuple[str, ...]] = [
    # run
    ("run", ""),
    ("run", "   "),
    ("run", "task", "--max-turns", "0"),
    ("run", "task", "--max-turns", "x"),
    ("run", "task", "--max-dollars", "nan"),
    ("run", "task", "--max-dollars", "-1"),
    ("run", "task", "--model", "no-such-model-xyz"),
    ("run", "task", "--base-url", "localhost:8000"),
    ("run", "task", "--system", f"@{MISSING}"),
    ("run", "task", "--prices", MISSING),
    ("run", "task", "--workspace", MISSING),
    ("run", "task", "--ttl", "2h"),
    ("run", "task", "--fork"),
    ("run", "task", "--resume", "unknown-id", "--store", "store.sqlite"),
    ("run", "task", "--store", "."),
    # models
    ("models", "--prices", MISSING),
    ("models", "--bogus"),
    # demo
    ("demo", "--provider", "nope"),
    ("demo", "--trace-dir", "afile.txt"),
    # serve
    ("serve", "--config", MISSING),
    ("serve", "--port", "-1"),
    ("serve", "--port", "70000"),
    ("serve", "--port", "x"),
    ("serve", "--script", MISSING),
    ("serve", "--host", ""),
    # sim
    ("sim", MISSING),
    ("sim", "trace.jsonl", "--capacity", ""),
    ("sim", "trace.jsonl", "--capacity", "x"),
    ("sim", "trace.jsonl", "--capacity", "-5"),
    ("sim", "trace.jsonl", "--nodes", "0"),
    ("sim", "trace.jsonl", "--nodes", ""),
    ("sim", "trace.jsonl", "--policy", "nope"),
    ("sim", "trace.jsonl", "--ttl", "-1"),
    ("sim", "trace.jsonl", "--warmup", "2"),
    ("sim", "trace.jsonl", "--limit", "-1"),
    ("sim", "trace.jsonl", "--block-size", "0"),
    # sessions
    ("sessions",),
    ("sessions", "--store", MISSING, "show", "x"),
    ("sessions", "--store", "afile.txt", "list"),
    ("sessions", "--store", ".", "list"),
    ("sessions", "--store", "store.sqlite", "show", "unknown-id"),
    ("sessions", "--store", "store.sqlite", "export", "unknown-id", "--jsonl"),
    # lint
    ("lint", MISSING),
    # One file and one job: lint's worker processes are no part of what is checked here.
    ("lint", "afile.txt", "-j", "1", "--select", "ZZZ999"),
    ("lint", "--explain", "ZZZ999"),
    ("lint", "afile.txt", "-j", "1", "--config", MISSING),
    ("lint", "afile.txt", "-j", "1", "--format", "xml"),
    # agents
    ("agents", "--root", MISSING),
    ("agents", "--root", "afile.txt"),
    ("agents", "--bogus"),
    # chat
    ("chat", "--workspace", MISSING),
    ("chat", "--base-url", "ftp://x"),
    ("chat", "--fork"),
    ("chat", "--offline", "--model", "no-such-model-xyz"),
    ("chat", "--offline", "--resume", "unknown-id", "--store", "store.sqlite"),
    ("chat", "--allow", "everything"),
    # no command / unknown command
    ("nope",),
]


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    (tmp_path / "afile.txt").write_text("not a folder, not a store\n", encoding="utf-8")
    line = '{"timestamp": 0, "input_length": 1024, "output_length": 8, "hash_ids": [1, 2]}\n'
    (tmp_path / "trace.jsonl").write_text(line * 3, encoding="utf-8")
    from prefixlock.store.database import SessionStore

    SessionStore(tmp_path / "store.sqlite").close()
    return tmp_path


@pytest.mark.parametrize("args", BAD, ids=[" ".join(a) or "(empty)" for a in BAD])
def test_bad_input_is_one_line_and_exit_2(folder: Path, args: tuple[str, ...]) -> None:
    before = sorted(p.name for p in folder.iterdir())
    ran = run_cli(*args, cwd=folder, env={"PREFIXLOCK_STORE": str(folder / "store.sqlite")})
    assert "Traceback" not in ran.stderr, ran.stderr
    assert ran.returncode == 2, (ran.returncode, ran.stdout[-500:], ran.stderr)
    lines = [ln for ln in ran.stderr.strip().splitlines() if ln.strip()]
    said = [ln for ln in lines if "error" in ln.lower() or ln.startswith("prefixlock")]
    usage = [ln for ln in lines if ln not in said]
    assert len(said) == 1, ran.stderr
    assert not usage or lines[0].startswith("usage:"), ran.stderr  # argparse: usage + 1 line
    # Nothing half-written (SQLite's -wal/-shm side files of a store read are not content).
    after = sorted(p.name for p in folder.iterdir() if not p.name.endswith(("-wal", "-shm")))
    assert after == before
