"""Providers: pure request building, transport through the official SDKs, usage parsing.

`make_provider(model, ...)` picks the wire API from the model id (see `registry`) and returns an
`SDKProvider` (`sdk_provider`): a builder (`AnthropicBuilder`, `ChatBuilder`, `ResponsesBuilder`)
plus a `Transport`. The builders do no I/O and can be used alone.

Names are imported lazily (PEP 562): `prefixlock.providers.registry` (which model goes where, its
key's variable) loads without the builders, the transport or the official SDKs, so `prefixlock
chat` resolves its route before its first frame and loads the rest behind it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ..lazy import lazy_exports

if TYPE_CHECKING:  # what this package exports (prefixlock.lazy reads it)
    from .anthropic import AnthropicBuilder as AnthropicBuilder
    from .anthropic import AnthropicStream as AnthropicStream
    from .base import AttemptProgress as AttemptProgress
    from .base import Provider as Provider
    from .base import Reply as Reply
    from .base import SessionInfo as SessionInfo
    from .base import StreamItem as StreamItem
    from .base import StreamProgress as StreamProgress
    from .base import cache_key_for as cache_key_for
    from .openai import ChatBuilder as ChatBuilder
    from .openai import ChatStream as ChatStream
    from .openai import ResponsesBuilder as ResponsesBuilder
    from .openai import ResponsesStream as ResponsesStream
    from .registry import KEY_VARS as KEY_VARS
    from .registry import Route as Route
    from .registry import find_key as find_key
    from .registry import resolve_route as resolve_route
    from .sdk_provider import Builder as Builder
    from .sdk_provider import SDKProvider as SDKProvider
    from .sdk_provider import make_builder as make_builder
    from .sdk_provider import make_provider as make_provider
    from .transport import Fault as Fault
    from .transport import Sleep as Sleep
    from .transport import Transport as Transport
    from .transport import classify as classify


# Annotated so type checkers read the lazy names as the package's own attributes.
__getattr__: Callable[[str], Any]
__dir__: Callable[[], list[str]]
__getattr__, __dir__ = lazy_exports(__name__)
