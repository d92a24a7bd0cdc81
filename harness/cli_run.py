"""`prefixlock models` (the price table) and `prefixlock run` (one headless task)."""

from __future__ import annotations

import argparse

from .command import Command


def _configure_models(p: argparse.ArgumentParser) -> None:
    p.add_argument("--prices", metavar="FILE", help="a JSON price file that overrides the built-in one")
    p.add_argument("--json", action="store_true", help="print JSON instead of a table")


def _run_models(args: argparse.Namespace) -> int:
    import json

    from rich.console import Console
    from rich.table import Table

    from .prices import PriceTable

    table = PriceTable.default(args.prices)
    if args.json:
        rows = [
            {
                "model": p.model,
                "provider": p.provider,
                "input": str(p.input),
                "cache_read": str(p.cache_read),
                "cache_write_5m": str(p.write_5m),
                "cache_write_1h": str(p.write_1h),
                "output": str(p.output),
                "min_cacheable_tokens": p.min_cacheable_tokens,
                "date": p.date,
                "source": p.source,
            }
            for p in table
        ]
        print(json.dumps(rows, indent=2))
        return 0
    t = Table(title="Prices, $ per million tokens")
    for col in ("model", "provider", "input", "read", "write 5m", "write 1h", "output", "min", "date"):
        t.add_column(col, justify="left" if col in ("model", "provider", "date") else "right")
    for p in table:
        t.add_row(
            p.model, p.provider, str(p.input), str(p.cache_read), str(p.write_5m),
            str(p.write_1h), str(p.output), str(p.min_cacheable_tokens), p.date,
        )
    Console().print(t)
    aliases = ", ".join(f"{k} -> {v}" for k, v in sorted(table.aliases.items()))
    Console().print(f"aliases: {aliases}")
    return 0


MODELS_COMMAND = Command("show the price table", _configure_models, _run_models, order=40)
