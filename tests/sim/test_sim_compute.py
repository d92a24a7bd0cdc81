"""The compute model by hand: parameters, prefill FLOPs and KV bytes of three architectures
(dense GQA, MoE with GQA, MoE with MLA), tensor parallelism, MFU, GPU-hour dollars."""

from __future__ import annotations

import pytest

from prefixlock.errors import UserError
from prefixlock.sim import models
from prefixlock.sim.simulate import SimConfig, simulate
from prefixlock.sim.trace import Trace


def test_dense_gqa_qwen3_32b() -> None:
    a = models.arch("qwen3-32b")
    # per layer: q 5120*64*128 = 41,943,040; k and v 2*5120*8*128 = 10,485,760;
    # o 64*128*5120 = 41,943,040; MLP 3*5120*25600 = 393,216,000 -> 487,587,840
    # x 64 layers = 31,205,621,760 (the model card: 31.2B non-embedding)
    assert a.params(embeddings=False) == 31_205_621_760
    # + embedding and untied LM head 2*151936*5120 = 1,555,824,640 -> 32.76B (card: 32.8B)
    assert a.params() == 32_761_446_400
    # attention per (query, key) pair: 64 layers * 2 * 64 heads * (128 + 128) = 2,097,152
    assert a.attention_flops_per_pair == 2_097_152
    # 4096 tokens, none cached: 2 * 31,205,621,760 * 4096 = 255,636,453,457,920 linear
    # + 2,097,152 * 4096*4097/2 = 2,097,152 * 8,390,656 = 17,596,481,011,712 attention
    assert float(a.flops(4096)) == 255_636_453_457_920 + 17_596_481_011_712
    # Mooncake's Eq. 1 (22 n d^2 per layer) gives 22*5120^2*64 = 36.9 GFLOP per token of linear
    # work where the weights take 2*31.2B = 62.4: the old model undercounted by about 40%.
    assert 22 * 5120**2 * 64 / (2 * a.params(embeddings=False)) == pytest.approx(0.591, abs=1e-3)
    # KV: 64 layers * 2 * 8 heads * 128 * 2 bytes = 262,144 bytes per token in BF16
    assert a.kv_bytes_per_token("bf16") == 262_144


def test_moe_gqa_qwen3_235b_a22b() -> None:
    a = models.arch("qwen3-235b-a22b")
    # attention per layer: q 4096*64*128 = 33,554,432; k, v 2*4096*4*128 = 4,194,304;
    # o 33,554,432 -> 71,303,168. One expert 3*4096*1536 = 18,874,368; router 4096*128 = 524,288
    # active per layer: 71,303,168 + 8*18,874,368 + 524,288 = 222,822,400; x 94 = 20,945,305,600
    assert a.params(active=True, embeddings=False) == 20_945_305_600
    # + embeddings 2*151936*4096 = 1,244,659,712 -> 22.19B active ("A22B")
    assert a.params(active=True) == 22_189_965_312
    # all: 71,303,168 + 128*18,874,368 + 524,288 = 2,487,746,560; x 94 + 1,244,659,712 = 235.1B
    assert a.params() == 235_092_836_352
    # KV: 94 * 2 * 4 * 128 * 2 = 192,512 bytes per token (BF16)
    assert a.kv_bytes_per_token("bf16") == 192_512
    # only the active experts cost FLOPs: linear 2 * 20,945,305,600 per token
    assert float(a.flops(1)) == 2 * 20_945_305_600 + a.attention_flops_per_pair


def test_mla_moe_deepseek_v3() -> None:
    a = models.arch("deepseek-v3")
    # MLA per layer: q_a 7168*1536 = 11,010,048; q_b 1536*128*(128+64) = 37,748,736;
    # kv_a 7168*(512+64) = 4,128,768; kv_b 512*128*(128+128) = 16,777,216;
    # o 128*128*7168 = 117,440,512 -> 187,105,280
    # dense layers (3): + 3*7168*18432 = 396,361,728 -> 583,467,008 each
    # MoE layers (58), active: + (8 routed + 1 shared) * 3*7168*2048 = 396,361,728
    #   + router 7168*256 = 1,835,008 -> 585,302,016 each
    # 3*583,467,008 + 58*585,302,016 = 1,750,401,024 + 33,947,516,928 = 35,697,917,952
    assert a.params(active=True, embeddings=False) == 35_697_917_952
    # + embeddings 2*129280*7168 = 1,853,358,080 -> 37.55B active (report: 37B)
    assert a.params(active=True) == 37_551_276_032
    # all experts: MoE layer 187,105,280 + 257*44,040,192 + 1,835,008 = 11,507,269,632;
    # 58 of them + 1,750,401,024 + 1,853,358,080 = 671,025,397,760 (report: 671B)
    assert a.params() == 671_025_397_760
    # MLA prefill attends with 128 heads, QK dim 128 + 64, V dim 128:
    # 61 * 2 * 128 * (192 + 128) = 4,997,120 FLOPs per pair. A model that treats the 576-dim
    # latent as one head, as the old one did (Mooncake Eq. 1: 4 n^2 d per layer over n^2/2
    # pairs, 8 d = 57,344 per pair and layer, 3,497,984 over 61 layers), is off by 1.43x here
    # and ignores that d = 7168 is not the attention width.
    assert a.attention_flops_per_pair == 4_997_120
    # KV: the latent 512 + RoPE key 64 per layer: 61 * 576 = 35,136 bytes per token in FP8
    assert a.kv_bytes_per_token("fp8") == 35_136


def test_tensor_parallel_sized_to_fit() -> None:
    # weights may take 75% of an instance's HBM
    assert models.Compute.build("llama-3.3-70b", "h100").gpus == 2  # 70.6 GB FP8 > 60 GB
    assert models.Compute.build("llama-3.3-70b", "h100", weight_precision="bf16").gpus == 4
    # DeepSeek-V3 in FP8 (671 GB): 8 x H100 hold 480 GB at 75%, 16 hold 960 GB
    assert models.Compute.build("deepseek-v3", "h100").gpus == 16
    assert models.Compute.build("deepseek-v3", "h200").gpus == 8  # 8 * 141 * 0.75 = 846 GB
    assert models.Compute.build("llama-3.1-405b", "b200").gpus == 4  # 406 GB <= 540 GB
    with pytest.raises(UserError, match="needs at least 2"):
        models.Compute.build("llama-3.3-70b", "h100", gpus=1)
    with pytest.raises(UserError):
        models.Compute.build("llama-3.3-70b", "a100")
    with pytest.raises(UserError):
        models.Compute.build("llama-3.3-70b", "h100", mfu=0.0)


def test_peak_mfu_and_catalogue_sources() -> None:
    node = models.Compute.build("qwen3-32b", "h200", mfu=0.5)
    assert node.gpus == 1  # 32.8 GB FP8 on 141 GB
    assert node.flops_per_s == 1979e12 * 0.5
    # the compute at the peak times the MFU, plus the fixed cost of a request
    assert float(node.prefill_seconds(4096)) == pytest.approx(
        models.DEFAULT_OVERHEAD_S + (255_636_453_457_920 + 17_596_481_011_712) / (1979e12 * 0.5)
    )
    for g in models.GPUS.values():
        assert "datasheet" in g.source and "2026-" in g.source


def test_gpu_hours_and_api_dollars_are_separate_views(conversation: Trace) -> None:
    t = conversation.head(400)
    r = simulate(t, SimConfig(capacity=5000, gpu_price=3.0))
    # GPU dollars: prefill GPU-seconds at $3/GPU-hour
    assert r.gpu_dollars == pytest.approx(r.prefill_gpu_s * 3.0 / 3600)
    saved = r.gpu_dollars_without_cache - r.gpu_dollars
    assert saved == pytest.approx(r.prefill_gpu_s_saved * 3.0 / 3600)
    assert r.dollars is not None and r.dollars != r.gpu_dollars  # the API-price view


def test_transfers_overlap_with_compute(conversation: Trace) -> None:
    t = conversation.head(400)
    hbm = simulate(t, SimConfig(tiers=(5000, 0, 0)))
    dram = simulate(t, SimConfig(tiers=(100, 4900, 0)))
    slow = simulate(t, SimConfig(tiers=(100, 4900, 0), dram_gbps=0.05))
    assert hbm.hit_rate_tokens == dram.hit_rate_tokens
    # a fast link hides under compute; only a link slower than compute shows in TTFT
    assert dram.ttft_mean_s == pytest.approx(hbm.ttft_mean_s, rel=0.01)
    assert slow.ttft_mean_s > dram.ttft_mean_s
    with pytest.raises(UserError, match="GB/s"):
        SimConfig(dram_gbps=0).check()
