"""Optional dependencies: what a feature needs beyond the core install, and the error that
names the extra to install when it is missing.

The core (`pip install prefixlock`) brings the SDK and the command line's core; a feature that
needs more imports its package through `need`, which raises `MissingExtraError` naming the
package and the command that installs it: `pip install 'prefixlock[mcp]'`.
"""

# pure: imports no I/O (tests/test_layout.py checks it)

from __future__ import annotations

import importlib
from types import ModuleType

from .errors import UserError

# Each extra of pyproject.toml's [project.optional-dependencies] that a feature asks for, and
# the top-level modules it brings (pyproject.toml and tests/install keep them in step).
EXTRAS: dict[str, tuple[str, ...]] = {
    "tui": ("textual",),
    "sim": ("numpy",),
    "mcp": ("mcp",),
    "otel": ("opentelemetry",),
    "plot": ("matplotlib",),
    "ray": ("ray",),
    "postgres": ("psycopg",),
    "fast": ("numba",),
}


class MissingExtraError(UserError, ModuleNotFoundError):
    """A feature's optional package is not installed; the message names the extra that
    installs it. A `ModuleNotFoundError` too, so code that probes for a package still sees one.
    """

    def __init__(self, module: str, extra: str, what: str) -> None:
        self.extra = extra
        top = module.partition(".")[0]
        super().__init__(
            f"{what} needs the {top!r} package, which is not installed: "
            f"pip install 'prefixlock[{extra}]'"
        )
        self.name: str | None = top


def extra_for(module: str | None) -> str | None:
    """The extra that installs top-level package `module` (a ModuleNotFoundError's `name`)."""
    top = (module or "").partition(".")[0]
    return next((extra for extra, mods in EXTRAS.items() if top in mods), None)


def need(module: str, extra: str, what: str) -> ModuleType:
    """`module` imported, or MissingExtraError naming `extra` when its package (not something
    it imports in turn) is missing. `what` is the feature, as the user called it."""
    try:
        return importlib.import_module(module)
    except ModuleNotFoundError as exc:
        missing = exc.name or ""
        if not missing or not (module == missing or module.startswith(missing + ".")):
            raise
        raise MissingExtraError(module, extra, what) from None
