"""The genai-prices catalogue (pydantic's maintained, sourced price data) as a pinned snapshot:
made from the installed package by `prefixlock prices update`, read at run time without
importing it (its data module takes seconds to import).

A snapshot holds, per provider, its models in the catalogue's order, each with the rule that
matches a model id (equals, starts_with, ends_with, contains, regex, or, and: the catalogue's
clauses) and its prices over time, tiered where a long context costs more. A model id is
matched as genai-prices matches it: the provider whose rule takes the id, then its first model
whose rule takes it (lower-cased; a compact date `-20251211` also tried as `-2025-12-11`).
Only the providers whose cache rules prefixlock knows are kept (`CACHE_RULES` in the price
file): a model of any other stays unpriced. The price used is the latest in force on the day
of the snapshot. Pure.
"""

# pure: imports no I/O (tests/test_layout.py checks it)

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import replace
from datetime import date
from decimal import Decimal
from functools import cache
from typing import Any

from .prices import Price

FORMAT = 1
_UNITS = {  # snapshot field -> the catalogue's unit
    "input": "input_mtok",
    "output": "output_mtok",
    "cache_read": "cache_read_mtok",
    "cache_write": "cache_write_mtok",
    "cache_write_1h": "cache_write_1h_mtok",
}
_COMPACT_DATE = re.compile(r"-(\d{4})(\d{2})(\d{2})$")


def _clause(c: Any) -> dict[str, Any]:
    """A genai-prices match clause as plain data."""
    for attr, key in (("or_", "or"), ("and_", "and")):
        if hasattr(c, attr):
            return {key: [_clause(x) for x in getattr(c, attr)]}
    for key in ("equals", "starts_with", "ends_with", "contains", "regex"):
        if hasattr(c, key):
            return {key: getattr(c, key)}
    raise ValueError(f"unknown match clause {c!r}")


def _amount(v: Any) -> Any:
    if v is None:
        return None
    if hasattr(v, "tiers"):
        return {"base": str(v.base), "tiers": [[t.start, str(t.price)] for t in v.tiers]}
    return str(v)


def _prices(model: Any) -> list[dict[str, Any]]:
    entries = model.prices if isinstance(model.prices, list) else [_Always(model.prices)]
    out = []
    for e in entries:
        constraint = e.constraint
        if constraint is not None and not hasattr(constraint, "start_date"):
            continue  # an off-peak hour's price: a log's request is billed at the standard one
        row = {"from": None if constraint is None else constraint.start_date.isoformat()}
        for field, unit in _UNITS.items():
            row[field] = _amount(getattr(e.prices, unit, None))
        out.append(row)
    return out


class _Always:
    constraint = None

    def __init__(self, prices: Any):
        self.prices = prices


def snapshot_from(providers: Any, version: str, providers_kept: Any, made: date) -> dict[str, Any]:
    """The snapshot of genai-prices `version` (its provider objects), for the providers kept."""
    kept = set(providers_kept)
    out = []
    for p in providers:
        if p.id not in kept:
            continue
        models = []
        for m in p.models:
            prices = _prices(m)
            if not prices or all(r["input"] is None for r in prices):
                continue
            models.append(
                {
                    "id": m.id,
                    "match": _clause(m.match),
                    "context_window": getattr(m, "context_window", None),
                    "prices": prices,
                }
            )
        out.append(
            {
                "id": p.id,
                "match": None if p.model_match is None else _clause(p.model_match),
                "fallback": [f for f in (p.fallback_model_providers or []) if f in kept],
                "models": models,
            }
        )
    return {
        "format": FORMAT,
        "source": "genai-prices",
        "version": version,
        "made": made.isoformat(),
        "providers": out,
    }


@cache
def _regex(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern)


def matches(clause: Mapping[str, Any], text: str) -> bool:
    """Whether a snapshot clause takes `text` (genai-prices' semantics: regex is a search)."""
    if "or" in clause:
        return any(matches(c, text) for c in clause["or"])
    if "and" in clause:
        return all(matches(c, text) for c in clause["and"])
    if "equals" in clause:
        return text == str(clause["equals"])
    if "starts_with" in clause:
        return text.startswith(str(clause["starts_with"]))
    if "ends_with" in clause:
        return text.endswith(str(clause["ends_with"]))
    if "contains" in clause:
        return str(clause["contains"]) in text
    if "regex" in clause:
        return _regex(str(clause["regex"])).search(text) is not None
    return False


def _dollars(v: Any) -> Decimal | None:
    if v is None:
        return None
    return Decimal(v["base"] if isinstance(v, dict) else v)


def _tier_starts(row: Mapping[str, Any]) -> list[int]:
    starts = {int(s) for v in row.values() if isinstance(v, dict) for s, _ in v["tiers"]}
    return sorted(starts)


def _at(v: Any, start: int) -> Decimal | None:
    """A unit's price for a request just above `start` input tokens."""
    if not isinstance(v, dict):
        return _dollars(v)
    price = Decimal(v["base"])
    for s, p in v["tiers"]:
        if start >= int(s):
            price = Decimal(p)
    return price


def _own_rules(rules: Mapping[str, Any], model: str) -> Mapping[str, Any]:
    """What a provider's rules say of this model alone: the first of its `models` entries
    whose match takes the catalogue's id (empty: the provider's rules hold)."""
    for entry in rules.get("models", ()):
        if matches(entry["match"], model.lower()):
            return dict(entry)
    return {}


class Catalogue:
    """Model ids to `Price`s from a snapshot, with prefixlock's cache rules per provider
    (`rules`: provider -> min_cacheable_tokens, cache_ttl_seconds, api, write_5m and write_1h
    multipliers of the input price where the catalogue gives no write price, and `models`:
    what differs for some models, their minimum and explicit cache storage price)."""

    def __init__(
        self, snapshot: Mapping[str, Any], rules: Mapping[str, Mapping[str, Any]], today: date
    ):
        self.version: str = str(snapshot.get("version", "?"))
        self._providers = [p for p in snapshot.get("providers", []) if p.get("id") in rules]
        self._rules = rules
        self._today = today.isoformat()
        self._found: dict[str, Price | None] = {}

    def lookup(self, model: str) -> Price | None:
        ref = model.strip().lower()
        if ref not in self._found:
            self._found[ref] = self._find(ref)
        return self._found[ref]

    def _find(self, ref: str) -> Price | None:
        compact = _COMPACT_DATE.sub(r"-\1-\2-\3", ref)
        for provider in self._providers:
            if provider["match"] is None or not matches(provider["match"], ref):
                continue
            for text in dict.fromkeys((ref, compact)):
                found = self._in(provider, text, fallback=True)
                if found is not None:
                    return found
            return None  # genai-prices stops at the first provider that takes the id
        return None

    def _in(self, provider: Mapping[str, Any], ref: str, fallback: bool) -> Price | None:
        for m in provider["models"]:
            if matches(m["match"], ref):
                return self._price(provider["id"], m)
        if fallback:
            for pid in provider.get("fallback", []):
                other = next((p for p in self._providers if p["id"] == pid), None)
                if other is not None:
                    found = self._in(other, ref, fallback=False)
                    if found is not None:
                        return found
        return None

    def _price(self, provider: str, m: Mapping[str, Any]) -> Price | None:
        rows = [r for r in m["prices"] if r["from"] is None or r["from"] <= self._today]
        if not rows or rows[-1]["input"] is None:
            return None
        row = rows[-1]
        rules = self._rules[provider]
        base = self._rates(row, rules, None)
        own = {**rules, **_own_rules(rules, str(m["id"]))}
        storage = own.get("cache_storage_per_hour")
        price = Price(
            model=m["id"],
            provider=provider,
            api=str(rules.get("api", "openai-compat")),
            min_cacheable_tokens=int(own["min_cacheable_tokens"]),
            cache_ttl_seconds=int(own["cache_ttl_seconds"]),
            cache_storage_per_hour=None if storage is None else Decimal(str(storage)),
            date=str(row["from"] or ""),
            source=f"genai-prices {self.version} ({provider}/{m['id']})",
            context_window=m.get("context_window"),
            **base,
        )
        tiers = tuple(
            (start, replace(price, **self._rates(row, rules, start))) for start in _tier_starts(row)
        )
        return replace(price, tiers=tiers) if tiers else price

    @staticmethod
    def _rates(
        row: Mapping[str, Any], rules: Mapping[str, Any], start: int | None
    ) -> dict[str, Any]:
        def get(field: str) -> Decimal | None:
            v = row.get(field)
            return _dollars(v) if start is None else _at(v, start)

        inp = get("input")
        assert inp is not None  # checked by the caller
        read = get("cache_read")
        w5, w1 = get("cache_write"), get("cache_write_1h")
        m5, m1 = rules.get("write_5m_multiplier"), rules.get("write_1h_multiplier")
        if w5 is None and m5 is not None:
            w5 = inp * Decimal(m5)
        if w1 is None and m1 is not None:
            w1 = inp * Decimal(m1)
        return {
            "input": inp,
            "output": get("output") or Decimal(0),
            "cache_read": inp if read is None else read,
            "cache_write_5m": w5,
            "cache_write_1h": w1,
        }
