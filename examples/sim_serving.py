"""The serving model against Mooncake's published figures, offline.

1. The prefill cost model: a fixed cost per request plus compute at an MFU, both fitted to
   Mooncake's Fig. 14 (8 x A800, LLaMA2-70B: 27.5 s at 128K tokens, 0.14 s for an 8K prompt 95%
   cached), and the MoE efficiency fitted to SGLang's DeepSeek-V3 prefill (6.54K tokens/s/GPU).
2. Disaggregation: co-located chunked prefill stalls decode (the time between tokens jumps by
   a prefill chunk), so a vLLM-like cluster of 4 nodes serves fewer requests within p90 TTFT
   30 s and TBT 0.1 s than a Mooncake-like one of 3 prefill + 1 decode nodes with a KV pool;
   Mooncake reports +59% to +498%.
3. The KV's handoff to a decode node (Mooncake Fig. 14: scheduling, transfer at 87 GB/s, load
   into HBM at 102 GB/s), which `SimConfig(handoff=True)` adds to each TTFT.
4. A cluster's LRU curve (each node's, summed) beside the one-pool curve, and a run's memory
   estimate. The trace: the first 1,500 requests of Mooncake's conversation trace (shipped with
   the tests, Apache-2.0).
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from prefixlock.sim import engine, models
from prefixlock.sim.capacity import Decode, max_rate
from prefixlock.sim.memory import estimate_bytes
from prefixlock.sim.simulate import SimConfig, cluster_curve, node_curves, simulate
from prefixlock.sim.tracefile import read_trace

TRACE = Path(__file__).resolve().parent.parent / "tests/sim/data/conversation_head3000.jsonl.gz"


def main() -> None:
    a800 = models.Compute.build("llama-2-70b", "a800", gpus=8, weight_precision="bf16")
    print(f"node: {a800.describe()}")
    for n, c in ((131_072, 0), (8192, 7782)):
        print(f"  prefill {n:,} tokens, {c:,} cached: {float(a800.prefill_seconds(n, c)):.2f} s")
    ds = models.Compute.build("deepseek-v3", "h100")
    print(f"DeepSeek-V3 on H100: {ds.saturated_tokens_per_gpu(2000):,.0f} prefill tokens/s/GPU")

    trace = read_trace(TRACE).head(1500)
    base = SimConfig(
        model="llama-2-70b",
        gpu="a800",
        gpus=8,
        weight_precision="bf16",
        precision="bf16",
        price=None,
    )
    co = max_rate(
        trace,
        replace(base, capacity=953, nodes=4, router="round-robin"),
        slo_s=30.0,
        decode=Decode(batch=64, tpot_slo_s=0.1),
    )
    dis = max_rate(
        trace,
        replace(base, capacity=5960, nodes=4, router="ttft"),
        slo_s=30.0,
        decode=Decode(batch=64, disaggregated=True, decode_share=0.25, tpot_slo_s=0.1),
    )
    print(
        f"co-located: {co.max_rps:.2f} req/s; disaggregated 3P+1D: {dis.max_rps:.2f} req/s "
        f"({dis.max_rps / co.max_rps - 1:+.0%}; Mooncake: +59% to +498%)"
    )

    kv = a800.arch.kv_bytes_per_token("bf16")
    trip = float(models.handoff_seconds(131_072, kv))
    print(f"  handoff to a decode node at 128K tokens: {trip:.2f} s")
    prefill_pool = replace(base, capacity=5960, nodes=8, router="ttft", warmup=0.0)
    alone = simulate(trace, prefill_pool)
    handed = simulate(trace, replace(prefill_pool, handoff=True))
    print(
        f"  mean TTFT on 8 prefill nodes: {alone.ttft_mean_s:.2f} s, with the handoff "
        f"{handed.ttft_mean_s:.2f} s"
    )

    plan = engine.plan(trace)
    nodes = node_curves(trace, replace(base, nodes=4, router="round-robin"), plan)
    whole = cluster_curve(nodes)
    pool = node_curves(trace, base, plan)[0]
    for cap in (500, 2000, 8000):
        print(
            f"  {cap:>5,} blocks a cache: 4 round-robin nodes {whole.at(cap)[0]:.1%}, "
            f"one pool {pool.at(cap)[0]:.1%}"
        )
    need = estimate_bytes(trace.requests, trace.references)
    print(f"memory estimate for this trace: {need / 1e6:,.0f} MB")


if __name__ == "__main__":
    main()
