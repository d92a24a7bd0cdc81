"""`prefixlock demo --versus peers`: a bad flag is one line naming it, exit 2, before anything
runs (no venv is built, no session started)."""

from __future__ import annotations

import pytest

from tests.helpers.cli import run_cli


@pytest.mark.parametrize(
    ("args", "names"),
    [
        (("--peers", "anthropic-sdk,crewai"), ("--peers", "crewai", "langchain")),
        (("--proxy",), ("--proxy",)),
        (("--provider", "openai", "--peers", "langchain"), ("--peers", "langchain", "openai")),
        (("--provider", "openai", "--idle", "1h"), ("--idle", "1h", "24h")),
        (("--idle", "24h"), ("--idle", "24h", "1h")),
        (("--switch", "sometimes"), ("--switch", "sometimes")),
        (("--pairs", "0"), ("--pairs", "0")),
        (("--jobs", "-1"), ("--jobs", "-1")),
    ],
)
def test_bad_flags_are_one_line(args: tuple[str, ...], names: tuple[str, ...]) -> None:
    ran = run_cli("demo", "--versus", "peers", *args)
    assert ran.returncode == 2
    lines = [ln for ln in ran.stderr.splitlines() if ln.strip()]
    assert len(lines) == 1
    for name in names:
        assert name in lines[0]
    assert ran.stdout == ""
