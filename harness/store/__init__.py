"""The session store: every request's exact wire body, usage and cost in SQLite
(`database.SessionStore`, composed of `schema`, `errors`, `blobs`, `mediablobs`, `bodies`,
`records`, `writes`, `reads` and `leases`), what a session writes to it and when (`recorder`),
a session rebuilt from it (`resume`), and `prefixlock sessions` to list, show and export it
(`cli`)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ..lazy import lazy_exports

if TYPE_CHECKING:  # what this package exports (prefixlock.lazy reads it)
    from .database import SessionStore as SessionStore
    from .database import default_path as default_path
    from .errors import StoreError as StoreError
    from .errors import UnknownSessionError as UnknownSessionError
    from .records import SessionRecord as SessionRecord
    from .records import StoredRequest as StoredRequest


# Annotated so type checkers read the lazy names as the package's own attributes.
__getattr__: Callable[[str], Any]
__dir__: Callable[[], list[str]]
__getattr__, __dir__ = lazy_exports(__name__)
