"""The `prefixlock` command line run in this process, as a user runs it from a shell: the
arguments, an environment without API keys (unless given), a working folder; the exit code and
what it printed come back. A fresh interpreter per call would re-import the SDKs and check
nothing more; the console script itself is run once, in tests/store/test_store_cli.py."""

from __future__ import annotations

import contextlib
import io
import os
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

from prefixlock.cli.main import main

KEY_VARS = ("ANTHROPIC_API_KEY", "OPENAI_API_KEY", "DEEPSEEK_API_KEY", "PREFIXLOCK_API_KEY")


@dataclass(frozen=True)
class Ran:
    """What one command did: its exit code and its two streams."""

    returncode: int
    stdout: str
    stderr: str


@contextlib.contextmanager
def _environment(env: Mapping[str, str]) -> Iterator[None]:
    saved = dict(os.environ)
    os.environ.clear()
    os.environ.update(env)
    try:
        yield
    finally:
        os.environ.clear()
        os.environ.update(saved)


def run_cli(
    *args: str,
    env: Mapping[str, str] | None = None,
    drop: tuple[str, ...] = (),
    cwd: Path | None = None,
) -> Ran:
    """Run `prefixlock ARGS...`. The environment is this process's without the API key
    variables and `drop`, plus `env`; `cwd` is the working folder while it runs."""
    environ = {k: v for k, v in os.environ.items() if k not in (*KEY_VARS, *drop)}
    environ.update(env or {})
    out, err = io.StringIO(), io.StringIO()
    with (
        _environment(environ),
        contextlib.chdir(cwd or Path.cwd()),
        contextlib.redirect_stdout(out),
        contextlib.redirect_stderr(err),
    ):
        try:
            code = main(list(args))
        except SystemExit as exc:  # argparse's --help and usage errors
            code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
            if isinstance(exc.code, str):
                print(exc.code, file=err)
    return Ran(int(code), out.getvalue(), err.getvalue())
