"""The client x server matrix: what a cache-friendly client and a cache-aware server are worth.

The same synthetic agent workload is generated once per client style (stable prefix, timestamp in
the system prompt, shuffled tools, mid-session model switch) and replayed against a cache-aware
server (session / cache-key affinity, LRU, enough HBM per node) and a crude one (random routing,
FIFO, a small cache). The good server is not prefix-aware routing: on this light load the longest
match (the shared tools and system prompt) draws every session to one node of eight, and a router
that does that is not a good router. Each cell reports hit rate and dollars under a price table,
and the load balance beside them (max/mean requests per node); `summary` measures the claim that
a tight client on a good server costs several times less than either alone.
"""

# pure: imports no I/O (tests/test_layout.py checks it)

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from .simulate import SimConfig, simulate
from .synthetic import STYLES, Workload, generate

SERVERS: dict[str, SimConfig] = {
    "cache-aware": SimConfig(capacity=8192, policy="lru", nodes=8, router="session", warmup=0.0),
    "crude": SimConfig(capacity=1024, policy="fifo", nodes=8, router="random", warmup=0.0),
}


@dataclass(frozen=True)
class Cell:
    style: str
    server: str
    hit_rate: float
    dollars: float
    dollars_without_cache: float
    requests: int
    # max/mean requests per node: a router that piles everything onto one node shows here
    load_max_mean_requests: float = 1.0


def run_matrix(
    workload: Workload | None = None,
    *,
    styles: Sequence[str] = STYLES,
    servers: dict[str, SimConfig] | None = None,
    price: str = "claude-sonnet-4-6",
) -> list[Cell]:
    """One cell per (client style, server)."""
    cells: list[Cell] = []
    for style in styles:
        trace = generate(replace(workload or Workload(), style=style))
        for name, cfg in (servers or SERVERS).items():
            r = simulate(trace, replace(cfg, price=price, name=f"{style}/{name}"))
            cells.append(
                Cell(
                    style,
                    name,
                    r.hit_rate_tokens,
                    r.dollars or 0.0,
                    r.dollars_without_cache or 0.0,
                    r.requests,
                    r.load_max_mean_requests,
                )
            )
    return cells


def summary(
    cells: Sequence[Cell], tight: str = "stable", good: str = "cache-aware"
) -> dict[str, float]:
    """Cost of each other cell divided by the cost of a tight client on a good server."""
    base = next(c for c in cells if c.style == tight and c.server == good)
    return {
        f"{c.style}/{c.server}": c.dollars / base.dollars if base.dollars else float("inf")
        for c in cells
        if not (c.style == tight and c.server == good)
    }
