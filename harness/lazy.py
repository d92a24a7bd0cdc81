"""Lazy package exports (PEP 562): a package names its public objects and the submodule each
lives in, and a submodule is imported only when one of its names is first asked for. Keeps
`prefixlock --help` and `import prefixlock.sim` from loading the provider SDKs, and the `lint`
command's registration from loading the checks."""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from typing import Any


def lazy_exports(
    package: str, exports: Mapping[str, str], namespace: dict[str, Any]
) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """The module `__getattr__` and `__dir__` of `package` (its `__name__`), whose `exports`
    map a name to the module defining it (relative to `package` with a leading dot, `.agent`,
    or absolute); `namespace` is the package's `globals()`, where a name is cached once loaded
    and `__all__` is read."""

    def __getattr__(name: str) -> Any:
        module = exports.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(module, package), name)
        namespace[name] = value
        return value

    def __dir__() -> list[str]:
        return sorted(namespace["__all__"])

    return __getattr__, __dir__
