"""The official SDKs for the tests, loaded on first use.

`anthropic` takes about 3.5 s to import and `openai` 1.5 s (their pydantic models), so a test
module that imported them at its top would make collecting the whole suite pay for them. Here
each is a stand-in module that imports the SDK the first time one of its names is used (its
dunder attributes, which pytest probes while collecting, do not count) and hands that name on.
Test modules take the SDKs from here; type-only imports of SDK types go under
`if TYPE_CHECKING:`.
"""

from __future__ import annotations

import importlib
from types import ModuleType
from typing import TYPE_CHECKING, Any


class _OnFirstUse(ModuleType):
    def __getattr__(self, name: str) -> Any:  # only for names this stand-in does not have
        if name.startswith("__") and name.endswith("__"):
            raise AttributeError(name)
        return getattr(importlib.import_module(self.__name__), name)


if TYPE_CHECKING:
    import anthropic as anthropic
    import openai as openai
else:
    anthropic = _OnFirstUse("anthropic")
    openai = _OnFirstUse("openai")
