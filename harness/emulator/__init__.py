"""A local provider emulator: Anthropic and OpenAI wire formats with their prompt-cache rules.

`Emulator.start(config=EmulatorConfig(...), clock=ManualClock())` serves on 127.0.0.1 from a
background thread; the official SDKs talk to it through `base_url` (Anthropic: `emu.base_url`,
OpenAI: `emu.base_url + "/v1"`). Its model is scripted and deterministic, its cache follows the
providers' documented rules (prefixlock.cache), and tests read `emu.requests` for what it saw.

Names are imported lazily (PEP 562): `prefixlock serve --help` loads none of the server, and the
built-in session (a data file) is read on first use.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ..lazy import lazy_exports

if TYPE_CHECKING:  # what this package exports (prefixlock.lazy reads it)
    from .config import AnthropicCacheConfig as AnthropicCacheConfig
    from .config import EmulatorConfig as EmulatorConfig
    from .config import FaultSpec as FaultSpec
    from .config import OpenAICacheConfig as OpenAICacheConfig
    from .model import BUILTIN as BUILTIN
    from .model import BUILTIN_PROMPTS as BUILTIN_PROMPTS
    from .model import EXPLORER as EXPLORER
    from .model import Reply as Reply
    from .model import Rule as Rule
    from .model import Script as Script
    from .model import ScriptedModel as ScriptedModel
    from .model import Step as Step
    from .model import Summary as Summary
    from .server import Emulator as Emulator
    from .server import RecordedRequest as RecordedRequest


# Annotated so type checkers read the lazy names as the package's own attributes.
__getattr__: Callable[[str], Any]
__dir__: Callable[[], list[str]]
__getattr__, __dir__ = lazy_exports(__name__)
