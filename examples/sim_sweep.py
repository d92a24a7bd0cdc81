"""A sweep: many cache configurations over one trace, in parallel worker processes.

`run_sweep` takes a list of `SimConfig`s (here 3 capacities x 3 eviction policies on the first
3,000 requests of Mooncake's conversation trace, shipped with the tests, Apache-2.0) and returns
their results in the order given, whatever ran where: `executor="process"` (local processes, the
default), `"serial"`, or `"ray"` for a Ray cluster. The array backend is picked as the CLI's
`--backend auto` does: cupy when a GPU is there, numpy otherwise.
"""

from __future__ import annotations

import itertools
from pathlib import Path

from prefixlock.sim.backend import get_backend
from prefixlock.sim.simulate import SimConfig
from prefixlock.sim.sweep import run_sweep
from prefixlock.sim.tracefile import read_trace

TRACE = Path(__file__).resolve().parent.parent / "tests/sim/data/conversation_head3000.jsonl.gz"


def main() -> None:
    trace = read_trace(TRACE)
    backend = get_backend("auto").name
    configs = [
        SimConfig(capacity=cap, policy=policy, price="claude-sonnet-4-6")
        for cap, policy in itertools.product((2000, 8000, 20000), ("lru", "fifo", "optimal"))
    ]
    results = run_sweep(trace, configs, executor="process", jobs=2, backend=backend)
    print(f"{trace.name}: {trace.requests:,} requests, {len(configs)} configurations on {backend}")
    print(f"{'configuration':>22} {'hit (tokens)':>13} {'$':>8}")
    for cfg, r in zip(configs, results, strict=True):
        print(f"{cfg.label():>22} {r.hit_rate_tokens:13.2%} {r.dollars:8.2f}")
    serial = run_sweep(trace, configs[:3], executor="serial", backend=backend)
    same = [a.to_dict() == b.to_dict() for a, b in zip(serial, results[:3], strict=True)]
    print("process results equal serial ones:", all(same))


if __name__ == "__main__":
    main()
