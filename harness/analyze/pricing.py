"""Model ids as logs write them, resolved to price entries; and the dollars of a request.

Logs carry dated and decorated ids: `claude-sonnet-4-5-20250929`, `claude-opus-4-6[1m]`,
Vertex's `claude-sonnet-4@20250514`, Bedrock's `us.anthropic.claude-sonnet-4-20250514-v1:0`,
OpenCode's `anthropic/claude-sonnet-4`, OpenAI's `gpt-4.1-2025-04-14`. `normalize` strips the
decoration; `Pricer` looks up the raw id in the table first, then the normalised one, then
both in the genai-prices catalogue (`billing.prices_catalogue`). An id found nowhere stays
unpriced (None), never $0. A write whose TTL the log does not say is priced at the TTL given
(`--ttl`, 5 minutes by default). Pure.
"""

# pure: imports no I/O (tests/test_layout.py checks it)

from __future__ import annotations

import re
from dataclasses import dataclass
from decimal import Decimal
from functools import lru_cache

from ..billing.prices import Price, PriceTable
from ..billing.usage import Usage
from .model import Request

_DATE = re.compile(r"(-\d{8}|-\d{4}-\d{2}-\d{2}|@\d{8}|@latest|-latest)$")
_BEDROCK = re.compile(r"^(?:(?:us|eu|apac|global|jp|au)\.)?anthropic\.(.+?)(?:-v\d+(?::\d+)?)?$")
_CONTEXT = re.compile(r"\[[^\]]*\]$")


@lru_cache(maxsize=4096)
def normalize(model: str) -> str:
    """The undated, undecorated id: what the price table names."""
    name = model.strip().lower()
    name = name.rsplit("/", 1)[-1]  # openrouter/anthropic/x, anthropic/x, models/gemini-x
    m = _BEDROCK.match(name)
    if m:
        name = m.group(1)
    name = _CONTEXT.sub("", name)
    name = re.sub(r"-v\d+:\d+$", "", name)
    prev = None
    while prev != name:  # claude-x-20250514-latest and the like
        prev, name = name, _DATE.sub("", name)
    return name


@dataclass(frozen=True)
class Priced:
    usd: Decimal | None  # None: unpriced model
    canonical: str | None
    usage: Usage


class Pricer:
    """Prices requests with one table; remembers which ids resolved to what."""

    def __init__(self, table: PriceTable, unsplit_ttl: str = "5m"):
        self.table = table
        self.unsplit_ttl = unsplit_ttl
        self._lookup = lru_cache(maxsize=None)(self._find)
        self.provider = lru_cache(maxsize=None)(self._provider)  # type: ignore[method-assign]

    def _find(self, model: str) -> Price | None:
        # The table's own entries first, by the id as logged and undecorated; then the
        # catalogue, which knows dated and provider-decorated ids of its own.
        t = self.table
        plain = normalize(model)
        return t.listed(model) or t.listed(plain) or t.lookup(model) or t.lookup(plain)

    def price(self, model: str) -> Price | None:
        return self._lookup(model)

    def usage(self, r: Request) -> Usage:
        w5, w1 = r.write_5m, r.write_1h
        if r.write_unsplit:
            if self.unsplit_ttl == "1h":
                w1 += r.write_unsplit
            else:
                w5 += r.write_unsplit
        return Usage(r.uncached, r.read, w5, w1, r.output)

    def cost(self, r: Request, usage: Usage | None = None) -> Decimal | None:
        p = self.price(r.raw_model)
        return None if p is None else p.cost(usage or self.usage(r))

    def provider(self, model: str) -> str:
        """anthropic | openai | google | other: which cache rules apply (cached per model)."""
        return self._provider(model)

    def _provider(self, model: str) -> str:
        """anthropic | openai | google | other: which cache rules apply."""
        p = self.price(model)
        if p is not None and p.provider in ("anthropic", "openai", "google", "deepseek"):
            return p.provider
        n = normalize(model)
        if n.startswith("claude"):
            return "anthropic"
        if n.startswith(("gpt", "o1", "o3", "o4", "codex")):
            return "openai"
        if n.startswith("gemini"):
            return "google"
        return "other"
