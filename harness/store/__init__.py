"""The session store: every request's exact wire body, usage and cost in SQLite (`database`),
what a session writes to it and when (`recorder`), a session rebuilt from it (`resume`), and
`prefixlock sessions` to list, show and export it (`cli`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..lazy import lazy_exports

if TYPE_CHECKING:
    from .database import (
        SessionRecord,
        SessionStore,
        StoredRequest,
        StoreError,
        UnknownSessionError,
        default_path,
    )

_EXPORTS = {
    "SessionRecord": ".database",
    "SessionStore": ".database",
    "StoreError": ".database",
    "StoredRequest": ".database",
    "UnknownSessionError": ".database",
    "default_path": ".database",
}

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS, globals())

__all__ = [
    "SessionRecord",
    "SessionStore",
    "StoreError",
    "StoredRequest",
    "UnknownSessionError",
    "default_path",
]
