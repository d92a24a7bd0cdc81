"""How much host memory a run needs, estimated before it starts, and the refusal when it does not
fit.

Measured on this repository's 2-core test machine (tests/benchmarks/bench_sim_scale.py): a run of
the array engine (plan, stack ranks, per-node sub-plans, the one-pass curve, the result's
per-request arrays) peaks at about 120 bytes per block reference and 100 per request on top of
the interpreter. The compiled cache-aware routers (`routers_jit`) add two int32 links and a
float64 time per distinct block for each node's cache, and as much again for SGLang's trees:
16 x nodes (x 2) bytes a distinct block. The estimate errs high by design: a refused run costs a
message, a run that runs out of memory costs its whole time.
"""

# pure: imports no I/O (tests/test_layout.py checks it)

from __future__ import annotations

from ..errors import UserError

BYTES_PER_REFERENCE = 130
BYTES_PER_REQUEST = 120
AWARE_BYTES_PER_REQUEST = 100  # the routers' own per-request arrays
AWARE_BYTES_PER_BLOCK_AND_CACHE = 16
INTERPRETER_BYTES = 150e6


def estimate_bytes(
    requests: int, references: int, *, aware_caches: int = 0, distinct: int | None = None
) -> float:
    """Peak host bytes of simulating a trace of `requests` requests and `references` block
    references (one configuration at a time, as the CLI runs them); `aware_caches`: the caches
    a cache-aware router keeps (nodes, twice that for SGLang's), over `distinct` blocks (at most
    `references`)."""
    blocks = references if distinct is None else min(distinct, references)
    aware = aware_caches * AWARE_BYTES_PER_BLOCK_AND_CACHE * blocks
    aware += AWARE_BYTES_PER_REQUEST * requests if aware_caches else 0
    return (
        INTERPRETER_BYTES + BYTES_PER_REFERENCE * references + BYTES_PER_REQUEST * requests + aware
    )


def check_fits(
    requests: int,
    references: int,
    budget: float,
    *,
    aware_caches: int = 0,
    distinct: int | None = None,
) -> None:
    """Refuse a run whose estimate exceeds `budget` bytes, saying how many requests would fit."""
    need = estimate_bytes(requests, references, aware_caches=aware_caches, distinct=distinct)
    if need <= budget:
        return
    per_request = (need - INTERPRETER_BYTES) / max(requests, 1)
    fit = max(0, int((budget - INTERPRETER_BYTES) / per_request)) if per_request > 0 else 0
    raise UserError(
        f"this run needs about {need / 1e9:,.1f} GB of memory ({requests:,} requests, "
        f"{references:,} block references) and {budget / 1e9:,.1f} GB are available; read "
        f"fewer requests with --limit {fit:,} (about what fits), or set --max-memory if more "
        "is free than the system reports",
        where="--max-memory",
    )
