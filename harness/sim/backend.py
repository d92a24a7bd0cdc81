"""Array backends of the simulator engine: numpy (default) and cupy (`pip install prefixlock[gpu]`).

The engine's array code is written once against the numpy API and runs on either module; all of
it is integer arithmetic, so both give bit-identical results. `auto` picks cupy when it imports
and sees a CUDA device, numpy otherwise.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ..errors import UserError

BACKENDS = ("auto", "numpy", "cupy")


@dataclass(frozen=True)
class Backend:
    """An array module plus the two transfers the engine needs."""

    name: str
    xp: Any  # numpy or cupy

    def asarray(self, a: Any) -> Any:
        return a if self.xp is np else self.xp.asarray(a)

    def asnumpy(self, a: Any) -> Any:
        if self.xp is np:
            return a
        return self.xp.asnumpy(a)


NUMPY = Backend("numpy", np)


def cupy_available() -> bool:
    """True when cupy imports and a CUDA device is visible."""
    try:
        import cupy

        return int(cupy.cuda.runtime.getDeviceCount()) > 0
    except Exception:  # ImportError, CUDARuntimeError, missing driver libraries
        return False


def get_backend(name: str = "auto") -> Backend:
    """The backend called `name` ('auto', 'numpy' or 'cupy')."""
    if name == "numpy":
        return NUMPY
    if name == "auto":
        return get_backend("cupy") if cupy_available() else NUMPY
    if name == "cupy":
        if not cupy_available():
            raise UserError(
                "the cupy backend needs cupy and a CUDA GPU (pip install 'prefixlock[gpu]'); "
                "use --backend numpy",
                where="--backend",
            )
        import cupy

        return Backend("cupy", cupy)
    raise UserError(
        f"unknown backend {name!r}; choose from {', '.join(BACKENDS)}", where="--backend"
    )
