"""A dict subclass whose storage is not its items: what reads it as a dict goes through them.

A request body and its messages are held in a form of their own (a message as itself,
prefixlock.providers.wire_message; a message list as its recipe,
prefixlock.providers.lazy_body), yet read as plain JSON data: `json.dumps` (its encoders read a
dict subclass through `items()`), `dict(d)`, `{**d}`, equality, `|`, a copy. `ItemsDict` gives
those reads through `items()` once, for both; a subclass gives `items()` and `__getitem__`.
"""

# pure: imports no I/O (tests/test_layout.py checks it)

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


class ItemsDict(dict[str, Any]):
    """A dict read through `items()`: equality, `|`, `copy()` (a plain dict) and `repr`."""

    __slots__ = ()

    def items(self) -> Any:
        raise NotImplementedError  # a subclass's items, as a plain dict would hold them

    def copy(self) -> dict[str, Any]:
        """A plain dict of the items: the caller's to change."""
        return dict(self.items())

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Mapping) and dict(self.items()) == dict(other.items())

    def __ne__(self, other: object) -> bool:
        return not self == other

    __hash__ = None

    def __or__(self, other: Any) -> dict[str, Any]:  # type: ignore[override]
        return {**self, **other}

    def __ror__(self, other: Any) -> dict[str, Any]:  # type: ignore[override]
        return {**other, **self}

    def __repr__(self) -> str:
        return repr(dict(self.items()))
