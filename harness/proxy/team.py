"""A team's view of the proxy: who spent what (per key hash, per user, per agent), the dollars
each kind of cache break lost, and daily budgets per key or per user.

Pure. The user is what the team puts in the `x-prefixlock-user` header (the proxy does not
forward it); the agent is `x-prefixlock-agent`, else the product token of the client's
`user-agent` (`claude-cli/2.1.3` gives `claude-cli`). A budget is dollars per UTC day; over it,
a request is refused in the provider's own error shape (HTTP 429, Anthropic's
`rate_limit_error`, OpenAI's `insufficient_quota`) or, in warn mode, forwarded with an
`x-prefixlock-budget` header and a line on stderr.
"""

# pure: imports no I/O (tests/test_layout.py checks it)

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from ..billing.prices import PriceTable
from ..billing.usage import Usage
from .observe import Observed

USER_HEADER = "x-prefixlock-user"
AGENT_HEADER = "x-prefixlock-agent"
DAY = 86_400.0


@dataclass(frozen=True)
class Who:
    """Whom a request is charged to."""

    key: str  # the one-way hash of the client's key
    user: str  # "" when the team sets no user header
    agent: str


def who(headers: Mapping[str, str], key_hash: str) -> Who:
    agent = headers.get(AGENT_HEADER) or headers.get("user-agent", "").split(" ", 1)[0]
    return Who(key_hash, headers.get(USER_HEADER, "")[:200], agent.split("/", 1)[0][:200])


def lost_dollars(prices: PriceTable, model: str, tokens: int) -> Decimal:
    """What re-billing `tokens` of prefix cost beyond reading them from the cache."""
    price = prices.lookup(model)
    if price is None or tokens <= 0:
        return Decimal(0)
    return price.cost(Usage(uncached_input=tokens)) - price.cost(Usage(cache_read=tokens))


@dataclass
class Tally:
    requests: int = 0
    input_total: int = 0
    cache_read: int = 0
    cost: Decimal = Decimal(0)
    saved: Decimal = Decimal(0)
    lost: dict[str, Decimal] = field(default_factory=dict)  # cause -> dollars

    def add(self, seen: Observed, lost: Decimal) -> None:
        self.requests += 1
        self.input_total += seen.usage.input_total
        self.cache_read += seen.usage.cache_read
        if seen.cost is not None and seen.cost_without_cache is not None:
            self.cost += seen.cost
            self.saved += seen.cost_without_cache - seen.cost
        if seen.cause is not None:
            self.lost[seen.cause] = self.lost.get(seen.cause, Decimal(0)) + lost

    def to_dict(self) -> dict[str, Any]:
        return {
            "requests": self.requests,
            "input_tokens": self.input_total,
            "cache_read": self.cache_read,
            "hit_rate": round(self.cache_read / self.input_total, 4) if self.input_total else 0.0,
            "cost": str(self.cost),
            "saved": str(self.saved),
            "lost": {k: str(v) for k, v in sorted(self.lost.items())},
        }


class TeamLedger:
    """Spend per key, user and agent, in total and per UTC day (for the budgets)."""

    def __init__(self, prices: PriceTable) -> None:
        self.prices = prices
        self.by_who: dict[Who, Tally] = {}
        self.total: Tally = Tally()
        self._daily: dict[tuple[int, str, str], Decimal] = {}  # (day, "key"|"user", name)

    def add(self, whom: Who, seen: Observed) -> None:
        lost = lost_dollars(self.prices, seen.model, seen.rebilled) if seen.cause else Decimal(0)
        self.by_who.setdefault(whom, Tally()).add(seen, lost)
        self.total.add(seen, lost)
        day = int(seen.time // DAY)
        for kind, name in (("key", whom.key), ("user", whom.user)):
            if name:
                k = (day, kind, name)
                self._daily[k] = self._daily.get(k, Decimal(0)) + (seen.cost or Decimal(0))
        # Only today's and yesterday's totals matter to a budget: forget older days.
        for k in [k for k in self._daily if k[0] < day - 1]:
            del self._daily[k]

    def spent(self, kind: str, name: str, now: float) -> Decimal:
        return self._daily.get((int(now // DAY), kind, name), Decimal(0))

    def rows(self) -> list[dict[str, Any]]:
        return [
            {"key": w.key, "user": w.user, "agent": w.agent, **t.to_dict()}
            for w, t in sorted(self.by_who.items(), key=lambda kv: -kv[1].cost)
        ]


@dataclass(frozen=True)
class Budgets:
    per_key: Decimal | None = None  # dollars per UTC day
    per_user: Decimal | None = None
    refuse: bool = True  # False: warn only

    def over(self, spent: Callable[[str, str], Decimal], whom: Who) -> str | None:
        """Why `whom` is over a budget today, or None (`spent(kind, name)`: today's dollars
        for a key hash or user: `TeamLedger.spent`, or the shared store's)."""
        for kind, name, limit in (
            ("key", whom.key, self.per_key),
            ("user", whom.user, self.per_user),
        ):
            if limit is None or not name:
                continue
            dollars = spent(kind, name)
            if dollars >= limit:
                return (
                    f"the daily budget of ${limit} for {kind} {name} is spent (${dollars:.4f} "
                    "today, UTC)"
                )
        return None


def budget_error(api: str | None) -> tuple[str, str]:
    """(the error type, the code) a provider uses for spend refused: Anthropic's or OpenAI's."""
    if api == "anthropic":
        return "rate_limit_error", ""
    return "insufficient_quota", "insufficient_quota"
