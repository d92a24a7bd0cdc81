"""Packages export their names lazily (prefixlock.lazy): the list is the package's
`if TYPE_CHECKING:` imports, every listed name resolves, nothing loads before it is asked for."""

from __future__ import annotations

import importlib
import subprocess
import sys

import pytest

LAZY = [
    "prefixlock",
    "prefixlock.guard",
    "prefixlock.store",
    "prefixlock.emulator",
    "prefixlock.agents",
    "prefixlock.policies",
]


@pytest.mark.parametrize("package", LAZY)
def test_every_listed_name_resolves_and_nothing_else(package: str) -> None:
    module = importlib.import_module(package)
    names = module.__all__
    assert names == sorted(names) and len(names) >= 5
    for name in names:
        assert getattr(module, name) is not None, name
        assert name in dir(module)
    with pytest.raises(AttributeError, match="no attribute 'NotExported'"):
        module.NotExported  # noqa: B018


def test_a_name_loads_its_module_only_when_asked_for() -> None:
    code = (
        "import sys, prefixlock\n"
        "before = 'prefixlock.session' in sys.modules\n"
        "prefixlock.Session\n"
        "print(before, 'prefixlock.session' in sys.modules, 'anthropic' in sys.modules)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60
    ).stdout.split()
    assert out == ["False", "True", "False"]
