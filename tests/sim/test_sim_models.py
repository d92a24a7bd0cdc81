"""KV sizing from architecture (MLA included), the prefill cost model and the report's units."""

from __future__ import annotations

import pytest

from prefixlock.errors import UserError
from prefixlock.sim import models
from prefixlock.sim.simulate import SimConfig, simulate
from prefixlock.sim.trace import Trace


def test_kv_bytes_per_token() -> None:
    llama = models.arch("llama-3.3-70b")
    assert llama.kv_bytes_per_token("bf16") == 80 * 2 * 8 * 128 * 2  # 320 KiB
    assert llama.kv_bytes_per_token("fp8") == 80 * 2 * 8 * 128
    # MLA caches one latent (512) plus the decoupled RoPE key (64) per layer.
    assert models.arch("deepseek-v3").kv_bytes_per_token("bf16") == 61 * 576 * 2
    with pytest.raises(UserError):
        llama.kv_bytes_per_token("fp3")


def test_prefill_anchor_and_growth() -> None:
    # The default MFU reproduces the old anchor: Llama-3.3-70B in FP8 on 2 x H100 prefills
    # about 12.3k tokens/s at a 5k-token prompt (not at 8k, where the old model applied it).
    node = models.Compute.build("llama-3.3-70b", "h100")
    assert node.gpus == 2
    s = float(node.prefill_seconds(5000))
    assert 5000 / s == pytest.approx(12_300, rel=0.02)
    # per-token cost grows with length; a cached prefix saves its linear and attention work
    assert float(node.prefill_seconds(65536)) / 65536 > s / 5000
    assert float(node.prefill_seconds(9000, 8192)) < float(node.prefill_seconds(808)) * 2
    # the last token is always computed: a fully cached prompt still costs one token
    assert float(node.prefill_seconds(8192, 8192)) == float(node.prefill_seconds(8192, 8191)) > 0


def test_sizes_and_blocks() -> None:
    assert models.parse_bytes("80GB", "x") == 80e9
    assert models.parse_bytes("1.5TiB", "x") == 1.5 * 1024**4
    llama = models.arch("llama-3.3-70b")
    assert models.blocks_for_bytes(80e9, llama, "fp8", 512) == int(80e9 // (163840 * 512))
    with pytest.raises(UserError):
        models.parse_bytes("lots", "--hbm")


def test_report_units_agree(conversation: Trace) -> None:
    t = conversation.head(400)
    r = simulate(t, SimConfig(capacity=5000, price="claude-sonnet-4-6"))
    assert r.cached_tokens + r.prefill_tokens == r.input_tokens
    assert r.hit_rate_tokens == pytest.approx(r.cached_tokens / r.input_tokens)
    assert (
        r.prefill_gpu_s_saved > 0 and r.dollars is not None and r.dollars_without_cache is not None
    )
    none = simulate(t, SimConfig(capacity=1, price="claude-sonnet-4-6"))
    assert none.prefill_gpu_s_saved < r.prefill_gpu_s_saved
    assert none.dollars is not None and none.dollars > r.dollars
    tiers = simulate(t, SimConfig(tiers=(100, 1000, 3900)))
    assert tiers.hit_rate_tokens == pytest.approx(r.hit_rate_tokens)  # same total capacity
    assert tiers.tier_tokens["hbm"] > 0 and tiers.tier_tokens["dram"] + tiers.tier_tokens["ssd"] > 0
    assert sum(tiers.tier_tokens.values()) == r.cached_tokens
    assert tiers.ttft_mean_s > r.ttft_mean_s  # loading from DRAM/SSD is not free
