"""Where price tables come from: the table shipped in the package, and the user's JSON files,
given by path or named in PREFIXLOCK_PRICES. The I/O behind `PriceTable.builtin`, `load_file`
and `default`; the table itself (`prices`) stays pure."""

from __future__ import annotations

import json
import os
from functools import cache
from importlib import resources
from pathlib import Path

from ..errors import ConfigError
from ..userfiles import read_user_text
from .prices import ENV_VAR, PriceTable


def load_file(path: str | os.PathLike[str]) -> PriceTable:
    p = Path(path)
    text = read_user_text(p, "price file")
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ConfigError(
            f"invalid JSON: {exc.msg}", where=f"{p}:{exc.lineno}:{exc.colno}"
        ) from None
    return PriceTable.from_data(data, str(p))


@cache  # a table is immutable; parsing the shipped one once per process is enough
def builtin() -> PriceTable:
    from .prices_update import LazyCatalogue

    text = resources.files("prefixlock").joinpath("data/prices.json").read_text("utf-8")
    table = PriceTable.from_data(json.loads(text), "harness/data/prices.json")
    # A model the table lacks is looked up in the pinned genai-prices snapshot.
    return table.merged(PriceTable({}, {}, LazyCatalogue()))


def default(override: str | os.PathLike[str] | None = None) -> PriceTable:
    table = builtin()
    path = override if override is not None else os.environ.get(ENV_VAR)
    if path:
        table = table.merged(load_file(path))
    return table
