"""`prefixlock prices`: the price catalogue's snapshot remade from the installed genai-prices
(offline), and the price a model id resolves to.

    prefixlock prices update                 # rewrite the snapshot shipped in the package
    prefixlock prices update -o prices.json  # or write it elsewhere
    prefixlock prices show gpt-5.6-sol       # the price a model id resolves to, and from where
"""

from __future__ import annotations

import argparse
import json
import sys

from ..cli.command import Command


def configure(p: argparse.ArgumentParser) -> None:
    sub = p.add_subparsers(dest="prices_command", metavar="ACTION", required=True)
    up = sub.add_parser("update", help="remake the snapshot from the installed genai-prices")
    up.add_argument("-o", "--output", metavar="FILE", help="write here (default: the package's)")
    show = sub.add_parser("show", help="the price a model id resolves to")
    show.add_argument("model")
    show.add_argument("--prices", metavar="FILE", help="a price file over the built-in table")


def run(args: argparse.Namespace) -> int:
    from ..errors import UserError
    from .prices import PriceTable
    from .prices_update import write_snapshot

    if args.prices_command == "show":
        price = PriceTable.default(args.prices).lookup(args.model)
        if price is None:
            raise UserError(
                "in neither the price table nor the catalogue: unpriced", where=args.model
            )
        row = {
            "model": price.model,
            "provider": price.provider,
            "input": str(price.input),
            "cache_read": str(price.cache_read),
            "cache_write_5m": str(price.write_5m),
            "cache_write_1h": str(price.write_1h),
            "output": str(price.output),
            "tiers": [
                {"above": s, "input": str(t.input), "output": str(t.output)} for s, t in price.tiers
            ],
            "source": price.source,
        }
        print(json.dumps(row, indent=1))
        return 0
    path, snap = write_snapshot(args.output)
    n = sum(len(p["models"]) for p in snap["providers"])
    print(f"wrote {n} models of genai-prices {snap['version']} to {path}", file=sys.stderr)
    return 0


COMMAND = Command(
    "the price catalogue: update its snapshot from genai-prices, show a model's price",
    configure,
    run,
    order=41,
)
