"""The serving model against published figures: the prefill cost model's fit (Mooncake Fig. 14,
SGLang's DeepSeek-V3 deployment), chunked prefill stalling co-located decode, and the capacity
gain of disaggregation (Mooncake Fig. 1/7), each with its tolerance and why.

Mooncake Fig. 5's four schedulers are checked by their TTFT relative to each other at 8 prefill
nodes and, absolutely, at the prefill-node count the published level implies (the split is not
published); the paper's Figs. 8, 14 and 15b, read from its PDF (golden/mooncake_figs.json), check
the per-request prefill time, the handoff to a decode node and the queues. Where the simulator
does not reproduce a published level (Fig. 5's cache-blind schedulers, SGLang v0.4's router hit
rates), the measured value is pinned beside the published one so that a change shows; those tests
say why and the README's table lists the gap.
"""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from prefixlock.sim import cluster, engine, models
from prefixlock.sim.capacity import Decode, admit, max_rate, stalled_tbt
from prefixlock.sim.simulate import SimConfig, simulate
from prefixlock.sim.trace import Trace
from prefixlock.sim.tracefile import read_trace
from tests.sim.test_sim_golden import FULL, SYNTHETIC

FIGS = json.loads((Path(__file__).parent / "golden" / "mooncake_figs.json").read_text("utf-8"))

# Mooncake (Qin et al., FAST'25) runs a dummy LLaMA2-70B on nodes of 8 x A800-SXM4-80GB.
MOONCAKE = SimConfig(
    model="llama-2-70b",
    gpu="a800",
    gpus=8,
    weight_precision="bf16",
    precision="bf16",
    price=None,
)


def _a800() -> models.Compute:
    return models.Compute.build("llama-2-70b", "a800", gpus=8, weight_precision="bf16")


def test_fig14_prefill_times_are_the_fit() -> None:
    # Mooncake Fig. 14: 27.5 s to prefill 128K tokens, 0.14 s for an 8K prompt 95% cached. The
    # MFU and the fixed cost are solved from these two points, so the tolerance (1%) only
    # covers the rounding of the constants; the old one-MFU model gave 36.0 s and 0.06 s.
    node = _a800()
    assert float(node.prefill_seconds(131_072)) == pytest.approx(27.5, rel=0.01)
    assert float(node.prefill_seconds(8192, round(8192 * 0.95))) == pytest.approx(0.14, rel=0.01)
    # the achieved MFU grows with the tokens computed: the fixed cost dominates short prefills
    achieved = [
        float(node.arch.flops(n)) / (float(node.prefill_seconds(n)) * 8 * 312e12)
        for n in (512, 4096, 32_768, 131_072)
    ]
    assert achieved == sorted(achieved) and achieved[0] < 0.2 < 0.55 < achieved[-1]
    assert set(models.FIT) == {"mfu", "overhead_s", "moe_efficiency"}


def test_fig14_held_out_lengths_and_the_handoff() -> None:
    # The other eight prefill bars of Mooncake Fig. 14 (8K-64K uncached, 16K-128K 95% cached;
    # read from the PDF's drawing, golden/mooncake_figs.json) are not part of the fit: measured
    # 5% to 16% below each; tolerance 20%. The handoff to a decode node (transfer + load into
    # HBM, fitted at 128K) within 0.01 s at every length, both panels.
    node = _a800()
    bpt = node.arch.kv_bytes_per_token("bf16")
    sizes = {"8k": 8192, "16k": 16_384, "32k": 32_768, "64k": 65_536, "128k": 131_072}
    held_out = [("cached_0", k) for k in sizes if k != "128k"]
    held_out += [("cached_95", k) for k in sizes if k != "8k"]
    for panel, length in held_out:
        n = sizes[length]
        paper = FIGS["fig14_latency_s"][panel][length]
        cached = 0 if panel == "cached_0" else round(n * 0.95)
        ours = float(node.prefill_seconds(n, cached))
        assert ours == pytest.approx(paper["prefill"], rel=0.2), (length, panel, ours)
        assert ours < paper["prefill"]  # pinned: the model runs a little fast off the fit
    for length, n in sizes.items():
        for panel in ("cached_0", "cached_95"):
            paper = FIGS["fig14_latency_s"][panel][length]
            trip = paper["transfer"] + paper["load_cache"]
            ours_trip = float(models.handoff_seconds(n, bpt)) - models.HANDOFF_SCHEDULE_S
            assert ours_trip == pytest.approx(trip, abs=0.01)
            # the scheduling bar varies from 0.03 to 0.09 s; the model takes 0.05 s
            assert abs(paper["schedule"] - models.HANDOFF_SCHEDULE_S) < 0.04


def test_fig8_prefill_gpu_time_per_request() -> None:
    # Mooncake Fig. 8: the mean prefill GPU time of a request in its end-to-end runs, 0.733 s on
    # the synthetic workload (1.062 s on the conversation trace, checked on the full trace
    # below). Held out from the compute model's fit (Fig. 14 times single requests); here the
    # Conductor's router on 8 prefill nodes with 1 TB of DRAM cache each. Measured 0.773 s
    # (+5%); tolerance 10%: the paper's cluster split, and so its hit rate, is not given.
    t = read_trace(SYNTHETIC)
    r = simulate(t, replace(MOONCAKE, capacity=5960, nodes=8, router="ttft", warmup=0.0))
    per_request = r.prefill_gpu_s / r.gpus_per_node / r.measured_requests
    paper = FIGS["fig8_prefill_gpu_time_s"]["synthetic"]["mooncake"]
    assert per_request == pytest.approx(paper, rel=0.1)
    assert per_request == pytest.approx(0.773, rel=0.01)


def test_fig15b_ttft_against_the_prefill_decode_split() -> None:
    # Mooncake Fig. 15b: mean TTFT of the synthetic workload on 16 nodes split 5P11D ... 11P5D,
    # the one published TTFT whose prefill-node count is known. Here the trace at its own
    # (Poisson) timestamps, the Conductor's router, 1 TB of DRAM cache a node, and the handoff
    # to the decode node. Paper 5.74 / 1.71 / 1.30 / 1.19 / 1.12 / 1.11 / 1.14 s; measured
    # 2.75 / 1.27 / 1.04 / 0.96 / 0.94 / 0.93 / 0.93 s: 16-26% low from 6P on (tolerance 30%),
    # and the knee in the same place (from 6P to 5P the TTFT more than doubles in both; the
    # paper's more than triples: its queues grow faster near saturation than FIFO queues of
    # single prefills do).
    t = read_trace(SYNTHETIC)
    p = engine.plan(t, warmup=0.0)
    cfg = replace(MOONCAKE, capacity=5960, router="ttft", warmup=0.0, handoff=True)
    ours = {n: simulate(t, replace(cfg, nodes=n), plan=p).ttft_mean_s for n in range(5, 12)}
    paper = {int(k[: k.index("P")]): v for k, v in FIGS["fig15b_ttft_s"].items()}
    for n in range(6, 12):
        assert ours[n] == pytest.approx(paper[n], rel=0.3), (n, ours[n], paper[n])
        assert ours[n] < paper[n]  # pinned: the model runs low everywhere
    assert ours[5] > 2 * ours[6] and paper[5] > 2 * paper[6]
    assert ours[8] == pytest.approx(0.962, rel=0.02)


def test_held_out_anchor_llama_fp8_on_h100() -> None:
    # Not part of the fit: Llama-3.3-70B FP8 on 2 x H100 prefills about 12.3k tokens/s at a
    # 5k-token prompt; within 2% (the model gives 12.4k), on other GPUs and another precision.
    node = models.Compute.build("llama-3.3-70b", "h100")
    assert 5000 / float(node.prefill_seconds(5000)) == pytest.approx(12_300, rel=0.02)


def test_deepseek_v3_prefill_per_gpu_with_moe_overhead() -> None:
    # LMSYS blog 2025-05-05 (DeepSeek-V3 on 96 H100s, PD disaggregation, large-scale EP): 52.3k
    # input tokens/s per 8-GPU prefill node at 2,000-token inputs = 6.54K per GPU. The MoE
    # efficiency is fitted to this point (3% covers its rounding); without it the dense-model
    # rate gives 11.66K at MFU 0.45 (the old model) and more at 0.59.
    node = models.Compute.build("deepseek-v3", "h100")
    assert node.saturated_tokens_per_gpu(2000) == pytest.approx(6540, rel=0.03)
    dense = models.Compute(node.arch, node.gpu, node.gpus, moe_efficiency=1.0)
    assert dense.saturated_tokens_per_gpu(2000) > 1.8 * node.saturated_tokens_per_gpu(2000)
    # a dense model is not slowed
    llama = models.Compute.build("llama-3.3-70b", "h100")
    assert llama.linear_slowdown == 1.0


def test_deepseek_v3_prefill_held_out_on_gb200() -> None:
    # Held out from the MoE fit (an H100 point): LMSYS blog 2025-09-25, "Deploying DeepSeek on
    # GB200 NVL72 with PD and Large Scale EP (Part II)": 18,471 input tokens/s per GPU for
    # prefill at 2,000-token inputs with BF16 attention and FP8 MoE, the same serving setup as
    # the fit's (SGLang, PD disaggregation, large-scale EP). GB200 per GPU from NVIDIA's GB200
    # NVL72 datasheet (72 GPUs: 13.4 TB HBM3e at 576 TB/s, FP8 720 and BF16 360 PFLOPS with
    # sparsity: 5 PF FP8 dense a GPU; some third-party tables give the HGX B200's 4.5, with which
    # the model gives 14.8K, 20% low). The model gives 16.5K, 11% low; tolerance 15%: a newer
    # chip's kernels (the blog credits Blackwell-specific GEMM and attention kernels) need not
    # reach the H100 kernels' share of peak that the MoE efficiency was fitted on.
    gb200 = models.GPU("gb200", 13.4e12 / 72, 2.5e15, 5e15, 8e12, 0.0, "GB200 NVL72 datasheet")
    node = models.Compute(models.arch("deepseek-v3"), gb200, 8)
    assert node.saturated_tokens_per_gpu(2000) == pytest.approx(18_471, rel=0.15)
    assert node.saturated_tokens_per_gpu(2000) == pytest.approx(16_470, rel=0.01)


def test_chunked_prefill_stalls_decode() -> None:
    # A decode step of 25 ms carrying 190 ms of prefill chunk: once more than a tenth of the
    # steps carry one, the p90 time between tokens is the stalled step.
    step, chunk = 0.025, 0.19
    idle, busy = stalled_tbt(step, chunk, 0.0, 10.0)
    assert idle == step and busy == pytest.approx(0.25)
    light = stalled_tbt(step, chunk, 0.05, 10.0)[0]
    heavy, heavy_busy = stalled_tbt(step, chunk, 0.6, 10.0)
    assert light == step and heavy == pytest.approx(step + chunk) and heavy_busy < 1.0
    assert stalled_tbt(step, chunk, 0.95, 10.0)[0] == float("inf")  # no time left to decode


def test_fig7_disaggregation_gain_has_the_published_sign_and_size(conversation: Trace) -> None:
    # Mooncake FAST'25 (abstract, Fig. 1 and Fig. 7): disaggregation with its KV pool raises the
    # effective request capacity under TTFT and TBT objectives by 59% to 498% against vLLM on the
    # same GPUs. Here: 4 nodes of 8 x A800 on the first 1,500 requests of the conversation trace;
    # vLLM-like: co-located chunked prefill (2,048-token chunks), round-robin, a prefix cache in
    # the HBM the weights leave (953 blocks); Mooncake-like: 3 prefill + 1 decode node, the
    # Conductor's TTFT router, a 1 TB DRAM pool per node (5,960 blocks). The objectives are ours
    # (the paper scales its thresholds from an unloaded request's latency): p90 TTFT 30 s, p90
    # TBT 0.1 s (about 4x the unloaded 24 ms step). Tolerance: the published range. Measured
    # +159%; the old mean-slowdown decode model gave -3% to -8%.
    t = conversation.head(1500)
    tbt = Decode(batch=64, tpot_slo_s=0.1)
    co = max_rate(
        t,
        replace(MOONCAKE, capacity=953, nodes=4, router="round-robin"),
        slo_s=30.0,
        decode=tbt,
    )
    dis = max_rate(
        t,
        replace(MOONCAKE, capacity=5960, nodes=4, router="ttft"),
        slo_s=30.0,
        decode=Decode(batch=64, disaggregated=True, decode_share=0.25, tpot_slo_s=0.1),
    )
    gain = dis.max_rps / co.max_rps - 1
    assert 0.59 <= gain <= 4.98, gain
    assert gain == pytest.approx(1.59, abs=0.15)
    # What limits the co-located cluster is the TBT: past about 0.8 req/s more than a tenth of
    # its decode steps carry a 2,048-token chunk and p90 TBT is 0.22 s. Disaggregation alone
    # (the same cache and router on both sides) gains +76%, also within the published range.
    alone = max_rate(
        t,
        replace(MOONCAKE, capacity=953, nodes=4, router="round-robin"),
        slo_s=30.0,
        decode=Decode(batch=64, disaggregated=True, decode_share=0.25, tpot_slo_s=0.1),
    )
    assert alone.max_rps / co.max_rps - 1 == pytest.approx(0.76, abs=0.1)
    loose = max_rate(
        t,
        replace(MOONCAKE, capacity=953, nodes=4, router="round-robin"),
        slo_s=30.0,
        decode=Decode(batch=64, tpot_slo_s=0.3),
    )
    assert loose.max_rps > 1.4 * co.max_rps  # without the TBT bound co-location serves more


# Mooncake Fig. 5 (§4.2): mean TTFT of four prefill schedulers on a cluster of 16 nodes of
# 8 x A800 replaying the conversation trace at its timestamps (§5.2.1). The paper does not give
# the cluster's prefill/decode split for this figure; its P/D study (§5.5, Fig. 15) finds about
# 1:1 best on 16 nodes, so 8 prefill nodes here. Each node caches in the 1 TB of DRAM it reserves
# (5,960 blocks of 512 tokens at LLaMA-70B's 320 KB a token, §5.3.1). The schedulers: random;
# "load-balancing", the lightest-loaded instance (least-loaded); "local cache-aware", queue +
# prefill of the uncached part on each node's own cache (§4.1, ttft-local); "global
# cache-aware", the same with copies from the node holding the longest prefix (§4.2, ttft).
FIG5 = {"random": 19.65, "least-loaded": 5.27, "ttft-local": 3.58, "ttft": 3.07}


def _fig5(trace: Trace, nodes: int = 8) -> dict[str, float]:
    p = engine.plan(trace, warmup=0.0)  # the mean over the whole replay
    cfg = replace(MOONCAKE, capacity=5960, nodes=nodes, warmup=0.0)
    return {r: simulate(trace, replace(cfg, router=r), plan=p).ttft_mean_s for r in FIG5}


def _check_fig5(ttft: dict[str, float]) -> None:
    assert ttft["random"] > ttft["least-loaded"] > ttft["ttft-local"] > ttft["ttft"]
    # Each scheduler's mean TTFT over the global cache-aware one's: paper 6.40, 1.72, 1.17.
    # Tolerance 30%: the split of the 16 nodes is not published, and one prefill node more or
    # less moves random's ratio by about a fifth (queueing at 60-70% utilisation); the two
    # cache-aware schedulers' ratio moves by a few percent.
    for r in ("random", "least-loaded", "ttft-local"):
        ours, paper = ttft[r] / ttft["ttft"], FIG5[r] / FIG5["ttft"]
        assert ours == pytest.approx(paper, rel=0.3), (r, ours, paper)


def test_fig5_schedulers_relative_ttft_on_the_slice(conversation: Trace) -> None:
    # The first 3,000 requests (about 14 minutes of the trace): ratios 4.95, 1.42, 1.09.
    ttft = _fig5(conversation)
    _check_fig5(ttft)
    # At 8 prefill nodes the level is about 2.5x below the paper's (measured 7.07 / 2.02 / 1.56
    # / 1.43 s); the test below finds the prefill-node count the published level implies.
    assert ttft["ttft"] == pytest.approx(1.43, rel=0.05)
    assert ttft["random"] == pytest.approx(7.07, rel=0.05)


@pytest.mark.slow  # the full trace, 12,031 requests
def test_fig5_schedulers_relative_ttft_on_the_full_trace() -> None:
    if not FULL.exists():
        pytest.skip(f"full Mooncake trace {FULL} not present")
    ttft = _fig5(read_trace(FULL))
    # measured 6.01 / 1.78 / 1.34 / 1.21 s: ratios 4.97, 1.47, 1.11 (paper 6.40, 1.72, 1.17)
    _check_fig5(ttft)
    assert ttft["ttft"] == pytest.approx(1.21, rel=0.05)


# Why Fig. 5's level is not reached at 8 prefill nodes, measured against the paper's own
# figures (golden/mooncake_figs.json, read from the PDF): each request's prefill time is right
# (Fig. 8, 1.062 s a request on this trace: the model gives 1.064 s at 8 nodes, below), the
# handoff to the decode node is in (Fig. 14) and the queueing model reproduces Fig. 15b, where
# the split is published, within 16-26%. What is left is the load on the prefill nodes: at 8 of
# them they are 45% busy and few requests wait, while the paper's median request (1.72 s with
# the global scheduler) waits for longer than a mean prefill. The split of Fig. 5's 16 nodes is
# not published; 5 prefill nodes (5P11D, in the range of Fig. 15) is the count whose global
# cache-aware mean is nearest the paper's (5P 2.66 s, 6P 1.76 s against 3.07 s).
FIG5_PAPER = FIGS["fig5_ttft_s"]


@pytest.mark.slow  # the full trace, 12,031 requests, four schedulers
def test_fig5_absolute_ttft_at_the_split_the_level_implies() -> None:
    if not FULL.exists():
        pytest.skip(f"full Mooncake trace {FULL} not present")
    t = read_trace(FULL)
    p = engine.plan(t, warmup=0.0)
    cfg = replace(MOONCAKE, capacity=5960, warmup=0.0, handoff=True)
    at8 = simulate(t, replace(cfg, nodes=8, router="ttft"), plan=p)
    fig8 = FIGS["fig8_prefill_gpu_time_s"]["conversation"]["mooncake"]
    assert at8.prefill_gpu_s / at8.gpus_per_node / at8.measured_requests == pytest.approx(
        fig8, rel=0.02
    )
    assert max(at8.node_utilisation) < 0.5
    res = {r: simulate(t, replace(cfg, nodes=5, router=r), plan=p) for r in FIG5}
    # The two cache-aware schedulers, mean and median: measured global 2.66 / 1.67 s (paper
    # 3.07 / 1.72), local 3.36 / 2.23 s (3.58 / 2.16). The count was chosen by the global mean,
    # so the local mean and both medians are the held-out checks. Tolerance 20%: one prefill
    # node more moves the global mean by 34%, so 20% is finer than the unknown's own step.
    for ours, paper in (("ttft", "global cache-aware"), ("ttft-local", "local cache-aware")):
        assert res[ours].ttft_mean_s == pytest.approx(FIG5_PAPER[paper]["mean"], rel=0.2)
        assert res[ours].ttft_p50_s == pytest.approx(FIG5_PAPER[paper]["median"], rel=0.2)
    assert res["ttft"].ttft_mean_s == pytest.approx(2.66, rel=0.03)
    # Not reproduced, pinned: the cache-blind schedulers overshoot at 5 nodes (load-balancing
    # 7.62 s against 5.27, random 40.1 against 19.65): with per-node caches they hit 13% of the
    # tokens and keep the nodes 95-99% busy, where queues explode (and where a few per cent of
    # prefill time moves them by half: test_fig5_cache_blind_levels_sit_on_the_queue_knee).
    # Per-node caches are the paper's setting (§4.2: "each prefill instance has its own set of
    # local prefix caches"; random and load-balancing pick an instance, and only the global
    # cache-aware scheduler moves KV between instances, Algorithm 1). One pooled cache, below,
    # is a bound, not the paper's run.
    assert res["least-loaded"].ttft_mean_s == pytest.approx(7.62, rel=0.05)
    assert res["random"].ttft_mean_s == pytest.approx(40.1, rel=0.05)
    assert res["least-loaded"].ttft_mean_s > FIG5_PAPER["load-balancing"]["mean"]
    assert res["random"].ttft_mean_s > FIG5_PAPER["random"]["mean"]
    # Random placement on 5 nodes that all read one pooled cache of the same total size: the
    # prefill times of a single pool, queued where the random router puts each request.
    kept: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []
    pool = replace(cfg, capacity=5 * 5960, nodes=1)
    simulate(t, pool, plan=p, keep=kept)
    _, arrival, service = kept[0]
    node = cluster.assign("random", 5, t.keys(), t.ids[t.starts[:-1]], cfg.seed)
    trip = models.handoff_seconds(t.input_len, MOONCAKE.compute().arch.kv_bytes_per_token("bf16"))
    pooled = float((cluster.queue_ttft(node, arrival, service, 5) + trip).mean())
    # measured 10.6 s: the paper's 19.65 s lies between the pooled and the per-node caches
    assert pooled == pytest.approx(10.6, rel=0.05)
    assert pooled < FIG5_PAPER["random"]["mean"] < res["random"].ttft_mean_s


@pytest.mark.slow
def test_fig5_cache_blind_levels_sit_on_the_queue_knee() -> None:
    # Why Fig. 5's cache-blind means are not pinned by this model, without fitting anything:
    # the paper states neither the prefill-node count (16 nodes, split not given) nor whether
    # random and load-balancing used the early rejection of Algorithm 1 (lines 18-19; §5.1 sets
    # the TTFT objective to 30 s). Its TTFT is queueing + prefill (+ the KV transfer), as
    # Algorithm 1 estimates it and as §5.1 measures it per request, the same as here.
    if not FULL.exists():
        pytest.skip(f"full Mooncake trace {FULL} not present")
    t = read_trace(FULL)
    p = engine.plan(t, warmup=0.0)
    cfg = replace(MOONCAKE, capacity=5960, warmup=0.0, handoff=True, nodes=5)
    trip = models.handoff_seconds(t.input_len, MOONCAKE.compute().arch.kv_bytes_per_token("bf16"))
    mean: dict[tuple[str, float], float] = {}
    served: dict[str, tuple[float, float, float]] = {}
    for r in ("random", "least-loaded", "ttft"):
        kept: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []
        simulate(t, replace(cfg, router=r), plan=p, keep=kept)
        node, arrival, service = kept[0]
        for scale in (0.96, 1.0, 1.04):
            mean[r, scale] = float(
                (cluster.queue_ttft(node, arrival, service * scale, 5) + trip).mean()
            )
        # Early rejection at 30 s on the same service times (rejected requests still warm the
        # caches here, so this slightly flatters the served ones).
        ok, ttft = admit(node, arrival, service, 5, 30.0)
        got = ttft[ok] + trip[ok]
        served[r] = (float(ok.mean()), float(got.mean()), float(np.percentile(got, 75)))
    # Prefill 4% faster or slower (Fig. 14's held-out bars are 5-16% off, Fig. 8's mean 0.2%)
    # moves random's mean from 27 to 62 s and load-balancing's from 5.1 to 14 s (the paper:
    # 19.65 and 5.27 s), the global cache-aware one only from 2.4 to 3.0 s: at 95-99% busy
    # nodes the cache-blind levels are the model's prefill-time error magnified, not a check.
    assert mean["random", 0.96] < 0.75 * mean["random", 1.0] < mean["random", 1.04] / 1.2
    assert mean["least-loaded", 0.96] == pytest.approx(5.1, rel=0.05)
    assert mean["least-loaded", 1.04] > 1.5 * mean["least-loaded", 1.0]
    assert mean["ttft", 1.04] / mean["ttft", 0.96] < 1.3
    # Rejecting past 30 s turns away 1.1% of random's requests and cuts its mean from 40.1 to
    # about 10.4 s (q3 17 s). The paper's random box (mean 19.65 s, q3 29.3 s just under the
    # 30 s objective, the upper whisker off the axis) fits neither reading cleanly, and the
    # paper does not say which applied: both are pinned, neither is fitted.
    share, served_mean, q3 = served["random"]
    assert share == pytest.approx(0.989, abs=0.005)
    assert served_mean == pytest.approx(10.4, rel=0.05)
    assert q3 == pytest.approx(17.0, rel=0.05)
    assert served_mean < FIG5_PAPER["random"]["mean"] < mean["random", 1.0]
    assert served["ttft"][0] > 0.999  # the global cache-aware run rejects one request in 12K


# SGLang v0.4 blog (lmsys.org, 2024-12-04, "Cache-Aware Load Balancer"): the cache-aware router
# lifts the cache hit rate from 20% (SGLang's own --dp-size 8, which deals requests round-robin)
# to 75%, and throughput from 82,665 to 158,596 token/s, on 8 x A100 80GB serving
# Meta-Llama-3.1-8B-Instruct at default server settings, driven by `bench_serving.py
# --dataset-name generated-shared-prefix` with no other options (the blog's reproduce block;
# the same table is in sglang PR #2170). That workload (sglang PR #1990) at its defaults: 64
# groups of 16 prompts, a 2,048-token system prompt and a 128-token question each, 256 output
# tokens, shuffled, all 1,024 sent at once (request rate inf; PR #1990's own log shows it).
GSP_GROUPS, GSP_PER, GSP_SYSTEM, GSP_QUESTION, GSP_OUTPUT = 64, 16, 2048, 128, 256
# Decoding the random tokens and encoding the text again gives more tokens: PR #1990's log
# counts 2,326,152 input tokens for the 1,024 prompts, 2,272 a prompt against 2,176 asked for.
GSP_TOKENIZER_GROWTH = 2_326_152 / (1024 * (GSP_SYSTEM + GSP_QUESTION))


def _gsp_burst(seed: int = 0) -> Trace:
    """The generated-shared-prefix workload as one burst, prompts shuffled, 16-token blocks."""
    rng = np.random.default_rng(seed)
    bs = 16
    sys_blocks, q_blocks = GSP_SYSTEM // bs, GSP_QUESTION // bs
    ids: list[int] = []
    starts = [0]
    nxt = GSP_GROUPS * sys_blocks + 1
    for k in rng.permutation(GSP_GROUPS * GSP_PER):
        g = int(k) // GSP_PER
        ids += list(range(g * sys_blocks, (g + 1) * sys_blocks)) + list(range(nxt, nxt + q_blocks))
        nxt += q_blocks
        starts.append(len(ids))
    n = GSP_GROUPS * GSP_PER
    return Trace(
        np.array(ids, np.int64),
        np.full(len(ids), bs, np.int32),
        np.array(starts, np.int64),
        np.zeros(n),  # the burst
        np.full(n, GSP_SYSTEM + GSP_QUESTION, np.int64),
        np.full(n, GSP_OUTPUT, np.int64),
        np.full(n, -1, np.int64),
        np.zeros(n, np.int64),
        np.zeros(n, np.int64),
        bs,
    )


def _gsp_hits(trace: Trace, capacity: int | None = None) -> dict[str, float]:
    return {
        r: simulate(
            trace,
            SimConfig(
                nodes=8,
                router=r,
                model="llama-3.1-8b",
                price=None,
                warmup=0.0,
                capacity=capacity,
            ),
        ).hit_rate_tokens
        for r in ("round-robin", "sglang")
    }


def test_sglang_router_hit_rate_gap() -> None:
    # Modelled as that burst. Measured 52.6% -> 88.2%: the direction holds, the levels do not.
    # Both are this workload's ceilings for the routing (88.2% = 15/16 of the prompts finding
    # their 2,048 of 2,176 tokens): the simulator prefills one request at a time, so a request
    # sees every earlier one's blocks. SGLang prefills a burst in batches (8,192-token chunks,
    # about 3.6 of these prompts) whose requests share nothing with each other, which can only
    # lower both; but with the prompts shuffled a group's prompts rarely share a batch, so
    # batching alone does not bring round-robin to 20%. The KV pool does not either
    # (test_sglang_router_hit_rate_not_from_the_kv_pool). Pinned.
    hit = _gsp_hits(_gsp_burst())
    assert hit["round-robin"] == pytest.approx(0.526, abs=0.01)
    assert hit["sglang"] == pytest.approx(15 / 16 * 2048 / 2176, abs=1e-9)
    assert hit["round-robin"] > 0.20 and hit["sglang"] > 0.75  # ceilings above the blog's


@pytest.mark.slow
def test_sglang_router_hit_rate_not_from_the_kv_pool() -> None:
    # Could a worker's KV pool, too small for the prefixes round robin spreads over it, bring
    # round robin down to the blog's 20% while the cache-aware router, which keeps a group on
    # one worker, stays high? Not at the blog's settings: no eviction can happen there.
    #
    # SGLang sizes its pool (model_runner.profile_max_num_token, v0.4) as the GPU memory free
    # after loading the weights less (1 - mem_fraction_static) of the memory free before, in
    # tokens of layers x 2 x KV heads x head dim x 2 bytes; mem_fraction_static defaults to
    # 0.88 with one GPU per worker (server_args.py, v0.4: --dp-size 8 gives tp_size 1).
    gib = 2**30
    arch = models.arch("llama-3.1-8b")  # HF config.json: 32 layers, 8 KV heads of 128
    kv = arch.kv_bytes_per_token("bf16")
    assert kv == 131_072
    weights = arch.params() * 2  # bf16
    for free in (78.0 * gib, 80.0 * gib):  # A100 80GB, less the CUDA context at most ~2 GiB
        pool = (free - weights - free * (1 - 0.88)) / kv
        assert 420_000 < pool < 460_000
    pool_tokens = 420_000
    # The most one worker can ever need: every group's system prompt, and each of its 128
    # requests' question and outputs (SGLang inserts the generated tokens into the radix
    # tree too), at the tokenizer's growth measured in PR #1990.
    worst = GSP_GROUPS * GSP_SYSTEM * GSP_TOKENIZER_GROWTH + 128 * (
        GSP_QUESTION * GSP_TOKENIZER_GROWTH + GSP_OUTPUT
    )
    assert worst < pool_tokens / 2  # about 188K of 420K tokens: nothing is ever evicted
    trace = _gsp_burst()
    # the pool in this trace's blocks, the running requests' outputs taken off
    blocks = int(pool_tokens - 128 * GSP_OUTPUT) // 16
    assert _gsp_hits(trace, blocks) == _gsp_hits(trace)
    # A pool that would give round robin the blog's 20% holds about 2,000-3,000 blocks
    # (32K-48K tokens, a ninth of SGLang's), and the cache-aware router keeps 88.2% there;
    # its 75% needs a pool below 1,000 blocks, where round robin falls to 10%. No one pool
    # gives both published levels.
    small = {c: _gsp_hits(trace, c) for c in (1000, 2000, 3000)}
    assert small[2000]["round-robin"] < 0.20 < small[3000]["round-robin"]
    for c in (2000, 3000):
        assert small[c]["sglang"] == pytest.approx(15 / 16 * 2048 / 2176, abs=1e-9)
    assert small[1000]["round-robin"] < 0.12 and small[1000]["sglang"] > 0.75
