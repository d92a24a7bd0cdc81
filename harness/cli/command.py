"""The shape of a `prefixlock` subcommand, registered through the `prefixlock.commands` entry
points.

Each product (`harness`, `agents`, `policies`, `tui`) registers its own subcommands in
pyproject.toml, so the CLI never imports a package that `harness` must not depend on.

`prefixlock --help` reads every command's `help` and `order` from the module its entry point
names, so a command module imports only argparse-level code at its top; heavy imports stay
inside `configure` and `run`, which run for the chosen command only. A command whose module is
not light (`prefixlock demo`) is registered from a light one with `deferred`.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from importlib import import_module
from typing import NamedTuple


class Command(NamedTuple):
    """One subcommand: its help line, how it adds its arguments, and what it runs."""

    help: str
    configure: Callable[[argparse.ArgumentParser], None]
    run: Callable[[argparse.Namespace], int]
    order: int = 50  # position in `prefixlock --help`


def deferred(
    module: str, *, help: str, order: int = 50, configure: str = "configure", run: str = "run"
) -> Command:
    """A command whose `configure` and `run` are functions of `module`, imported only when the
    command is chosen: its help line and order cost nothing to list."""

    def configure_(parser: argparse.ArgumentParser) -> None:
        getattr(import_module(module), configure)(parser)

    def run_(args: argparse.Namespace) -> int:
        return int(getattr(import_module(module), run)(args))

    return Command(help, configure_, run_, order)


def add_sandbox_flags(p: argparse.ArgumentParser, default: str | None) -> None:
    """`--sandbox` and `--no-network`, shared by `run` and `chat` (`default` None: the settings
    file may choose; the sandbox's own default is bwrap)."""
    p.add_argument(
        "--sandbox",
        choices=("bwrap", "off"),
        default=default,
        help="how commands run: bwrap (default; workspace writable, rest read-only, no access "
        "to this process or its keys) or off (unconfined: your explicit choice)",
    )
    p.add_argument("--no-network", action="store_true", help="commands run without network access")


def add_fork_wait_flags(p: argparse.ArgumentParser, elsewhere: str) -> None:
    """`--fork` and `--wait [SECONDS]`, shared by `run` and `chat`: what to do with a session
    open in another process (`elsewhere`: "process" or "chat", for the help)."""
    p.add_argument(
        "--fork",
        action="store_true",
        help="with --resume: continue a copy of the session under a new id (e.g. while it is "
        f"open in another {elsewhere})",
    )
    p.add_argument(
        "--wait",
        metavar="SECONDS",
        nargs="?",
        const="300",
        default=None,
        help=f"with --resume: if the session is open in another {elsewhere}, wait up to SECONDS "
        "(default 300) for it to close",
    )
