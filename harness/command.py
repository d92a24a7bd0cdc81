"""The shape of a `prefixlock` subcommand, registered through the `prefixlock.commands` entry
points.

Each product (`harness`, `agents`, `policies`, `tui`) registers its own subcommands in
pyproject.toml, so the CLI never imports a package that `harness` must not depend on. A command
module keeps heavy imports inside `run` so that `prefixlock --help` stays fast.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from dataclasses import dataclass


@dataclass(frozen=True)
class Command:
    """One subcommand: its help line, how it adds its arguments, and what it runs."""

    help: str
    configure: Callable[[argparse.ArgumentParser], None]
    run: Callable[[argparse.Namespace], int]
    order: int = 50  # position in `prefixlock --help`
