"""Every command refuses bad input before any work: one line, exit code 2, no traceback.

A table of bad arguments over every command (run, models, demo, serve, sim, sessions, lint,
agents, chat; tests/helpers/bad_input.py, shared with tests/benchmarks/bench_reliability.py),
run in-process as a user runs them (tests/helpers/cli.run_cli). Each must end with exit 2 and
exactly one line on stderr (argparse's usage errors say one `error:` line after the usage, which
is allowed), and write nothing under the working folder.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.helpers.bad_input import BAD, make_folder, run_row


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    return make_folder(tmp_path)


@pytest.mark.parametrize("args", BAD, ids=[" ".join(a) or "(empty)" for a in BAD])
def test_bad_input_is_one_line_and_exit_2(folder: Path, args: tuple[str, ...]) -> None:
    ran, fault = run_row(folder, args)
    assert fault is None, (fault, ran.returncode, ran.stdout[-500:], ran.stderr)
