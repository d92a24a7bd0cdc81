"""Where the parts of a request body sit in its bytes, found level by level with msgspec, and
the hashes session detection compares, taken of those bytes instead of a re-serialization.

Pure. `Layout(raw)` answers `layout[path]` (a path of keys and indexes from the root, as
`jsonspan.spans` names them) with the byte range `[start, end)` of that value, and reads only
the containers on the way: one C-speed `msgspec` pass per container opened (its children as
`msgspec.Raw`, whose lengths chain the positions), checked against the bytes between children
(separators, keys, the closing bracket), so a body with a duplicate key or anything else the
walk does not explain raises `JsonSpanError` and the caller falls back to `jsonspan`.

Hashes (`item_hashes`, `system_hash`, `tools_hash`) are SHA-256 of a part's bytes as the client
sent them, with its cache markers (`cache_control`, `prompt_cache_breakpoint`) cut out: a client
moves its markers from one request to the next while the content stays, and serializes the same
content the same way each time, so one conversation keeps its hashes.

`Layout(raw, previous=)` reuses what the layout of an earlier body found in the bytes the two
share from the start (a conversation's next request repeats the last one's bytes up to its new
messages): a value that ends inside that shared prefix has the same bytes, so the same place and
hash, and only the containers' rest is decoded and hashed anew.
"""

# pure: imports no I/O (tests/test_layout.py checks it)

from __future__ import annotations

import bisect
import hashlib
import json
import re
from collections.abc import Mapping
from typing import Any

import msgspec

from ..canonical import canonical_bytes
from .jsonspan import JsonSpanError, Path

MARKERS = ("cache_control", "prompt_cache_breakpoint")
_MARKER_BYTES = tuple(b'"' + m.encode() + b'"' for m in MARKERS)
_ANY_MARKER = re.compile(b"|".join(re.escape(m) for m in _MARKER_BYTES))
_INSTRUCTION_ROLES = ("system", "developer")

_WS = re.compile(rb"[ \t\r\n]*")
_COMMA = re.compile(rb"[ \t\r\n]*,[ \t\r\n]*")
_KEY = re.compile(rb'"([^"\\]*(?:\\.[^"\\]*)*)"[ \t\r\n]*:[ \t\r\n]*')
_CLOSE = re.compile(rb"[ \t\r\n]*[}\]]")
_LONGEST = max(len(m) for m in _MARKER_BYTES)
_OBJECT = msgspec.json.Decoder(dict[str, msgspec.Raw])
_ARRAY = msgspec.json.Decoder(list[msgspec.Raw])
_VALUE = msgspec.json.Decoder()
_MISSING = object()

# A child of a container: (key or index, where its key starts (its value's start in an array),
# where its value starts, where its value ends).
Child = tuple[str | int, int, int, int]


class Layout:
    """Lazily found byte ranges of the values of one JSON document (see the module's doc)."""

    def __init__(self, raw: bytes, previous: Layout | None = None) -> None:
        self.raw = raw
        self._view = memoryview(raw)
        start = _WS.match(raw, 0)
        end = len(raw.rstrip(b" \t\r\n"))
        s = start.end() if start else 0
        if s >= end:
            raise JsonSpanError("an empty document")
        self._spans: dict[Path, tuple[int, int]] = {(): (s, end)}
        self._children: dict[Path, list[Child] | None] = {}
        self._digests: dict[Path, str] = {}
        self._reuses: dict[Path, int] = {}  # how many children came from `previous`
        # The last item_hashes: (api, the items' element indexes, their hashes).
        self._items: tuple[str, list[int], tuple[str, ...]] | None = None
        self._doc: dict[str, Any] | None = None  # the document, once `document()` parsed it
        # What `previous` found stays true of values that end before `_shared`, the length of
        # the bytes the two documents share from the start. Only its finished work is read
        # (never computed on), so it may be in use elsewhere.
        self._previous = previous
        self._shared = 0 if previous is None else _common_prefix(raw, previous.raw)
        if previous is not None:
            previous._previous = None  # one step back only: a chain would keep every body
        # Whether any marker's name is in the document at all (most bodies: no, one search;
        # after a previous document without one, a search of the bytes past the shared part).
        if previous is None:
            self.marked = _ANY_MARKER.search(raw) is not None
        else:
            after = max(0, self._shared - _LONGEST)
            self.marked = previous.marked or _ANY_MARKER.search(raw, after) is not None

    def __contains__(self, path: object) -> bool:
        if not isinstance(path, tuple):
            return False
        try:
            self[path]
        except KeyError:
            return False
        return True

    def __getitem__(self, path: Path) -> tuple[int, int]:
        found = self._spans.get(path)
        if found is not None:
            return found
        if not path:
            raise KeyError(path)
        for key, *_ in self.children(path[:-1]) or ():
            if key == path[-1]:
                return self._spans[path]
        raise KeyError(path)

    def get(self, path: Path) -> tuple[int, int] | None:
        try:
            return self[path]
        except KeyError:
            return None

    def children(self, path: Path) -> list[Child] | None:
        """The members of the object or elements of the array at `path` (None: a scalar)."""
        if path in self._children:
            return self._children[path]
        start, end = self[path]
        opener = self.raw[start]
        reused = self._reused(path, start) if opener in (0x7B, 0x5B) else []
        if opener == 0x7B:  # {
            kids: list[Child] | None = self._members(start, end, reused)
        elif opener == 0x5B:  # [
            kids = self._elements(start, end, reused)
        else:
            kids = None
        self._children[path] = kids
        self._reuses[path] = len(reused) if kids is not None else 0
        for key, _, s, e in kids or ():
            self._spans[(*path, key)] = (s, e)
        return kids

    def _decode(self, decoder: msgspec.json.Decoder[Any], start: int, end: int) -> Any:
        try:
            return decoder.decode(self._view[start:end])
        except (msgspec.DecodeError, msgspec.ValidationError) as exc:
            raise JsonSpanError(str(exc)) from None

    def _reused(self, path: Path, start: int) -> list[Child]:
        """The children of the container at `path` (starting at `start`) that the previous
        layout found ending before the shared prefix does (the byte after each is shared too,
        so a number there is not longer here)."""
        prev = self._previous
        if prev is None or start >= self._shared:
            return []
        span = prev._spans.get(path)
        if span is None or span[0] != start:
            return []
        kids = prev._children.get(path)
        if not kids:
            return []
        return kids[: bisect.bisect_left(kids, self._shared, key=lambda kid: kid[3])]

    def _rest(
        self, decoder: msgspec.json.Decoder[Any], start: int, end: int, pos: int, after: bool
    ) -> Any:
        """The values of the container at `[start, end)` from `pos`: all of them, or (`after`
        reused ones) those past the comma that ends at `pos`, decoded as a container of their
        own (at least one: a comma before the closing bracket is not JSON)."""
        if not after:
            return self._decode(decoder, start, end)
        try:
            rest = decoder.decode(self.raw[start : start + 1] + self._view[pos:end])
        except (msgspec.DecodeError, msgspec.ValidationError) as exc:
            raise JsonSpanError(str(exc)) from None
        if not rest:
            raise JsonSpanError(f"a comma before the closing bracket at byte {end - 1}")
        return rest

    def _resume(self, start: int, end: int, reused: list[Child]) -> int | None:
        """Where the container at `[start, end)` has children past `reused` (the first new
        child's byte), or None when it closes right after them."""
        raw = self.raw
        if not reused:
            return _after(_WS, raw, start + 1)
        pos = reused[-1][3]
        if _CLOSE.match(raw, pos) is not None:
            _closed(raw, pos, end)
            return None
        return _after(_COMMA, raw, pos)

    def _members(self, start: int, end: int, reused: list[Child]) -> list[Child]:
        raw = self.raw
        out: list[Child] = list(reused)
        if (pos := self._resume(start, end, reused)) is None:
            return out
        doc: dict[str, msgspec.Raw] = self._rest(_OBJECT, start, end, pos, bool(reused))
        seen = {kid[0] for kid in reused}
        for i, (key, value) in enumerate(doc.items()):
            if i:
                pos = _after(_COMMA, raw, pos)
            m = _KEY.match(raw, pos)
            if m is None or _key(m.group(1)) != key or key in seen:
                raise JsonSpanError(f"the members of the object at byte {start} do not line up")
            v_end = m.end() + len(value)
            out.append((key, pos, m.end(), v_end))
            pos = v_end
        _closed(raw, pos, end)
        return out

    def _elements(self, start: int, end: int, reused: list[Child]) -> list[Child]:
        raw = self.raw
        out: list[Child] = list(reused)
        if (pos := self._resume(start, end, reused)) is None:
            return out
        doc: list[msgspec.Raw] = self._rest(_ARRAY, start, end, pos, bool(reused))
        for i, value in enumerate(doc, len(reused)):
            if i > len(reused):
                pos = _after(_COMMA, raw, pos)
            v_end = pos + len(value)
            out.append((i, pos, pos, v_end))
            pos = v_end
        _closed(raw, pos, end)
        return out

    def footprint(self) -> int:
        """About how many bytes of memory this layout holds: its body, what it parsed of it
        (a few times the bytes), and an entry for each value it placed or hashed."""
        return 4 * len(self.raw) + 256 * (len(self._spans) + len(self._digests))

    def document(self) -> dict[str, Any]:
        """The document (a JSON object) parsed: a member, or an element of an array member,
        whose bytes the previous layout's document already holds (the same bytes: the same
        value) is that value, not decoded again; the rest is decoded by msgspec. Its values
        are shared with the previous document's: read them, never change them. Raises
        JsonSpanError (or msgspec's errors, RecursionError) where a full parse must judge."""
        if self._doc is not None:
            return self._doc
        start, _ = self[()]
        if self.raw[start] != 0x7B:
            raise JsonSpanError("the document is not a JSON object")
        prev = self._previous
        old = prev._doc if prev is not None else None
        doc: dict[str, Any] = {}
        for member, _, s, e in self.children(()) or ():
            key = str(member)
            before = old.get(key, _MISSING) if old is not None else _MISSING
            if before is not _MISSING and e < self._shared:
                assert prev is not None
                if prev._spans.get((key,)) == (s, e):
                    doc[key] = before
                    continue
            if isinstance(before, list) and self.raw[s] == 0x5B:
                kids = self.children((key,)) or []
                n = self._reuses.get((key,), 0)
                if 0 < n <= len(before):
                    doc[key] = before[:n] + [
                        _VALUE.decode(self._view[a:b]) for *_, a, b in kids[n:]
                    ]
                    continue
            doc[key] = _VALUE.decode(self._view[s:e])
        self._doc = doc
        return doc

    # ---- hashes ----------------------------------------------------------------------------

    def unmarked(self, path: Path) -> bytes:
        """The bytes of the value at `path` with every cache-marker member cut out (with the
        separator before it, or after it when it comes first)."""
        start, end = self[path]
        if not any(self.raw.find(m, start, end) >= 0 for m in _MARKER_BYTES):
            return self.raw[start:end]
        kids = self.children(path)
        if not kids:
            return self.raw[start:end]
        raw = self.raw
        is_object = raw[start] == 0x7B
        kept = [i for i, kid in enumerate(kids) if not (is_object and kid[0] in MARKERS)]
        if not kept:
            return b"{}"
        out = [raw[start : kids[0][1]]]  # the bracket and the space after it
        for n, i in enumerate(kept):
            key, k_start, v_start, _ = kids[i]
            if n:
                out.append(raw[kids[i - 1][3] : k_start])  # the separator before it
            out.append(raw[k_start:v_start])
            out.append(self.unmarked((*path, key)))
        out.append(raw[kids[-1][3] : end])  # the space and the closing bracket
        return b"".join(out)

    def digest(self, path: Path) -> str:
        found = self._digests.get(path)
        if found is not None:
            return found
        start, end = self[path]
        prev = self._previous
        if prev is not None and end < self._shared and prev._spans.get(path) == (start, end):
            found = prev._digests.get(path)
        if found is None:
            data = self._view[start:end] if not self.marked else self.unmarked(path)
            found = hashlib.sha256(data).hexdigest()[:24]
        self._digests[path] = found
        return found

    def conversation(self, api: str, body: Mapping[str, Any]) -> list[Path]:
        """The paths of the conversation items of `body` (this document, parsed): instructions
        left out (OpenAI), as `sessions.conversation` lists them."""
        field = "input" if api == "openai-responses" else "messages"
        items = body.get(field)
        if not isinstance(items, list):
            return []
        if api == "anthropic":
            return [(field, i) for i in range(len(items))]
        return [
            (field, i)
            for i, m in enumerate(items)
            if not (isinstance(m, Mapping) and m.get("role") in _INSTRUCTION_ROLES)
        ]

    def item_hashes(self, api: str, body: Mapping[str, Any]) -> tuple[str, ...]:
        if api == "openai-responses" and isinstance(body.get("input"), str):
            item = {"role": "user", "content": body["input"]}
            return (hashlib.sha256(canonical_bytes(item)).hexdigest()[:24],)
        paths = self.conversation(api, body)
        indexes = [int(p[1]) for p in paths]
        hashes: tuple[str, ...] = ()
        prev = self._previous
        if paths and prev is not None and prev._items is not None and prev._items[0] == api:
            # The elements that came from the previous layout are its items, hashes and all.
            self.children((paths[0][0],))
            reused = self._reuses.get((paths[0][0],), 0)
            _, prev_indexes, prev_hashes = prev._items
            hashes = prev_hashes[: bisect.bisect_left(prev_indexes, reused)]
        hashes += tuple(self.digest(p) for p in paths[len(hashes) :])
        self._items = (api, indexes, hashes)
        return hashes

    def system_hash(self, api: str, body: Mapping[str, Any]) -> str | None:
        """A hash of the system prompt or instructions (None: absent)."""
        if api == "anthropic" or (api == "openai-responses" and "instructions" in body):
            field = "system" if api == "anthropic" else "instructions"
            return None if body.get(field) is None else self.digest((field,))
        field = "input" if api == "openai-responses" else "messages"
        items = body.get(field)
        if not isinstance(items, list):
            return None
        parts = [
            self.unmarked((field, i))
            for i, m in enumerate(items)
            if isinstance(m, Mapping) and m.get("role") in _INSTRUCTION_ROLES
        ]
        return hashlib.sha256(b"\x00".join(parts)).hexdigest()[:24] if parts else None

    def tools_hash(self, body: Mapping[str, Any]) -> str | None:
        return None if body.get("tools") is None else self.digest(("tools",))


def _common_prefix(a: bytes, b: bytes) -> int:
    """How many bytes `a` and `b` share from the start (memcmp speed: `startswith`)."""
    n = min(len(a), len(b))
    view = memoryview(b)
    if a.startswith(view[:n]):
        return n
    lo, hi = 0, n  # a[:lo] == b[:lo] and a[:hi] != b[:hi]
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if a.startswith(view[lo:mid], lo):
            lo = mid
        else:
            hi = mid
    return lo


def _after(pattern: re.Pattern[bytes], raw: bytes, pos: int) -> int:
    m = pattern.match(raw, pos)
    if m is None:
        raise JsonSpanError(f"expected a separator at byte {pos}")
    return m.end()


def _closed(raw: bytes, pos: int, end: int) -> None:
    m = _CLOSE.match(raw, pos)
    if m is None or m.end() != end:
        raise JsonSpanError(f"the container ending at byte {end} does not close where it should")


def _key(text: bytes) -> str:
    if b"\\" not in text:
        return text.decode("utf-8", "surrogatepass")
    return str(json.loads(b'"' + text + b'"'))
