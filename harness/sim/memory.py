"""How much host memory a run needs, estimated before it starts, and the refusal when it does not
fit.

Measured on this repository's 2-core test machine (tests/benchmarks/bench_sim_scale.py): a run of
the array engine (plan, stack ranks, per-node sub-plans, the one-pass curve, the result's
per-request arrays) peaks at about 120 bytes per block reference and 100 per request on top of
the interpreter; the request-by-request routers hold each reference once more as a Python int in
a list (about 40 bytes) and several lists per request. The estimate errs high by design: a
refused run costs a message, a run that runs out of memory costs its whole time.
"""

# pure: imports no I/O (tests/test_layout.py checks it)

from __future__ import annotations

from ..errors import UserError

BYTES_PER_REFERENCE = 130
BYTES_PER_REQUEST = 120
AWARE_BYTES_PER_REFERENCE = 60  # on top, for the cache-aware routers' Python lists
AWARE_BYTES_PER_REQUEST = 250
INTERPRETER_BYTES = 150e6


def estimate_bytes(requests: int, references: int, *, aware: bool = False) -> float:
    """Peak host bytes of simulating a trace of `requests` requests and `references` block
    references (one configuration at a time, as the CLI runs them)."""
    per_ref = BYTES_PER_REFERENCE + (AWARE_BYTES_PER_REFERENCE if aware else 0)
    per_req = BYTES_PER_REQUEST + (AWARE_BYTES_PER_REQUEST if aware else 0)
    return INTERPRETER_BYTES + per_ref * references + per_req * requests


def check_fits(requests: int, references: int, budget: float, *, aware: bool = False) -> None:
    """Refuse a run whose estimate exceeds `budget` bytes, saying how many requests would fit."""
    need = estimate_bytes(requests, references, aware=aware)
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
