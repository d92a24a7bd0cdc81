"""Routers on a cluster: hit rate next to load balance, on a synthetic agent workload.

Sixty agent sessions over four nodes of 40 GB KV each (Llama-3.3-70B, FP8 KV): random and
round-robin routing scatter a session's turns; session affinity and prefix-aware routing keep them
where their cache is; lowest-estimated-TTFT weighs queue time too (ttft-local without copying a
prefix from another node); least-loaded takes the shortest queue. A router that piles everything
onto one node would show it in the load column.
"""

from __future__ import annotations

from prefixlock.sim.models import arch, blocks_for_bytes
from prefixlock.sim.simulate import SimConfig, simulate
from prefixlock.sim.synthetic import Workload, generate

trace = generate(Workload(sessions=60, turns=12, seed=5))
blocks = blocks_for_bytes(40e9, arch("llama-3.3-70b"), "fp8", trace.block_size)
print(f"{trace.requests:,} requests; 4 nodes x {blocks:,} blocks of {trace.block_size} tokens")
print(
    f"{'router':>14} {'hit':>7} {'TTFT p99':>9} {'max/mean req':>13} {'max/mean tok':>13} {'$':>8}"
)
for router in (
    "random",
    "round-robin",
    "session",
    "least-loaded",
    "sglang",
    "longest-prefix",
    "ttft",
    "ttft-local",
):
    r = simulate(trace, SimConfig(capacity=blocks, nodes=4, router=router, warmup=0.2))
    print(
        f"{router:>14} {r.hit_rate_tokens:7.1%} {r.ttft_p99_s:8.2f}s "
        f"{r.load_max_mean_requests:13.2f} "
        f"{r.load_max_mean_tokens:13.2f} {r.dollars:8.2f}"
    )
