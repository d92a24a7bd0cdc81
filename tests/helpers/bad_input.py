"""The bad-input table: bad arguments over every command, each of which must end in exit 2 and
ONE line on stderr (argparse's usage errors say one `error:` line after the usage, which is
allowed), no traceback, and nothing written under the working folder.

Shared by tests/cli/test_bad_input.py (one test per row) and tests/benchmarks/bench_reliability.py
(the figures table's row). Every row runs in `make_folder`'s folder, as a user runs it
(tests/helpers/cli.run_cli), with PREFIXLOCK_STORE naming the folder's store.
"""

from __future__ import annotations

from pathlib import Path

from tests.helpers.cli import Ran, run_cli

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
    ("run", "task", "--wait", "5"),
    ("run", "task", "--resume", "unknown-id", "--store", "store.sqlite", "--wait", "0"),
    ("run", "task", "--resume", "unknown-id", "--store", "store.sqlite", "--wait", "x"),
    ("run", "task", "--resume", "unknown-id", "--store", "store.sqlite", "--wait", "inf"),
    ("run", "task", "--resume", "unknown-id", "--fork", "--wait", "5"),
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
    ("sim", "trace.jsonl", "--capacity", "1,,2"),
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
    ("chat", "--wait"),
    ("chat", "--offline", "--resume", "unknown-id", "--store", "store.sqlite", "--wait", "-1"),
    ("chat", "--offline", "--resume", "unknown-id", "--fork", "--wait"),
    ("chat", "--offline", "--model", "no-such-model-xyz"),
    ("chat", "--offline", "--resume", "unknown-id", "--store", "store.sqlite"),
    ("chat", "--allow", "everything"),
    # no command / unknown command
    ("nope",),
]


def make_folder(folder: Path) -> Path:
    """What the rows name: a file that is neither a folder nor a store, a small trace, and an
    empty store."""
    (folder / "afile.txt").write_text("not a folder, not a store\n", encoding="utf-8")
    line = '{"timestamp": 0, "input_length": 1024, "output_length": 8, "hash_ids": [1, 2]}\n'
    (folder / "trace.jsonl").write_text(line * 3, encoding="utf-8")
    from prefixlock.store.database import SessionStore

    SessionStore(folder / "store.sqlite").close()
    return folder


def _listing(folder: Path) -> list[str]:
    # SQLite's -wal/-shm side files of a store read are not content.
    return sorted(p.name for p in folder.iterdir() if not p.name.endswith(("-wal", "-shm")))


def run_row(folder: Path, args: tuple[str, ...]) -> tuple[Ran, str | None]:
    """Run one row in `folder`: what it did, and what was wrong with it (None: a clean refusal,
    one line and exit 2, nothing written)."""
    before = _listing(folder)
    ran = run_cli(*args, cwd=folder, env={"PREFIXLOCK_STORE": str(folder / "store.sqlite")})
    return ran, _fault(ran, before, _listing(folder))


def _fault(ran: Ran, before: list[str], after: list[str]) -> str | None:
    if "Traceback" in ran.stderr:
        return "a traceback"
    if ran.returncode != 2:
        return f"exit {ran.returncode}"
    lines = [ln for ln in ran.stderr.strip().splitlines() if ln.strip()]
    said = [ln for ln in lines if "error" in ln.lower() or ln.startswith("prefixlock")]
    usage = [ln for ln in lines if ln not in said]
    if len(said) != 1:
        return f"{len(said)} error lines"
    if usage and not lines[0].startswith("usage:"):  # argparse: usage + 1 line
        return "more than one line"
    if after != before:
        return f"wrote {sorted(set(after) - set(before))}"
    return None
