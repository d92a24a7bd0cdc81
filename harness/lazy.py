"""Lazy package exports (PEP 562): a package's public names, each imported from its module only
when it is first asked for. Keeps `prefixlock --help` and `import prefixlock.sim` from loading the
provider SDKs, and a command's registration from loading its product.

A package lists its exports once, as the imports of its `if TYPE_CHECKING:` block, each written
`from .module import Name as Name` (type checkers and linters read that form as a re-export):

    if TYPE_CHECKING:
        from .agent import Agent as Agent

    __getattr__, __dir__ = lazy_exports(__name__)

`lazy_exports` reads that block from the package's own source the first time a name is asked
for, so the list cannot drift from what type checkers see. `__all__` is the list, sorted.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable
from typing import Any


def _declared(package: str) -> dict[str, tuple[str, str]]:
    """name -> (module, attribute) for each import under the package's `if TYPE_CHECKING:`."""
    import ast

    module = sys.modules[package]
    source = module.__loader__.get_source(package)  # type: ignore[union-attr]
    found: dict[str, tuple[str, str]] = {}
    for node in ast.parse(source or "").body:
        test = node.test if isinstance(node, ast.If) else None
        if not (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING"):
            continue
        assert isinstance(node, ast.If)
        for stmt in node.body:
            if isinstance(stmt, ast.ImportFrom):
                where = "." * stmt.level + (stmt.module or "")
                for alias in stmt.names:
                    found[alias.asname or alias.name] = (where, alias.name)
    return found


def lazy_exports(package: str) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """The module `__getattr__` and `__dir__` of `package` (its `__name__`). A loaded name is
    kept in the package's namespace, so `__getattr__` runs once per name."""
    exports: dict[str, tuple[str, str]] = {}

    def declared() -> dict[str, tuple[str, str]]:
        if not exports:
            exports.update(_declared(package))
        return exports

    def __getattr__(name: str) -> Any:
        if name == "__all__":
            return sorted(declared())
        where = declared().get(name)
        if where is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(where[0], package), where[1])
        setattr(sys.modules[package], name, value)
        return value

    def __dir__() -> list[str]:
        return sorted(set(declared()) | set(vars(sys.modules[package])))

    return __getattr__, __dir__
