"""Keep-alive: small pings that keep an idle session's prompt cache warm, only while they pay.

A ping re-sends the session's last request with the smallest output the provider allows
(`max_tokens: 0` on Anthropic, a warm-up that reads and bills no output; 1 token on Chat
Completions, 16 on Responses), so it reads the cached prefix and refreshes its TTL. On the
Responses API with gpt-5.6 and later it is a prewarm instead (`prompt_cache_options.prewarm`,
which the openai SDK documents as "Prepares the prompt cache without generating output"): the
cache is read and written as for the request itself, and no output is generated or billed.
A ping's predicted cost counts the output it may bill (its cap; none for a warm-up or prewarm).
It is sent only when the cache is about to expire, only while the pings of this idle stretch
cost less than the re-write they save (the next turn would write the cached tokens again instead
of reading them), and never past the spend cap. `plan_ping` decides, purely, from the guard's
model of the cache and the clock's time; the session's `keepalive_tick()` sends.
"""

# pure: imports no I/O (tests/test_layout.py checks it)

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from decimal import Decimal

from ..cache.units import openai_explicit_cache
from ..providers.lazy_body import copy_body
from ..wire import WireRequest
from .cacheguard import CacheGuard


@dataclass
class KeepAlive:
    """Keep-alive settings and running totals for one session."""

    max_spend: Decimal = Decimal("0.50")  # dollars, all pings of the session together
    margin: float = 30.0  # seconds before expiry at which a ping is due
    max_idle: float | None = None  # stop pinging after this many idle seconds (None: no limit)
    spent: Decimal = Decimal(0)
    pings: int = 0
    read_tokens: int = 0
    idle_spent: Decimal = Decimal(0)  # spent since the last real request
    last_active: float | None = None  # when the last real request went out
    stopped: str | None = None  # why pings stopped, once they have
    history: list[tuple[float, int, Decimal]] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.max_spend = Decimal(str(self.max_spend))

    def record(self, now: float, read_tokens: int, cost: Decimal) -> None:
        """Count a ping sent at `now`: tokens it read and what it cost."""
        self.pings += 1
        self.read_tokens += read_tokens
        self.spent += cost
        self.idle_spent += cost
        self.history.append((now, read_tokens, cost))

    def active_again(self, now: float) -> None:
        """A real request went out: a new idle stretch starts."""
        self.idle_spent = Decimal(0)
        self.last_active = now
        if self.stopped != "cap":
            self.stopped = None


@dataclass(frozen=True)
class PingPlan:
    """Whether to ping now, and the figures behind the decision."""

    send: bool
    reason: str
    due_at: float | None = None  # when the next ping is due (None: none will be)
    cost: Decimal | None = None  # predicted cost of one ping
    saves: Decimal | None = None  # the re-write a warm cache saves the next turn
    request: WireRequest | None = None


RESPONSES_MIN_OUTPUT = 16  # the Responses API's smallest max_output_tokens


def uses_prewarm(last: WireRequest) -> bool:
    """Does a ping for `last` go out as a Responses prewarm? Only gpt-5.6 and later accept
    `prompt_cache_options` (the SDK's docs), and only the Responses API has `prewarm`."""
    return last.api == "openai-responses" and openai_explicit_cache(last.model)


def ping_output_tokens(ping: WireRequest) -> int:
    """Output tokens a ping bills at most: nothing for a warm-up or a prewarm, else its cap."""
    body = ping.body
    if ping.api == "anthropic":
        return int(body.get("max_tokens", 0))
    opts = body.get("prompt_cache_options")
    if isinstance(opts, Mapping) and opts.get("prewarm") is True:
        return 0
    if ping.api == "openai-responses":
        return int(body.get("max_output_tokens", RESPONSES_MIN_OUTPUT))
    return int(body.get("max_completion_tokens", 1))


def ping_request(last: WireRequest) -> WireRequest:
    """The last request with the smallest output the provider allows (same cache units)."""
    body = copy_body(last.body)  # a message recipe stays one (prefixlock.providers.lazy_body)
    if last.api == "anthropic":
        body["max_tokens"] = 0  # warm-up: reads the cache, returns no content
    elif uses_prewarm(last):
        # Same mode and TTL as the request it repeats (they decide which entries are written
        # and how long they live); prewarm only drops the generation.
        opts = body.get("prompt_cache_options")
        body["prompt_cache_options"] = {
            **(opts if isinstance(opts, Mapping) else {}),
            "prewarm": True,
        }
        body.pop("max_output_tokens", None)
    elif last.api == "openai-responses":
        body["max_output_tokens"] = RESPONSES_MIN_OUTPUT
    else:
        body.pop("max_tokens", None)
        body["max_completion_tokens"] = 1
    return WireRequest(
        last.api,
        last.model,
        last.path,
        body,
        last.units,
        last.cache_key,
        {**last.meta, "keepalive": True},
    )


def plan_ping(guard: CacheGuard, last: WireRequest | None, ka: KeepAlive, now: float) -> PingPlan:
    """Decide whether a ping is due at `now`. Pure."""
    if last is None:
        return PingPlan(False, "no request sent yet")
    if ka.stopped == "cap":
        return PingPlan(False, "spend cap reached")
    if ka.stopped == "failed":
        return PingPlan(False, "the last ping failed: none until the session sends again")
    ping = ping_request(last)
    pred = guard.predict(ping, now)
    if pred.read <= 0 or pred.expires_at is None:
        return PingPlan(False, "the cache is cold: nothing left to keep warm")
    price = guard.price(last.model)
    if price is None:
        return PingPlan(False, "unpriced model: cannot tell whether a ping pays")
    # The output a ping bills is part of what it costs (none for a warm-up or a prewarm).
    cost = price.cost(pred.usage(ping_output_tokens(ping)))
    saves = price.input_cost(pred.read, "write_5m") - price.input_cost(pred.read, "read")
    due = pred.expires_at - ka.margin
    idle = None if ka.last_active is None else now - ka.last_active
    if ka.max_idle is not None and idle is not None and idle > ka.max_idle:
        return PingPlan(False, "idle longer than max_idle", None, cost, saves)
    if ka.spent + cost > ka.max_spend:
        ka.stopped = "cap"
        return PingPlan(False, "spend cap reached", None, cost, saves)
    if ka.idle_spent + cost >= saves:
        ka.stopped = "no longer pays"
        return PingPlan(
            False, "pings would cost more than the re-write they save", None, cost, saves
        )
    if now < due:
        return PingPlan(False, "not due yet", due, cost, saves)
    return PingPlan(True, "due", due, cost, saves, ping)
