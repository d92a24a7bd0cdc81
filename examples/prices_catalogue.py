"""Prices beyond prefixlock's own table: the pinned genai-prices catalogue, long-context tiers,
dated ids, and an unknown model left unpriced. Offline.

    python examples/prices_catalogue.py
"""

from __future__ import annotations

from decimal import Decimal

from prefixlock import PriceTable
from prefixlock.billing.usage import Usage


def main() -> None:
    table = PriceTable.default()
    # In the table: gpt-5.4, whose prompts over 272K input tokens pay the long-context prices.
    gpt54 = table.require("gpt-5.4")
    short, long = Usage(uncached_input=200_000), Usage(uncached_input=300_000)
    print(f"gpt-5.4: 200K input ${gpt54.cost(short)}, 300K input ${gpt54.cost(long)}")
    assert gpt54.cost(long) == Decimal("1.5")  # $5/M, not $2.50/M

    # Not in the table: priced from the genai-prices snapshot, with prefixlock's cache rules.
    sol = table.require("gpt-5.6-sol-2026-09-01")  # a dated id resolves to its model
    print(f"{sol.model}: ${sol.input}/M input, TTL {sol.cache_ttl_seconds} s ({sol.source})")

    # Known nowhere: unpriced (None), never $0.
    assert table.lookup("my-local-llama") is None
    print("my-local-llama: unpriced")


if __name__ == "__main__":
    main()
