"""A local provider emulator: Anthropic and OpenAI wire formats with their prompt-cache rules.

`Emulator.start(config=EmulatorConfig(...), clock=ManualClock())` serves on 127.0.0.1 from a
background thread; the official SDKs talk to it through `base_url` (Anthropic: `emu.base_url`,
OpenAI: `emu.base_url + "/v1"`). Its model is scripted and deterministic, its cache follows the
providers' documented rules (see promptcache), and tests read `emu.requests` for what it saw.
"""

from typing import TYPE_CHECKING, Any

from .config import AnthropicCacheConfig, EmulatorConfig, FaultSpec, OpenAICacheConfig
from .model import EXPLORER, Reply, Rule, Script, ScriptedModel, Step
from .server import Emulator, RecordedRequest

if TYPE_CHECKING:
    from .model import BUILTIN, BUILTIN_PROMPTS
else:

    def __getattr__(name: str) -> Any:
        # The built-in session is a data file, read on first use (prefixlock.emulator.model).
        if name in ("BUILTIN", "BUILTIN_PROMPTS"):
            from . import model

            return getattr(model, name)
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

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
