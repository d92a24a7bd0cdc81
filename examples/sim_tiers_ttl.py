"""Capacity in bytes from the model's architecture, HBM/DRAM/SSD tiers, a TTL, and GPU time saved.

DeepSeek-V3 caches a 576-dim latent per layer (MLA) instead of full K and V, so the same bytes hold
far more tokens than for Llama-3.3-70B. Hits from DRAM and SSD still save the prefill but cost
transfer time, which shows in the estimated TTFT.
"""

from __future__ import annotations

from pathlib import Path

from prefixlock.sim.models import arch, blocks_for_bytes
from prefixlock.sim.simulate import SimConfig, simulate
from prefixlock.sim.tracefile import read_trace

TRACE = (
    Path(__file__).resolve().parent.parent
    / "tests"
    / "sim"
    / "data"
    / "synthetic_head1500.jsonl.gz"
)
trace = read_trace(TRACE)
for model in ("llama-3.3-70b", "deepseek-v3"):
    a = arch(model)
    hbm, dram, ssd = (
        blocks_for_bytes(gb * 1e9, a, "bf16", trace.block_size) for gb in (40, 200, 1000)
    )
    tiers = (hbm, dram, ssd)
    print(
        f"{model}: {a.kv_bytes_per_token('bf16'):,.0f} KV bytes/token; "
        f"tiers (blocks) HBM/DRAM/SSD = {tiers}"
    )
    for ttl in (None, 300.0):
        r = simulate(trace, SimConfig(tiers=tiers, ttl=ttl, model=model, precision="bf16"))
        print(
            f"  ttl={ttl}: hit {r.hit_rate_tokens:.1%} (tokens by tier {r.tier_tokens}), "
            f"prefill GPU-s saved {r.prefill_gpu_s_saved:,.0f}, TTFT mean {r.ttft_mean_s:.2f}s"
        )
