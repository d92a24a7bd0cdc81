"""Model architectures, GPUs and the prefill compute model.

KV bytes per token = layers x 2 (K and V) x KV heads x head dim x bytes per value (MHA/GQA), or
for multi-head latent attention (DeepSeek-V3, Kimi K2) layers x (KV latent + decoupled RoPE dims)
x bytes: the latent is what such engines cache.

Prefill FLOPs of the tokens c+1..n of an n-token prompt whose first c are cached:
- linear layers: 2 x active non-embedding parameters per token (a MoE counts the experts a token
  is routed to and the shared ones; the embedding is a lookup and the LM head runs on the last
  token only, both left out);
- attention: token i attends to i tokens (causal), 2 x heads x (QK dim + V dim) FLOPs per pair and
  layer, so layers x 2 x heads x (dqk + dv) x (n(n+1) - c(c+1)) / 2. MLA prefill runs as
  multi-head attention on the decompressed keys (dqk = nope + rope dims, dv = V head dim).
The last token is always computed: an engine needs its logits, so at most n - 1 tokens are cached.

Seconds = a fixed cost per request + FLOPs / (GPUs x peak dense FLOP/s x MFU), for an instance of
`gpus` GPUs (tensor parallel, sized so the weights fit); a mixture-of-experts model runs its
linear layers at `MOE_EFFICIENCY` of a dense model's rate. The fixed cost makes the achieved MFU
a function of the tokens computed: about 0.19 at 410 tokens, 0.59 at 128K. The constants are fitted
from published points (`FIT` names each; tests/sim/test_sim_serving.py checks them):
- MFU 0.59 and 96 ms a request: Mooncake (Qin et al., FAST'25) Fig. 14, prefill of a
  LLaMA2-70B-shaped model on 8 x A800: 27.5 s for a 128K prompt, 0.14 s for an 8K prompt 95%
  cached (two points, two unknowns);
- held out: Llama-3.3-70B in FP8 on 2 x H100 at a 5k-token prompt, about 12.3k tokens/s (the model
  gives 12.4k);
- MoE efficiency 0.41: SGLang's DeepSeek-V3 deployment on H100s (LMSYS blog, 2025-05-05, "Deploying
  DeepSeek with PD Disaggregation and Large-scale Expert Parallelism on 96 H100 GPUs"): 52.3k input
  tokens/s per 8-GPU prefill node at 2,000-token inputs, 6.54K per GPU, in a saturated server
  whose batches amortise the fixed cost (`Compute.saturated_tokens_per_gpu`). Pure.
"""

# pure: imports no I/O (tests/test_layout.py checks it)

from __future__ import annotations

import math
import re
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from ..errors import UserError

PRECISION_BYTES = {
    "fp32": 4.0,
    "bf16": 2.0,
    "fp16": 2.0,
    "fp8": 1.0,
    "int8": 1.0,
    "fp4": 0.5,
    "int4": 0.5,
}


def _width(precision: str, where: str = "--precision") -> float:
    try:
        return PRECISION_BYTES[precision]
    except KeyError:
        raise UserError(
            f"unknown precision {precision!r}; choose from {', '.join(PRECISION_BYTES)}",
            where=where,
        ) from None


@dataclass(frozen=True)
class Arch:
    """What KV size, weight size and prefill FLOPs depend on (dimensions from each model's
    config.json on Hugging Face)."""

    name: str
    layers: int
    hidden: int
    heads: int
    kv_heads: int
    head_dim: int
    intermediate: int  # dense MLP width (gated: three matrices)
    vocab: int
    tied: bool = False  # input embedding shared with the LM head
    # mixture of experts (0 experts: dense)
    experts: int = 0
    active_experts: int = 0
    shared_experts: int = 0
    moe_intermediate: int = 0
    dense_layers: int = 0  # the first layers that keep a dense MLP
    # multi-head latent attention (kv_lora_rank 0: MHA/GQA)
    q_lora_rank: int = 0
    kv_lora_rank: int = 0
    qk_nope_dim: int = 0
    qk_rope_dim: int = 0
    v_head_dim: int = 0

    @property
    def mla(self) -> bool:
        return self.kv_lora_rank > 0

    def kv_bytes_per_token(self, precision: str = "bf16") -> float:
        width = _width(precision)
        if self.mla:
            return self.layers * (self.kv_lora_rank + self.qk_rope_dim) * width
        return self.layers * 2 * self.kv_heads * self.head_dim * width

    def _attention_params(self) -> int:
        d, h = self.hidden, self.heads
        if self.mla:
            qk = self.qk_nope_dim + self.qk_rope_dim
            q = d * self.q_lora_rank + self.q_lora_rank * h * qk if self.q_lora_rank else d * h * qk
            kv = d * (self.kv_lora_rank + self.qk_rope_dim) + self.kv_lora_rank * h * (
                self.qk_nope_dim + self.v_head_dim
            )
            return q + kv + h * self.v_head_dim * d
        return 2 * d * h * self.head_dim + 2 * d * self.kv_heads * self.head_dim

    def _layer_params(self, active: bool) -> tuple[int, int]:
        """Parameters of (a dense layer, a MoE layer); `active`: only a token's experts."""
        attn = self._attention_params()
        dense = attn + 3 * self.hidden * self.intermediate
        if not self.experts:
            return dense, dense
        routed = self.active_experts if active else self.experts
        expert = 3 * self.hidden * self.moe_intermediate
        moe = attn + (routed + self.shared_experts) * expert + self.hidden * self.experts
        return dense, moe

    def params(self, active: bool = False, embeddings: bool = True) -> int:
        """Parameter count: all (`active` False) or those one token uses; with or without the
        embedding and LM-head matrices."""
        dense, moe = self._layer_params(active)
        n_dense = self.dense_layers if self.experts else self.layers
        body = n_dense * dense + (self.layers - n_dense) * moe
        emb = self.vocab * self.hidden * (1 if self.tied else 2)
        return body + (emb if embeddings else 0)

    @property
    def attention_flops_per_pair(self) -> int:
        """FLOPs of one (query, key) pair over all layers: QK^T and the weighted sum of V."""
        if self.mla:
            dqk, dv = self.qk_nope_dim + self.qk_rope_dim, self.v_head_dim
        else:
            dqk = dv = self.head_dim
        return self.layers * 2 * self.heads * (dqk + dv)

    def flops(self, length: npt.ArrayLike, cached: npt.ArrayLike = 0) -> npt.NDArray[np.float64]:
        """Prefill FLOPs of `length`-token prompts whose first `cached` tokens are cached (at
        most length - 1 of them count: the last token is always computed)."""
        n = np.asarray(length, np.float64)
        c = np.minimum(np.asarray(cached, np.float64), np.maximum(n - 1.0, 0.0))
        linear = 2.0 * float(self.params(active=True, embeddings=False)) * (n - c)
        pairs = (n * (n + 1.0) - c * (c + 1.0)) / 2.0
        out: npt.NDArray[np.float64] = linear + float(self.attention_flops_per_pair) * pairs
        return out


CATALOGUE: dict[str, Arch] = {
    a.name: a
    for a in (
        # LLaMA2-70B: the model shape Mooncake's experiments use (a dummy model of it)
        Arch("llama-2-70b", 80, 8192, 64, 8, 128, 28672, 32000),
        Arch("llama-3.1-8b", 32, 4096, 32, 8, 128, 14336, 128256),
        Arch("llama-3.3-70b", 80, 8192, 64, 8, 128, 28672, 128256),
        Arch("llama-3.1-405b", 126, 16384, 128, 8, 128, 53248, 128256),
        Arch("qwen2.5-72b", 80, 8192, 64, 8, 128, 29568, 152064),
        Arch("qwen3-32b", 64, 5120, 64, 8, 128, 25600, 151936),
        Arch(
            "qwen3-235b-a22b",
            94,
            4096,
            64,
            4,
            128,
            12288,
            151936,
            experts=128,
            active_experts=8,
            moe_intermediate=1536,
        ),
        Arch("mistral-7b", 32, 4096, 32, 8, 128, 14336, 32000),
        Arch(
            "deepseek-v3",
            61,
            7168,
            128,
            128,
            128,
            18432,
            129280,
            experts=256,
            active_experts=8,
            shared_experts=1,
            moe_intermediate=2048,
            dense_layers=3,
            q_lora_rank=1536,
            kv_lora_rank=512,
            qk_nope_dim=128,
            qk_rope_dim=64,
            v_head_dim=128,
        ),
        Arch(
            "kimi-k2",
            61,
            7168,
            64,
            64,
            128,
            18432,
            163840,
            experts=384,
            active_experts=8,
            shared_experts=1,
            moe_intermediate=2048,
            dense_layers=1,
            q_lora_rank=1536,
            kv_lora_rank=512,
            qk_nope_dim=128,
            qk_rope_dim=64,
            v_head_dim=128,
        ),
    )
}


@dataclass(frozen=True)
class GPU:
    """One accelerator: memory, dense tensor throughput, and where the figures come from."""

    name: str
    hbm_bytes: float
    bf16_flops: float  # dense (the datasheets print twice this "with sparsity")
    fp8_flops: float
    hbm_bytes_per_s: float
    usd_per_hour: float  # an assumed rental price, for GPU-hour dollars; override with --gpu-price
    source: str

    def peak(self, precision: str) -> float:
        return self.fp8_flops if PRECISION_BYTES.get(precision, 2.0) <= 1.0 else self.bf16_flops


GPUS: dict[str, GPU] = {
    g.name: g
    for g in (
        GPU(
            "h100",
            80e9,
            989e12,
            1979e12,
            3.35e12,
            2.50,
            "NVIDIA H100 Tensor Core GPU datasheet, SXM5 (2023; read 2026-12-02): 80 GB HBM3, "
            "3.35 TB/s, BF16 1,979 and FP8 3,958 TFLOPS with sparsity",
        ),
        GPU(
            "a800",
            80e9,
            312e12,
            312e12,  # Ampere has no FP8 tensor cores: FP8 weights run at the BF16 rate
            2.039e12,
            1.50,
            "NVIDIA A100 Tensor Core GPU datasheet, SXM4 80GB (2021; read 2026-12-04; the A800 is "
            "the A100 with NVLink cut to 400 GB/s): 80 GB HBM2e, 2,039 GB/s, BF16 312 TFLOPS dense",
        ),
        GPU(
            "h200",
            141e9,
            989e12,
            1979e12,
            4.8e12,
            3.50,
            "NVIDIA H200 Tensor Core GPU datasheet, SXM (2024; read 2026-12-02): 141 GB HBM3e, "
            "4.8 TB/s, BF16 1,979 and FP8 3,958 TFLOPS with sparsity",
        ),
        GPU(
            "b200",
            180e9,
            2.25e15,
            4.5e15,
            8e12,
            5.50,
            "NVIDIA DGX B200 datasheet (2024; read 2026-12-02): 8 GPUs with 1,440 GB HBM3e and "
            "64 TB/s, 72 PFLOPS FP8 training (sparse), i.e. per GPU 180 GB, 8 TB/s, 4.5 PF FP8 "
            "and 2.25 PF BF16 dense",
        ),
    )
}
# Share of an instance's HBM the weights may take; the rest holds KV cache and activations.
WEIGHT_SHARE = 0.75
TP_SIZES = (1, 2, 4, 8, 16, 32, 64)
DEFAULT_MFU = 0.59
DEFAULT_OVERHEAD_S = 0.096
MOE_EFFICIENCY = 0.41
# A request's KV on its way from a prefill node to a decode node in a disaggregated cluster,
# Mooncake FAST'25 Fig. 14 (8 x A800, LLaMA-70B-shaped, 320 KB a token; read from the PDF's
# drawing by tests/sim/golden/mooncake_figs_from_pdf.py): scheduling 0.04-0.06 s, the transfer
# 0.495 s and the decode node's load from DRAM into HBM 0.42 s for a 128K prompt (43 GB), that is
# 87 GB/s (the transfer engine's rate on 4 x 200 Gbps RDMA, §5.4.1) and 102 GB/s.
HANDOFF_SCHEDULE_S = 0.05
HANDOFF_TRANSFER_BYTES_PER_S = 87e9
HANDOFF_LOAD_BYTES_PER_S = 102e9
# Each fitted constant and the published point it comes from (the module docstring says how).
FIT = {
    "mfu": "Mooncake FAST'25 Fig. 14: 27.5 s at 128K and 0.14 s at 8K 95% cached, 8 x A800",
    "overhead_s": "the same two points",
    "moe_efficiency": "LMSYS blog 2025-05-05: DeepSeek-V3 prefill 52.3k tokens/s per 8 x H100 "
    "node at 2,000-token inputs",
}


def handoff_seconds(tokens: npt.ArrayLike, kv_bytes_per_token: float) -> npt.NDArray[np.float64]:
    """Seconds from a prefill's end to the decode node holding its KV: what a disaggregated
    cluster adds to the TTFT of a request of `tokens` tokens (the prefill node is free again)."""
    kv = np.asarray(tokens, np.float64) * kv_bytes_per_token
    out: npt.NDArray[np.float64] = (
        HANDOFF_SCHEDULE_S + kv / HANDOFF_TRANSFER_BYTES_PER_S + kv / HANDOFF_LOAD_BYTES_PER_S
    )
    return out


def arch(name: str) -> Arch:
    try:
        return CATALOGUE[name]
    except KeyError:
        raise UserError(
            f"unknown model {name!r}; choose from {', '.join(sorted(CATALOGUE))}", where="--model"
        ) from None


def gpu(name: str) -> GPU:
    try:
        return GPUS[name.lower()]
    except KeyError:
        raise UserError(
            f"unknown GPU {name!r}; choose from {', '.join(GPUS)}", where="--gpu"
        ) from None


def instance_gpus(a: Arch, g: GPU, weight_precision: str) -> int:
    """The fewest GPUs (a power of two) whose HBM holds the weights with room for KV."""
    weights = a.params() * _width(weight_precision, "--weight-precision")
    for n in TP_SIZES:
        if weights <= WEIGHT_SHARE * n * g.hbm_bytes:
            return n
    raise UserError(
        f"{a.name} in {weight_precision} ({weights / 1e9:,.0f} GB) does not fit on "
        f"{TP_SIZES[-1]} x {g.name}",
        where="--model",
    )


@dataclass(frozen=True)
class Compute:
    """One serving instance: a model on `gpus` GPUs of one kind at a model FLOPs utilisation."""

    arch: Arch
    gpu: GPU
    gpus: int
    mfu: float = DEFAULT_MFU
    weight_precision: str = "fp8"
    overhead_s: float = DEFAULT_OVERHEAD_S  # fixed cost of each request's prefill
    moe_efficiency: float = MOE_EFFICIENCY  # a MoE model's linear layers, against a dense one's

    @classmethod
    def build(
        cls,
        model: str,
        gpu_name: str = "h100",
        *,
        gpus: int = 0,
        mfu: float = DEFAULT_MFU,
        weight_precision: str = "fp8",
        overhead_s: float = DEFAULT_OVERHEAD_S,
    ) -> Compute:
        a, g = arch(model), gpu(gpu_name)
        if not 0.0 < mfu <= 1.0:
            raise UserError(f"MFU must be in (0, 1], got {mfu}", where="--mfu")
        if not 0.0 <= overhead_s < 3600.0:
            raise UserError(
                f"the per-request overhead must be >= 0 seconds, got {overhead_s}",
                where="--overhead",
            )
        need = instance_gpus(a, g, weight_precision)
        if gpus and gpus < need:
            raise UserError(
                f"{a.name} in {weight_precision} needs at least {need} x {g.name}, got {gpus}",
                where="--tp",
            )
        return cls(a, g, gpus or need, mfu, weight_precision, overhead_s)

    @property
    def flops_per_s(self) -> float:
        return self.gpus * self.gpu.peak(self.weight_precision) * self.mfu

    @property
    def linear_slowdown(self) -> float:
        """How much slower than a dense model's the linear layers run (1 for a dense model)."""
        return 1.0 / self.moe_efficiency if self.arch.experts else 1.0

    def compute_seconds(
        self, length: npt.ArrayLike, cached: npt.ArrayLike = 0
    ) -> npt.NDArray[np.float64]:
        """Seconds of GPU work of the tokens computed, without the fixed per-request cost."""
        lin, pair = self.scalar()[:2]
        n = np.asarray(length, np.float64)
        c = np.minimum(np.asarray(cached, np.float64), np.maximum(n - 1.0, 0.0))
        out: npt.NDArray[np.float64] = lin * (n - c) + pair * (n * (n + 1.0) - c * (c + 1.0)) / 2.0
        return out

    def prefill_seconds(
        self, length: npt.ArrayLike, cached: npt.ArrayLike = 0
    ) -> npt.NDArray[np.float64]:
        """Seconds to prefill `length` tokens of which the first `cached` are already cached."""
        out: npt.NDArray[np.float64] = self.overhead_s + self.compute_seconds(length, cached)
        return out

    def saturated_tokens_per_gpu(self, length: int) -> float:
        """Prefill tokens/s per GPU of a server kept full of `length`-token prompts, whose large
        batches amortise the fixed per-request cost."""
        return length / (float(self.compute_seconds(length)) * self.gpus)

    def scalar(self) -> tuple[float, float, float]:
        """(seconds per computed token of the linear layers, seconds per attention pair, fixed
        seconds per request): the request-by-request routers evaluate the same formula on plain
        floats."""
        fps = self.flops_per_s
        return (
            2.0
            * float(self.arch.params(active=True, embeddings=False))
            / fps
            * self.linear_slowdown,
            float(self.arch.attention_flops_per_pair) / fps,
            self.overhead_s,
        )

    def describe(self) -> str:
        moe = f", MoE linear x{self.moe_efficiency:g}" if self.arch.experts else ""
        return (
            f"{self.arch.name} ({self.weight_precision} weights) on {self.gpus} x "
            f"{self.gpu.name.upper()} at MFU {self.mfu:g} + {1000 * self.overhead_s:g} ms a "
            f"request{moe}"
        )


def seconds(coef: tuple[float, ...], n: int, c: int) -> float:
    """`Compute.prefill_seconds` of one request in plain floats, for the per-request routers."""
    c = min(c, n - 1) if n > 0 else 0
    fixed = coef[2] if len(coef) > 2 else 0.0
    return fixed + coef[0] * (n - c) + coef[1] * ((n * (n + 1) - c * (c + 1)) / 2.0)


_SIZE = re.compile(r"^\s*([0-9]*\.?[0-9]+)\s*([kmgt]i?b?|b)?\s*$", re.I)
_UNITS = {"": 1, "b": 1, "k": 1e3, "m": 1e6, "g": 1e9, "t": 1e12}


def parse_bytes(text: str, where: str) -> float:
    """'80GB', '1.5TiB', '512MiB', '2e9' -> bytes."""
    m = _SIZE.match(text)
    if not m:
        try:
            size = float(text)
        except ValueError:
            size = math.nan
        # 'nan', 'inf' and negative numbers parse as floats but are no size
        if not math.isfinite(size) or size < 0:
            raise UserError(f"not a size: {text!r} (use e.g. 80GB or 1.5TiB)", where=where)
        return size
    value = float(m.group(1))
    unit = (m.group(2) or "").lower().rstrip("b")
    if unit.endswith("i"):
        return value * float(1024 ** ("kmgt".index(unit[0]) + 1))
    return value * float(_UNITS[unit])


def blocks_for_bytes(size: float, a: Arch, precision: str, block_size: int) -> int:
    """Whole blocks of `block_size` tokens that fit in `size` bytes."""
    return int(size // (a.kv_bytes_per_token(precision) * block_size))
