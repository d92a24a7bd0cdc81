"""A local provider emulator: Anthropic and OpenAI wire formats with their prompt-cache rules.

`Emulator.start(config=EmulatorConfig(...), clock=ManualClock())` serves on 127.0.0.1 from a
background thread; the official SDKs talk to it through `base_url` (Anthropic: `emu.base_url`,
OpenAI: `emu.base_url + "/v1"`). Its model is scripted and deterministic, its cache follows the
providers' documented rules (prefixlock.cache), and tests read `emu.requests` for what it saw.

Names are imported lazily (PEP 562): `prefixlock serve --help` loads none of the server, and the
built-in session (a data file) is read on first use.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..lazy import lazy_exports

if TYPE_CHECKING:
    from .config import AnthropicCacheConfig, EmulatorConfig, FaultSpec, OpenAICacheConfig
    from .model import (
        BUILTIN,
        BUILTIN_PROMPTS,
        EXPLORER,
        Reply,
        Rule,
        Script,
        ScriptedModel,
        Step,
    )
    from .server import Emulator, RecordedRequest

_EXPORTS = {
    "BUILTIN": ".model",
    "BUILTIN_PROMPTS": ".model",
    "EXPLORER": ".model",
    "AnthropicCacheConfig": ".config",
    "Emulator": ".server",
    "EmulatorConfig": ".config",
    "FaultSpec": ".config",
    "OpenAICacheConfig": ".config",
    "RecordedRequest": ".server",
    "Reply": ".model",
    "Rule": ".model",
    "Script": ".model",
    "ScriptedModel": ".model",
    "Step": ".model",
}

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS, globals())

__all__ = [
    "BUILTIN",
    "BUILTIN_PROMPTS",
    "EXPLORER",
    "AnthropicCacheConfig",
    "Emulator",
    "EmulatorConfig",
    "FaultSpec",
    "OpenAICacheConfig",
    "RecordedRequest",
    "Reply",
    "Rule",
    "Script",
    "ScriptedModel",
    "Step",
]
