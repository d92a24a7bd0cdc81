"""`prefixlock proxy`: a local HTTP proxy that measures, and with `--fix` repairs, the prompt
cache of agents you do not control.

Point a client's base URL at it (Anthropic Messages, OpenAI Chat Completions and Responses,
streams included); it forwards to the provider (or the emulator) with the client's own key,
groups requests into sessions by their conversation prefix and a hash of the key, prices each
one with the cache guard's causes, and records it to the session store and a JSONL trace. The
repairs only insert cache hints (`prompt_cache_key`, `cache_control`), never content.

Pure parts: `jsonspan` (byte offsets in a JSON body), `sessions` (session detection), `repair`
(which hints go where), `observe` (usage and figures), `sse` (the event-stream decoder) and
`intake` (what is refused, in which error shape); `server` is the ASGI app that moves the bytes,
`httpserver` the uvicorn server under it with its limits; `cli` is the command.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ..lazy import lazy_exports

if TYPE_CHECKING:  # what this package exports (prefixlock.lazy reads it)
    from .observe import Observer as Observer
    from .observe import SessionFigures as SessionFigures
    from .repair import FIXES as FIXES
    from .repair import Repaired as Repaired
    from .repair import parse_fixes as parse_fixes
    from .repair import repair as repair
    from .server import Proxy as Proxy
    from .server import ProxyConfig as ProxyConfig
    from .sessions import SessionTracker as SessionTracker

# Annotated so type checkers read the lazy names as the package's own attributes.
__getattr__: Callable[[str], Any]
__dir__: Callable[[], list[str]]
__getattr__, __dir__ = lazy_exports(__name__)
