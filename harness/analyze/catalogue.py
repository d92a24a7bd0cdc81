"""The price tables `analyze` uses: the back catalogue of older models
(`data/prices_archive.json`) under the current table (`data/prices.json`, which wins where both
name a model), under the user's --prices file or PREFIXLOCK_PRICES. Reading the files is the
I/O kept out of `pricing`."""

from __future__ import annotations

import json
from functools import cache
from importlib import resources

from ..billing.prices import PriceTable

ARCHIVE = "data/prices_archive.json"


@cache
def archive() -> PriceTable:
    text = resources.files("prefixlock").joinpath(ARCHIVE).read_text("utf-8")
    return PriceTable.from_data(json.loads(text), f"harness/{ARCHIVE}")


def table(override: str | None = None) -> PriceTable:
    """Archive, then the current built-in table, then the user's file."""
    from ..billing import pricefile

    return archive().merged(pricefile.default(override))
