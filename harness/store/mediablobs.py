"""Images and documents kept once in the store, however many rows hold them.

A picture sent on turn 1 is in every later request's body, in the transcript's message and,
on Anthropic, in a second copy of that message whenever it carries the breakpoint. The store's
content blobs already keep each message once; this keeps each medium's base64 once: a payload
(the `data` of a base64 source, or the base64 of a `data:` URL) is moved into its own blob and
its place holds `\\0media:<hash>:<head>` (head: the URL's `data:<type>;base64,`, so a data URL
and the raw base64 of the same picture share the blob). Reading puts the exact string back, so
a request rebuilt from the store is byte for byte what was sent and a resumed session's next
request reads the cache as before. A string of the value that itself starts with NUL is written
with a second NUL (and read back without it), so no user text is ever taken for a reference.
"""

# pure: imports no I/O (tests/test_layout.py checks it)

from __future__ import annotations

import hashlib
from collections.abc import Callable, Mapping
from typing import Any

MIN_CHARS = 1024  # smaller payloads stay inline: a blob row costs more than it saves
MARK = "\x00media:"
_DATA_URL_HEAD_MAX = 100


def media_hash(payload: str) -> str:
    """The blob hash of a payload (its own namespace: never equal to a JSON blob's hash)."""
    return hashlib.sha256(b"media\x00" + payload.encode("utf-8")).hexdigest()


def may_hold_media(data: bytes) -> bool:
    """Need the value encoded as canonical JSON `data` be walked? (Big and holding a base64
    source or a data URL, or holding a NUL.) Most rows are not: they are stored as they are."""
    if b"\\u0000" in data:
        return True
    return len(data) >= MIN_CHARS and (b'"type":"base64"' in data or b'"data:' in data)


def may_hold_marks(data: bytes) -> bool:
    return b'"\\u0000' in data


def _payload(value: str, base64_source: bool) -> tuple[str, str] | None:
    """(head, payload) of a string to move out, or None."""
    if len(value) < MIN_CHARS:
        return None
    if base64_source:
        return "", value
    if value.startswith("data:"):
        head, sep, _ = value[:_DATA_URL_HEAD_MAX].partition(";base64,")
        if sep:
            cut = len(head) + len(sep)
            return value[:cut], value[cut:]
    return None


def extern(value: Any, put: Callable[[str, str], None]) -> Any:
    """`value` with each media payload replaced by its mark; `put(hash, payload)` stores one."""

    def walk(v: Any, base64_source: bool = False) -> Any:
        if isinstance(v, str):
            found = _payload(v, base64_source)
            if found is not None:
                head, payload = found
                h = media_hash(payload)
                put(h, payload)
                return f"{MARK}{h}:{head}"
            return "\x00" + v if v.startswith("\x00") else v
        if isinstance(v, Mapping):
            source = v.get("type") == "base64"
            return {k: walk(x, source and k == "data") for k, x in v.items()}
        if isinstance(v, (list, tuple)):
            return [walk(x) for x in v]
        return v

    return walk(value)


def restore(value: Any, get: Callable[[str], str]) -> Any:
    """`value` as it was before `extern`; `get(hash)` reads a payload."""

    def walk(v: Any) -> Any:
        if isinstance(v, str):
            if v.startswith(MARK):
                h, _, head = v[len(MARK) :].partition(":")
                return head + get(h)
            return v[1:] if v.startswith("\x00\x00") else v
        if isinstance(v, dict):
            return {k: walk(x) for k, x in v.items()}
        if isinstance(v, list):
            return [walk(x) for x in v]
        return v

    return walk(value)
