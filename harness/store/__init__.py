"""The session store: every request's exact wire body, usage and cost in SQLite (`database`),
what a session writes to it and when (`recorder`), a session rebuilt from it (`resume`), and
`prefixlock sessions` to list, show and export it (`cli`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..lazy import lazy_exports

if TYPE_CHECKING:  # what this package exports (prefixlock.lazy reads it)
    from .database import SessionRecord as SessionRecord
    from .database import SessionStore as SessionStore
    from .database import StoredRequest as StoredRequest
    from .database import StoreError as StoreError
    from .database import UnknownSessionError as UnknownSessionError
    from .database import default_path as default_path


__getattr__, __dir__ = lazy_exports(__name__)
