"""`/metrics`: the proxy's Prometheus counters (prometheus_client, one registry per proxy).

`prefixlock_proxy_requests_total{api,status}`, `..._input_tokens_total{api,model}`,
`..._cache_read_tokens_total{api,model}`, `..._cost_dollars_total{user,agent}`,
`..._lost_dollars_total{cause}` (re-billed prefix beyond its cache price),
`..._refused_total{status}` (answered by the proxy itself: 400, 408, 413, 429, 502, 504),
`..._accounting_errors_total` (answered requests not recorded: a full disk, a read-only store),
the `..._in_flight` gauge, and `..._loop_cpu_seconds` (CPU time of the thread that serves every
request: its parsing, forwarding and relaying, not the accounting done after the answer on the
worker thread): per request, the proxy's own cost on the request path, unlike a wall-clock
latency unchanged by how loaded the machine is.
"""

from __future__ import annotations

from decimal import Decimal

from .observe import Observed
from .team import Who


class Metrics:
    """The proxy's Prometheus counters and gauges, in a registry of their own."""

    def __init__(self) -> None:
        from prometheus_client import CollectorRegistry, Counter, Gauge

        self.registry: CollectorRegistry = CollectorRegistry()
        r = self.registry
        self.requests: Counter = Counter(
            "prefixlock_proxy_requests", "Requests forwarded", ["api", "status"], registry=r
        )
        self.input: Counter = Counter(
            "prefixlock_proxy_input_tokens", "Input tokens billed", ["api", "model"], registry=r
        )
        self.read: Counter = Counter(
            "prefixlock_proxy_cache_read_tokens",
            "Input tokens read from the cache",
            ["api", "model"],
            registry=r,
        )
        self.cost: Counter = Counter(
            "prefixlock_proxy_cost_dollars", "Dollars spent", ["user", "agent"], registry=r
        )
        self.lost: Counter = Counter(
            "prefixlock_proxy_lost_dollars",
            "Dollars lost to cache breaks, by cause",
            ["cause"],
            registry=r,
        )
        self.refused: Counter = Counter(
            "prefixlock_proxy_refused", "Requests the proxy answered itself", ["status"], registry=r
        )
        self.accounting_errors: Counter = Counter(
            "prefixlock_proxy_accounting_errors",
            "Answered requests the proxy could not account or record (a full disk, a read-only "
            "store)",
            registry=r,
        )
        self.in_flight: Gauge = Gauge(
            "prefixlock_proxy_in_flight", "Requests in flight", registry=r
        )
        self.loop_cpu: Gauge = Gauge(
            "prefixlock_proxy_loop_cpu_seconds",
            "CPU seconds of the thread serving requests (the request path)",
            registry=r,
        )

    def observed(self, seen: Observed, whom: Who, lost: Decimal) -> None:
        self.requests.labels(seen.api, str(seen.status)).inc()
        self.input.labels(seen.api, seen.model).inc(seen.usage.input_total)
        self.read.labels(seen.api, seen.model).inc(seen.usage.cache_read)
        if seen.cost is not None:
            self.cost.labels(whom.user or "-", whom.agent or "-").inc(float(seen.cost))
        if seen.cause is not None:
            self.lost.labels(seen.cause).inc(float(lost))

    def render(self) -> bytes:
        from prometheus_client import generate_latest

        return generate_latest(self.registry)
