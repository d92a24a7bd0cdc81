"""Model architectures for KV sizing and the prefill cost model.

KV bytes per token = layers x 2 (K and V) x KV heads x head dim x bytes per value, or for
multi-head latent attention (DeepSeek-V2/V3, Kimi K2) layers x (latent + RoPE dims) x bytes.
Prefill FLOPs of n tokens follow Mooncake (FAST'25, Eq. 1): layers x (4 n^2 d + 22 n d^2); the
cached part of a prompt saves flops(cached). Seconds come from one measured anchor: Llama-3.3-70B
in FP8 on 2 x H100 prefills about 12.3k tokens/s (taken at an 8k-token prompt), which fixes the
effective FLOP/s of a 2-GPU node; other models are timed on the same node. Pure arithmetic.
"""

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


@dataclass(frozen=True)
class Arch:
    """What KV size and prefill cost depend on."""

    name: str
    layers: int
    hidden: int
    kv_heads: int = 0
    head_dim: int = 0
    mla_dims: int = 0  # latent + decoupled RoPE dims per layer (MLA); 0 for MHA/GQA

    def kv_bytes_per_token(self, precision: str = "bf16") -> float:
        try:
            width = PRECISION_BYTES[precision]
        except KeyError:
            raise UserError(
                f"unknown precision {precision!r}; choose from {', '.join(PRECISION_BYTES)}",
                where="--precision",
            ) from None
        per_layer = self.mla_dims if self.mla_dims else 2 * self.kv_heads * self.head_dim
        return self.layers * per_layer * width

    def flops(self, n: npt.ArrayLike) -> npt.NDArray[np.float64]:
        """Prefill FLOPs of an n-token prompt (Mooncake Eq. 1)."""
        x = np.asarray(n, np.float64)
        d = float(self.hidden)
        return self.layers * (4.0 * x * x * d + 22.0 * x * d * d)


CATALOGUE: dict[str, Arch] = {
    a.name: a
    for a in (
        Arch("llama-3.1-8b", 32, 4096, 8, 128),
        Arch("llama-3.3-70b", 80, 8192, 8, 128),
        Arch("llama-3.1-405b", 126, 16384, 8, 128),
        Arch("qwen2.5-72b", 80, 8192, 8, 128),
        Arch("qwen3-32b", 64, 5120, 8, 128),
        Arch("mistral-7b", 32, 4096, 8, 128),
        Arch("deepseek-v3", 61, 7168, mla_dims=512 + 64),
        Arch("kimi-k2", 61, 7168, mla_dims=512 + 64),
    )
}

ANCHOR_MODEL = "llama-3.3-70b"
ANCHOR_TOKENS_PER_S = 12_300.0
ANCHOR_PROMPT = 8192
ANCHOR_GPUS = 2


def arch(name: str) -> Arch:
    try:
        return CATALOGUE[name]
    except KeyError:
        raise UserError(
            f"unknown model {name!r}; choose from {', '.join(sorted(CATALOGUE))}", where="--model"
        ) from None


def node_flops_per_s() -> float:
    """Effective FLOP/s of the anchor node (2 x H100) implied by the measured prefill speed."""
    a = CATALOGUE[ANCHOR_MODEL]
    return float(a.flops(ANCHOR_PROMPT)) / (ANCHOR_PROMPT / ANCHOR_TOKENS_PER_S)


def prefill_seconds(
    a: Arch, length: npt.ArrayLike, cached: npt.ArrayLike
) -> npt.NDArray[np.float64]:
    """Seconds to prefill `length` tokens of which the first `cached` are already cached."""
    return (a.flops(length) - a.flops(cached)) / node_flops_per_s()


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
