"""The cache guard's quotes (model switch, compaction) as label/value rows for the dialogs.

Pure formatting over `prefixlock.guard.quote.Quote`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from .state import format_countdown, format_dollars

if TYPE_CHECKING:
    from prefixlock.guard.quote import Quote


@dataclass(frozen=True)
class QuoteRows:
    rows: tuple[tuple[str, str], ...]
    advice: str = ""
    warns: bool = True  # False: nothing is cached, the action costs nothing extra


def _money(value: object) -> str:
    from decimal import Decimal

    return "unpriced" if value is None else format_dollars(Decimal(str(value)))


def quote_rows(quote: Quote, min_tokens: int = 0) -> QuoteRows:
    """Rows for a switch or compaction quote: tokens re-billed, dollars, break-even, warm time.
    `min_tokens`: the new model's minimum cacheable prompt (Price.min_cacheable_tokens); a
    next request shorter than it is never cached there, so no turn reads what the switch
    re-bills and nothing breaks even."""
    below = 0 < quote.context_tokens < min_tokens
    rows: list[tuple[str, str]] = [
        ("tokens re-billed", f"{quote.tokens_rebilled:,}"),
        ("re-bill dollars", _money(quote.dollars)),
        (
            "next turn",
            f"{_money(quote.next_turn_with)} vs {_money(quote.next_turn_without)} staying",
        ),
        (
            "break-even",
            "never"
            if quote.break_even_turns is None or below
            else f"{quote.break_even_turns} turns",
        ),
        ("cache warm for", format_countdown(quote.warm_seconds)),
    ]
    if below:
        rows.append(
            (
                "new model cache",
                f"below minimum: not cached ({quote.context_tokens:,} < {min_tokens:,} tokens)",
            )
        )
    advice = ""
    alt = quote.alternative
    if alt is not None:
        advice = f"cheaper: {alt.text}"
    return QuoteRows(tuple(rows), advice, quote.warns)


def change_rows(quote: Quote, what: str) -> QuoteRows:
    """A prefix change's quote (an edited instruction file, a new MCP tool list) with a first
    row naming what changed."""
    rows = quote_rows(quote)
    return QuoteRows((("changed", what), *rows.rows), rows.advice, rows.warns)
