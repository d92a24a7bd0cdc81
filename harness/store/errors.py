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


class StoreWriteLost(StoreError):
    """A session closed while its store still refused writes of work the provider billed (a
    full disk, a read-only file): those rows are lost, and the caller is told so."""

    def __init__(self, pending: int, cause: str, where: str) -> None:
        self.pending = pending
        super().__init__(
            f"{pending} write(s) still refused at exit were not stored ({cause}); the "
            "session's billed requests since then are missing from the store",
            where=where,
        )


@contextlib.contextmanager
def corruption(where: str) -> Iterator[None]:
    """A damaged file (a page that does not parse) is found only when a query reads that
    page: said as one line naming the file and what to do, not as sqlite3.DatabaseError."""
    try:
        yield
    except sqlite3.DatabaseError as exc:
        if isinstance(exc, (sqlite3.OperationalError, sqlite3.IntegrityError)) and not _damage(exc):
            raise  # a full disk, a lock: not damage (the recorder keeps and retries)
        # Its message quotes the damaged text (long, maybe many lines): the column is enough.
        said = one_line(str(exc).split(" with text", 1)[0])
        raise StoreError(
            f"the store file is corrupted ({said}): move it aside (prefixlock starts a new "
            "one there) and restore a backup, or recover what is readable with "
            "`sqlite3 FILE .recover`",
            where=where,
        ) from None
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:  # a damaged stored value
        raise StoreError(
            f"the store file is corrupted (a stored value does not decode: {one_line(str(exc))}): "
            "move it "
            "aside and restore a backup, or recover what is readable with "
            "`sqlite3 FILE .recover`",
            where=where,
        ) from None


def _damage(exc: sqlite3.DatabaseError) -> bool:
    """Whether an OperationalError is damage in the file, not a lock or a full disk: a flipped
    bit in a text value reads as "Could not decode to UTF-8 column ...", one in the schema as a
    column or table that is not there."""
    text = str(exc)
    return text.startswith(("Could not decode to UTF-8", "no such column", "no such table"))


def one_line(text: str, limit: int = 240) -> str:
    """SQLite's message as one short line (a damaged schema's quotes its SQL, newlines and
    all)."""
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 3] + "..."


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
