"""A message in an Anthropic-shaped request body, held as the message itself.

A long chat's newest request body is kept (the cache guard explains the next miss against it)
and names every message of the conversation. As a dict over each message's decoded blocks it
held the conversation a second time. A `WireMessage` is the dict `{"role", "content"}` read
through to the message, which holds its blocks as their JSON bytes (prefixlock.transcript):
reading "content" decodes them, and the body's encoder splices the bytes as they are
(`json_bytes`, prefixlock.providers.body), the same bytes the dict gave. A body does not keep
them either: it holds its list as a recipe and makes them when the list is read
(prefixlock.providers.lazy_body).

A dict subclass, not a plain mapping, so that what takes a body as plain JSON data goes on
working: `json.dumps` (its encoders read a dict subclass through `items()`), `dict(m)`, `{**m}`,
equality (prefixlock.providers.dict_lookalike). Its own storage holds the role and the message
(not the blocks), so a reader that bypasses the methods gets a Message, which no JSON encoder
takes, rather than wrong text.
"""

# pure: imports no I/O (tests/test_layout.py checks it)

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any, NoReturn

from ..transcript import Message
from .dict_lookalike import ItemsDict

_ENCODE = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), allow_nan=False).encode


class WireMessage(ItemsDict):
    """`{"role": message.role, "content": message.blocks}`, read-only, over `message`."""

    __slots__ = ()

    def __init__(self, message: Message) -> None:
        # The keys in the order a builder's dict had them, and so the order sent.
        super().__init__(role=message.role, content=message)

    @property
    def message(self) -> Message:
        held: Message = dict.__getitem__(self, "content")
        return held

    def __getitem__(self, key: str) -> Any:
        if key == "content":
            return self.message.blocks
        return dict.__getitem__(self, key)

    def get(self, key: str, default: Any = None) -> Any:
        try:
            return self[key]
        except KeyError:
            return default

    # dict's own iterator would let `dict(m)` and `{**m}` copy the storage as it is; with this
    # one they read each key through `__getitem__`.
    def __iter__(self) -> Iterator[str]:
        return iter(("role", "content"))

    def items(self) -> Any:
        return [("role", self["role"]), ("content", self["content"])]

    def values(self) -> Any:
        return [self["role"], self["content"]]

    def _refuse(self, *args: Any, **kwargs: Any) -> NoReturn:
        raise TypeError("a request body's message is read-only: change a copy (dict(message))")

    __setitem__ = __delitem__ = _refuse
    clear = pop = popitem = setdefault = update = __ior__ = _refuse

    def __reduce__(self) -> tuple[Any, ...]:
        return (WireMessage, (self.message,))

    def may_hold(self, text: bytes) -> bool:
        """Whether `text` may be in the message's JSON (False: it is not there), found by a
        search of its bytes rather than a read of its blocks; True where they are not JSON."""
        try:
            return text in self.message.content_json()
        except (TypeError, ValueError):
            return True

    def json_bytes(self) -> bytes:
        """The JSON an SDK sends for the dict this stands for (compact, keys in order)."""
        m = self.message
        return b'{"role":' + _ENCODE(m.role).encode() + b',"content":' + m.content_json() + b"}"
