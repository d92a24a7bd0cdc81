"""The genai-prices snapshot: remade from the installed (pinned) genai-prices package, offline
(`prefixlock prices update`), written whole or not at all; and read back, once, for the
built-in price table. A newer catalogue comes with a newer genai-prices (`pip install -U
genai-prices`, then the command): the version it came from is in the file."""

from __future__ import annotations

import json
import os
from datetime import UTC, date, datetime
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

SNAPSHOT = "data/prices_catalogue.json"


@cache
def catalogue() -> Any:
    """The shipped snapshot as a `Catalogue` with the cache rules of the price file (read
    once a process, only when a model is not in the table)."""
    from .prices_catalogue import Catalogue

    root = resources.files("prefixlock")
    rules = json.loads(root.joinpath("data/prices.json").read_text("utf-8"))["cache_rules"]
    snap = json.loads(root.joinpath(SNAPSHOT).read_text("utf-8"))
    return Catalogue(snap, rules, datetime.now(UTC).date())


class LazyCatalogue:
    """The catalogue, read the first time a model is looked up in it."""

    def lookup(self, model: str) -> Any:
        return catalogue().lookup(model)


def make_snapshot(today: date | None = None) -> dict[str, Any]:
    """The snapshot of the installed genai-prices."""
    from genai_prices import __version__, data_snapshot

    from .prices_catalogue import snapshot_from

    root = resources.files("prefixlock")
    rules = json.loads(root.joinpath("data/prices.json").read_text("utf-8"))["cache_rules"]
    providers = data_snapshot.get_snapshot().providers
    return snapshot_from(providers, __version__, rules, today or datetime.now(UTC).date())


def _default_target() -> Path:
    return Path(str(resources.files("prefixlock").joinpath(SNAPSHOT)))


def write_snapshot(target: str | os.PathLike[str] | None = None) -> tuple[Path, dict[str, Any]]:
    """Writes the snapshot of the installed genai-prices to `target` (default: the one the
    package ships); returns where, and what."""
    from ..atomicfile import replacing_text
    from ..errors import UserError

    snap = make_snapshot()
    path = Path(target) if target else _default_target()
    if path.is_dir():
        raise UserError("is a directory; name the file to write", where=str(path))
    try:
        with replacing_text(path) as fh:
            json.dump(snap, fh, indent=0, separators=(",", ":"))
            fh.write("\n")
    except OSError as exc:
        raise UserError(f"cannot write here: {exc.strerror or exc}", where=str(path)) from None
    return path, snap
