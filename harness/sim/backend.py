"""Array backends of the simulator engine: numpy (default) and cupy (`pip install prefixlock[gpu]`).

The engine's array code is written against the numpy API; all of it is integer arithmetic, so
both modules give bit-identical results. A backend whose arrays live on a device (`device=True`)
runs the engine's fixed-shape pipeline (engine.device_ranks, engine.sweep_curves): no boolean
masks, nonzero, compress or bincount, whose output sizes the host would have to wait for (but
one value, the size of the ranks' wavelet matrix), so a whole sweep is one queue of kernels, one
value read and one copy back. `auto` picks cupy when it imports, sees a
CUDA device and the trace has at least `AUTO_GPU_MIN_REFERENCES` block references; below that the
transfers and kernel launches cost more than numpy's whole pass (numpy does a 300k-reference
trace's ranks in tens of milliseconds). The threshold is an estimate: no GPU was lent when it
was set, so tests/benchmarks/gpu_check.sh measures both sides where one is. Every result names
the backend that computed it.
"""

# pure: imports no I/O (tests/test_layout.py checks it)

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ..errors import UserError

BACKENDS = ("auto", "numpy", "cupy")
AUTO_GPU_MIN_REFERENCES = 2_000_000


@dataclass(frozen=True)
class Backend:
    """An array module plus the two transfers the engine needs."""

    name: str
    xp: Any  # numpy or cupy
    device: bool = False  # arrays off the host: the engine keeps every shape fixed by the plan

    def asarray(self, a: Any) -> Any:
        return a if self.xp is np else self.xp.asarray(a)

    def asnumpy(self, a: Any) -> Any:
        if self.xp is np:
            return a
        return self.xp.asnumpy(a)


NUMPY = Backend("numpy", np)


def auto_note(references: int, chosen: str, gpu: bool | None = None) -> str:
    """Why `--backend auto` picked `chosen` for a trace of `references` block references, said
    truthfully: the size rule only decides when a GPU could have been used. `gpu`: whether cupy
    and a device were found (None: look)."""
    if chosen != "numpy":
        return f"auto: {chosen} for {references:,} references"
    if references < AUTO_GPU_MIN_REFERENCES:
        return f"auto: numpy below {AUTO_GPU_MIN_REFERENCES:,} references"
    if gpu is None:
        gpu = cupy_available()
    return (
        "auto: numpy, no usable cupy or CUDA device (pip install 'prefixlock[gpu]')"
        if not gpu
        else "auto: numpy"
    )


def cupy_available() -> bool:
    """True when cupy imports and a CUDA device is visible."""
    try:
        import cupy

        return int(cupy.cuda.runtime.getDeviceCount()) > 0
    except Exception:  # ImportError, CUDARuntimeError, missing driver libraries
        return False


def get_backend(name: str = "auto", references: int | None = None) -> Backend:
    """The backend called `name` ('auto', 'numpy' or 'cupy'). For 'auto', `references` is the
    trace's size: below `AUTO_GPU_MIN_REFERENCES` numpy wins, so numpy it is."""
    if name == "numpy":
        return NUMPY
    if name == "auto":
        if references is not None and references < AUTO_GPU_MIN_REFERENCES:
            return NUMPY
        return get_backend("cupy") if cupy_available() else NUMPY
    if name == "cupy":
        if not cupy_available():
            raise UserError(
                "the cupy backend needs cupy and a CUDA GPU (pip install 'prefixlock[gpu]'); "
                "use --backend numpy",
                where="--backend",
            )
        import cupy

        return Backend("cupy", cupy, device=True)
    raise UserError(
        f"unknown backend {name!r}; choose from {', '.join(BACKENDS)}", where="--backend"
    )
