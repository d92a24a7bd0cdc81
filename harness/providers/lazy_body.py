"""A request body whose message list is made when it is read, from a recipe of it.

A session keeps its newest request (the cache guard explains the next miss against it, the
keep-alive repeats it), and an Anthropic body names every message of the conversation. As a
list of one dict per message (a `WireMessage`, ~200 bytes) it grew a long chat by that much a
message, for the chat's life, beside the messages themselves. `LazyBody` holds the recipe of the
list instead (`MessagesRecipe`: the messages, which the transcript holds anyway, the
breakpoints put on them and the volatile text appended), and makes the list, equal to the one
the builder made before, each time "messages" is read. What reads every request (the encoder,
prefixlock.providers.body; the store, prefixlock.store.bodies; a copy for the transport or a
keep-alive ping) takes the recipe's items one at a time instead (`raw_items`, `copy_body`),
without the list: made whole at each request, it was ~200 bytes a message at once, and the
allocator keeps that high-water mark as if it were held.

A dict subclass, as `WireMessage` is (prefixlock.providers.dict_lookalike): `json.dumps`,
`dict(b)`, `{**b}` and equality read it through `items()`, `keys()` and `__getitem__`, and so
see the list. Its own storage holds the recipe under "messages", which no JSON encoder takes, so
a reader that bypasses the methods fails rather than send something else. A copy a caller makes
(`copy.copy`, `copy.deepcopy`, `.copy()`) is a plain dict holding a plain list, the caller's to
change. The list a read makes (`body["messages"]`, and so `dict(body)`'s) is new each time, so a
change to it would be lost in silence: it is a `BuiltList`, which raises TypeError on a change
instead.
"""

# pure: imports no I/O (tests/test_layout.py checks it)

from __future__ import annotations

import copy
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import Any

from ..transcript import Message
from .dict_lookalike import ItemsDict

Item = Mapping[str, Any]


class MessagesRecipe:
    """A body's message list: each message's wire dict (`wire`), a breakpoint (`mark`) on each
    block in `marks` (message index, block index (-1: the last), ttl; in order; a ttl of None
    takes every breakpoint off that message's blocks), then
    `volatile` blocks appended to the last message when it is a user's (`merge`) or as a user
    message of their own. Immutable: what it was made from never changes (a transcript only
    grows)."""

    __slots__ = ("_mark", "_marks", "_merge", "_messages", "_n", "_volatile", "_wire")

    def __init__(
        self,
        messages: Sequence[Message],
        wire: Callable[[Message], Item],
        mark: Callable[[Item, int, str | None], Item],
        marks: tuple[tuple[int, int, str | None], ...] = (),
        volatile: tuple[str, ...] = (),
        merge: bool = False,
        count: int | None = None,
    ) -> None:
        # The first `count` of `messages` (all by default): a list the chain memo only appends
        # to (it cuts a copy), so holding it costs no copy of a slot a message.
        self._messages = messages
        self._n = len(messages) if count is None else count
        self._wire = wire
        self._mark = mark
        self._marks = marks
        self._volatile = volatile
        self._merge = merge

    def __len__(self) -> int:
        appended = bool(self._volatile) and not self._merge
        return self._n + appended

    def _blocks(self) -> list[dict[str, Any]]:
        return [{"type": "text", "text": t} for t in self._volatile]

    def __iter__(self) -> Iterator[Item]:
        """The items, made one at a time (new dicts for the marked and merged ones)."""
        wire, marks = self._wire, self._marks
        marked = {i for i, _, _ in marks}
        messages, last = self._messages, self._n - 1
        merge = self._merge and bool(self._volatile)
        for i in range(self._n):
            item = wire(messages[i])
            if i in marked:
                for j, block, ttl in marks:
                    if j == i:
                        item = self._mark(item, block, ttl)
            if merge and i == last:
                item = {**item, "content": [*item["content"], *self._blocks()]}
            yield item
        if self._volatile and not self._merge:
            yield {"role": "user", "content": self._blocks()}

    def _with(self, marks: tuple[tuple[int, int, str | None], ...]) -> MessagesRecipe:
        return MessagesRecipe(
            self._messages, self._wire, self._mark, marks, self._volatile, self._merge, self._n
        )

    def with_mark(self, block: int, ttl: str) -> MessagesRecipe | None:
        """This list with a breakpoint on its `block`-th message block, counted over the
        messages' blocks from each message's kept token counts (not decoded); None where that
        block is not a message's (a volatile one's)."""
        for i in range(self._n):
            n = len(self._messages[i].block_tokens)
            if block < n:
                return self._with((*self._marks, (i, block, ttl)))
            block -= n
        return None

    def without_marks(self) -> MessagesRecipe:
        """This list without its breakpoints: its own marks dropped, and those of a message
        whose blocks may hold a `cache_control` (a search of its bytes finds one, or it is not
        held as bytes) taken off when it is made."""
        marks: list[tuple[int, int, str | None]] = []
        for i in range(self._n):
            try:
                held = b'"cache_control"' in self._messages[i].content_json()
            except (TypeError, ValueError):
                held = True
            if held:
                marks.append((i, -1, None))
        return self._with(tuple(marks))

    def same_item(self, prev: MessagesRecipe, i: int) -> bool:
        """Whether item `i` is made the same in `prev` as here: the same message, made by the
        same functions, unmarked and with nothing merged into it in both (its bytes are equal;
        a store need not encode and hash it again)."""
        return (
            i < prev._n
            and i < self._n
            and prev._messages[i] is self._messages[i]
            and prev._wire is self._wire
            and not self._changes(i)
            and not prev._changes(i)
        )

    def _changes(self, i: int) -> bool:
        """Whether item `i` is not the message's wire dict as it is (marked, or merged into)."""
        if self._merge and self._volatile and i == self._n - 1:
            return True
        return any(j == i for j, _, _ in self._marks)

    def __reduce__(self) -> tuple[Any, ...]:
        return (
            MessagesRecipe,
            (
                tuple(self._messages[: self._n]),
                self._wire,
                self._mark,
                self._marks,
                self._volatile,
                self._merge,
            ),
        )


_READ_ONLY = (
    "a built request body's message list is read-only (it is made anew at each read, so a "
    "change would be lost): change a copy's, `copy.deepcopy(body)` or `body.copy()`"
)


class BuiltList(list[Any]):
    """The list a recipe makes on a read: a list to read, and an error to change. Each read
    makes a new one, so a change to it would be lost in silence; a copy of the body
    (`body.copy()`, `copy.deepcopy`) holds a plain list that is the caller's to change."""

    __slots__ = ()

    def _refuse(self, *args: Any, **kwargs: Any) -> Any:
        raise TypeError(_READ_ONLY)

    append = extend = insert = pop = remove = clear = sort = reverse = _refuse
    __setitem__ = __delitem__ = __iadd__ = __imul__ = _refuse

    def __copy__(self) -> list[Any]:
        return list(self)

    def __deepcopy__(self, memo: dict[int, Any]) -> list[Any]:
        out: list[Any] = copy.deepcopy(list(self), memo)
        return out

    def __reduce__(self) -> tuple[Any, ...]:
        return (list, (list(self),))


def _made(value: Any) -> Any:
    return BuiltList(value) if type(value) is MessagesRecipe else value


def _plain(value: Any) -> Any:
    return list(value) if type(value) is MessagesRecipe else value


class LazyBody(ItemsDict):
    """A body dict whose recipe values (`MessagesRecipe`) read as the lists they make.

    Changes go to the body itself, as to a dict (a copy's: a built body is read-only)."""

    __slots__ = ()

    def __getitem__(self, key: str) -> Any:
        return _made(dict.__getitem__(self, key))

    def get(self, key: str, default: Any = None) -> Any:
        return _made(dict.get(self, key, default))

    # What leaves the body (popped) is the caller's: a plain list.
    def pop(self, key: str, *default: Any) -> Any:
        return _plain(dict.pop(self, key, *default))

    def setdefault(self, key: str, default: Any = None) -> Any:
        return _made(dict.setdefault(self, key, default))

    def popitem(self) -> tuple[str, Any]:
        key, value = dict.popitem(self)
        return key, _plain(value)

    # dict's own iterator would let `dict(b)` and `{**b}` copy the storage as it is; with this
    # one they read each key through `__getitem__`.
    def __iter__(self) -> Iterator[str]:
        return iter(list(dict.keys(self)))

    def items(self) -> Any:
        return [(k, _made(v)) for k, v in dict.items(self)]

    def values(self) -> Any:
        return [_made(v) for v in dict.values(self)]

    def raw_items(self) -> Iterable[tuple[str, Any]]:
        """The items as held: a recipe as itself (iterable, sized), not as its list."""
        return dict.items(self)

    def copy(self) -> dict[str, Any]:
        """A plain dict of the items, its message list a plain list: the caller's to change."""
        return {k: _plain(v) for k, v in dict.items(self)}

    def __copy__(self) -> dict[str, Any]:
        return self.copy()

    def __deepcopy__(self, memo: dict[int, Any]) -> dict[str, Any]:
        out: dict[str, Any] = copy.deepcopy(self.copy(), memo)
        return out

    def kept_copy(self) -> LazyBody:
        """A body of its own, with the same recipes (they never change): for a copy whose
        message list is read, not changed (one to send, a keep-alive ping)."""
        return LazyBody(dict.items(self))

    def recipe(self, key: str) -> MessagesRecipe | None:
        """The recipe held under `key` (None: a value as any other)."""
        value = dict.get(self, key)
        return value if type(value) is MessagesRecipe else None

    def replacing(self, key: str, recipe: MessagesRecipe) -> LazyBody:
        """A copy with `recipe` under `key`, in its place."""
        out = self.kept_copy()
        dict.__setitem__(out, key, recipe)
        return out

    def __reduce__(self) -> tuple[Any, ...]:
        return (LazyBody, (list(dict.items(self)),))


def raw_items(body: Mapping[str, Any]) -> Iterable[tuple[str, Any]]:
    """`body`'s items, a `LazyBody`'s recipes as themselves (iterate them for the items)."""
    return body.raw_items() if type(body) is LazyBody else body.items()


def copy_body(body: Mapping[str, Any]) -> dict[str, Any]:
    """A copy of `body` whose keys are the caller's to change; a `LazyBody`'s copy keeps its
    recipes (its message list is to be read, not changed: `LazyBody.kept_copy`)."""
    return body.kept_copy() if type(body) is LazyBody else dict(body)
