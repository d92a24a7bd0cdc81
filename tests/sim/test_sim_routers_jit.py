"""The compiled cache-aware routers (`sim.routers_jit`, numba) decide exactly as the Python loop
(`cluster.simulate_aware(compiled=False)`): every request's node, hit blocks, hit tokens and
fetched blocks, for each router, with and without a capacity and a TTL, on both Mooncake slices
(seeded tie-breaks included)."""

from __future__ import annotations

import numpy as np
import pytest

from prefixlock.sim import cluster, engine, models, routers_jit
from prefixlock.sim.trace import Trace

pytestmark = pytest.mark.skipif(not routers_jit.AVAILABLE, reason="numba not installed")


@pytest.mark.slow  # a numba compile, seconds: CI runs it in its slow step
@pytest.mark.parametrize("router", list(routers_jit.ROUTER_CODES))
@pytest.mark.parametrize(("capacity", "ttl"), [(None, None), (3000, None), (800, 300.0)])
def test_compiled_equals_the_loop(
    mooncake: Trace, router: str, capacity: int | None, ttl: float | None
) -> None:
    p = engine.plan(mooncake.head(1500))
    kw = {
        "router": router,
        "nodes": 4,
        "capacity": capacity,
        "ttl": ttl,
        "compute": models.Compute.build("llama-3.3-70b").scalar(),
        "seed": 3,
        "transfer_s_per_block": 0.002,
        "block_size": 512,
    }
    loop = cluster.simulate_aware(p, compiled=False, **kw)  # type: ignore[arg-type]
    jit = cluster.simulate_aware(p, compiled=True, **kw)  # type: ignore[arg-type]
    for a, b in zip(
        (loop.node, loop.hit_blocks, loop.hit_tokens, loop.fetched_blocks),
        (jit.node, jit.hit_blocks, jit.hit_tokens, jit.fetched_blocks),
        strict=True,
    ):
        np.testing.assert_array_equal(a, b)
    assert len(set(loop.node.tolist())) == 4


def test_sglang_balances_on_a_burst(conversation: Trace) -> None:
    # every request at once: in-flight counts diverge and the balance thresholds take over,
    # the same way in both implementations
    t = conversation.head(600)
    p = engine.plan(t)
    burst = engine.Plan(
        p.nodes, p.parent, p.tokens, p.starts, p.req, np.zeros_like(p.times), p.n_nodes, p.warmup
    )
    kw = {"router": "sglang", "nodes": 3, "capacity": 2000, "ttl": None, "compute": (1e-4, 0.0)}
    a = cluster.simulate_aware(burst, compiled=False, **kw)  # type: ignore[arg-type]
    b = cluster.simulate_aware(burst, compiled=True, **kw)  # type: ignore[arg-type]
    np.testing.assert_array_equal(a.node, b.node)
    np.testing.assert_array_equal(a.hit_blocks, b.hit_blocks)
