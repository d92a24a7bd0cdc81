"""What the store raises: `StoreError`, one line naming the store file, and the two faults below
it said that way: a damaged file (`corruption`) and a malformed row (`malformed_row`), so
`/resume`, `chat --resume`, `sessions show` and `export` say one line instead of a traceback."""

from __future__ import annotations

import contextlib
import json
import sqlite3
from collections.abc import Iterator

from ..errors import UserError


class StoreError(UserError):
    """A store that cannot be used: newer schema, not a database, unknown session."""


class UnknownSessionError(StoreError):
    """No session with that id in the store."""


@contextlib.contextmanager
def corruption(where: str) -> Iterator[None]:
    """A damaged file (a page that does not parse) is found only when a query reads that
    page: said as one line naming the file and what to do, not as sqlite3.DatabaseError."""
    try:
        yield
    except sqlite3.DatabaseError as exc:
        if isinstance(exc, (sqlite3.OperationalError, sqlite3.IntegrityError)):
            raise  # a full disk, a lock: not damage (the recorder keeps and retries)
        raise StoreError(
            f"the store file is corrupted ({exc}): move it aside (prefixlock starts a new "
            "one there) and restore a backup, or recover what is readable with "
            "`sqlite3 FILE .recover`",
            where=where,
        ) from None
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:  # a damaged stored value
        raise StoreError(
            f"the store file is corrupted (a stored value does not decode: {exc}): move it "
            "aside and restore a backup, or recover what is readable with "
            "`sqlite3 FILE .recover`",
            where=where,
        ) from None


# What decoding a hand-edited or half-written row raises: bad JSON or UTF-8 (ValueError), a
# field of the wrong type or missing (TypeError, KeyError), a cost that is not a number
# (decimal.InvalidOperation is an ArithmeticError).
_ROW_FAULTS = (ValueError, TypeError, KeyError, AttributeError, ArithmeticError)


@contextlib.contextmanager
def malformed_row(where: str, what: str) -> Iterator[None]:
    """A malformed row (`what`: which one) as one StoreError naming the store and the row."""
    try:
        yield
    except StoreError:
        raise
    except _ROW_FAULTS as exc:
        raise StoreError(f"malformed {what}: {type(exc).__name__}: {exc}", where=where) from None
