"""The proxy's repairs: where to insert cache markers in a request a client sent, and which.

Pure. A repair only inserts a field the provider reads as a caching hint and the model never
sees (`cache_control` on an Anthropic block, `prompt_cache_key` on an OpenAI request); every
byte the client sent stays as it was, in its order, spacing and escaping, because insertions are
made at byte offsets found by `layout` (or `jsonspan` where the layout cannot explain the bytes)
instead of re-serializing the body. The one change of
form: a system prompt or message given as a plain string gets wrapped as one text block (with
its string's bytes unchanged) when a breakpoint must go there; the provider reads both forms as
the same block.

The rules (each one switchable by name, see FIXES):
- `cache-key` (OpenAI Chat Completions and Responses): a request without a `prompt_cache_key`
  gets its prefix family's (the server's `KeyShards`, prefixlock.cache.keys): every session
  of one system prompt and tool list shares it, so a program that runs one session per task
  reaches the machine that holds the shared prefix; sessions running at once take shards.
- `breakpoints` (Anthropic, only when the client sets no `cache_control` anywhere): one on the
  last tool, one at the end of the system prompt and one at the conversation's tail. None goes
  at or after a part the session's history shows changing from one request to the next (a time
  stamp in the system prompt, tools in a new order: nothing after them is ever read again, so a
  breakpoint there would only pay the write premium), and the tail moves back one message when
  the client rewrites its last message.
- `second-breakpoint` (Anthropic, with `breakpoints`): when a request adds `LOOKBACK` (20) or
  more blocks after the previous request's tail, a breakpoint on that tail too, since the
  provider looks back only that many blocks from a breakpoint for an earlier write
  (prefixlock.cache.anthropic).
- `keepalive`: sessions that go idle while warm are pinged before their cache expires (the
  server runs it; nothing changes in the client's requests).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from ..cache.anthropic import LOOKBACK
from .jsonspan import JsonSpanError, Path, spans
from .layout import Layout
from .sessions import History, Match, common_prefix


class Spans(Protocol):
    """Byte ranges by path: a `layout.Layout`, or the dict `jsonspan.spans` returns."""

    def __contains__(self, path: object, /) -> bool: ...
    def __getitem__(self, path: Path, /) -> tuple[int, int]: ...


FIXES = ("cache-key", "breakpoints", "second-breakpoint", "keepalive")
DEFAULT_FIXES = ("cache-key", "breakpoints", "second-breakpoint")
_MARK = b'"cache_control":{"type":"ephemeral"}'
_UNMARKABLE = ("thinking", "redacted_thinking")


class FixError(ValueError):
    """An unknown repair name (the CLI reports it as a user error)."""


def parse_fixes(value: str | None) -> frozenset[str]:
    """`--fix` (no value: the default repairs; `all`: every one; else a comma list)."""
    if value is None or value == "":
        return frozenset(DEFAULT_FIXES)
    if value == "all":
        return frozenset(FIXES)
    names = [n.strip() for n in value.split(",") if n.strip()]
    unknown = [n for n in names if n not in FIXES]
    if unknown:
        raise FixError(f"unknown repair {unknown[0]!r} (known: {', '.join(FIXES)}, all)")
    if "second-breakpoint" in names and "breakpoints" not in names:
        names.append("breakpoints")
    return frozenset(names)


@dataclass(frozen=True)
class Repaired:
    """A request after the repairs: its bytes, what was inserted, and what was left alone."""

    raw: bytes
    applied: tuple[str, ...] = ()  # e.g. "cache-key", "breakpoint:tools", "breakpoint:tail"
    skipped: tuple[str, ...] = ()  # why a repair was not made ("system changes per request")
    cache_key: str | None = None  # the key inserted, if any

    @property
    def changed(self) -> bool:
        return bool(self.applied)


@dataclass
class _Edits:
    inserts: list[tuple[int, bytes]] = field(default_factory=list)
    wraps: list[tuple[int, int, bytes]] = field(default_factory=list)  # wrap [start,end) with mark
    applied: list[str] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)

    def apply(self, raw: bytes) -> bytes:
        edits: list[tuple[int, int, bytes]] = [(at, at, text) for at, text in self.inserts]
        for start, end, mark in self.wraps:
            edits.append(
                (start, end, b'[{"type":"text","text":' + raw[start:end] + b"," + mark + b"}]")
            )
        # One join: each edit spliced in by slicing would copy the whole body again.
        out: list[bytes] = []
        pos = 0
        for start, end, text in sorted(edits, key=lambda e: e[0]):
            out += (raw[pos:start], text)
            pos = end
        out.append(raw[pos:])
        return b"".join(out)


def session_cache_key(session_id: str) -> str:
    return f"prefixlock-{session_id}"


def prefix_family(match: Match, client: str) -> str:
    """The prefix family of an OpenAI request: its client and the hashes of its system prompt
    and tools (prefixlock.cache.keys): every session of one stable prefix shares its key. The
    hashes are the ones session detection took (`match`), not taken again."""
    return f"{client}:{match.system}:{match.tools}"


def repair(
    api: str,
    body: Mapping[str, Any],
    raw: bytes,
    match: Match,
    fixes: Iterable[str],
    cache_key: str | None = None,
    layout: Layout | None = None,
) -> Repaired:
    """Insert the cache markers `fixes` call for into `raw` (the bytes of `body`). `cache_key`:
    the OpenAI key to insert (the server gives its prefix family's); default, the session's.
    `layout`: where the body's parts sit, when the caller has it already."""
    fixes = frozenset(fixes)
    if api in ("openai-chat", "openai-responses"):
        if "cache-key" not in fixes:
            return Repaired(raw)
        if "prompt_cache_key" in body:
            return Repaired(raw, skipped=("cache-key: the client sets its own",))
        key = cache_key or session_cache_key(match.session_id)
        edits = _Edits()
        end = raw.rstrip().rfind(b"}")
        sep = b"" if not body else b","
        edits.inserts.append((end, sep + b'"prompt_cache_key":' + json.dumps(key).encode()))
        return Repaired(edits.apply(raw), ("cache-key",), cache_key=key)
    if api == "anthropic" and "breakpoints" in fixes:
        second = "second-breakpoint" in fixes
        try:
            return _anthropic(body, raw, layout or Layout(raw), match, second)
        except JsonSpanError:
            pass  # bytes the layout cannot explain (a duplicate key): the full scan reads them
        try:
            return _anthropic(body, raw, spans(raw, depth=4), match, second)
        except JsonSpanError:
            return Repaired(raw, skipped=("breakpoints: body not readable",))
    return Repaired(raw)


def _marked(raw: bytes, body: Mapping[str, Any], at: Spans) -> bool:
    """Whether the client placed a `cache_control` anywhere: only a body whose bytes hold the
    quoted name (as a key, or a string that is just that name) is walked to tell which. A
    layout has already searched the bytes for every marker's name (most bodies hold none)."""
    if isinstance(at, Layout) and not at.marked:
        return False
    return b'"cache_control"' in raw and _has_marker(body)


def _has_marker(value: Any) -> bool:
    if isinstance(value, Mapping):
        return "cache_control" in value or any(_has_marker(v) for v in value.values())
    if isinstance(value, list):
        return any(_has_marker(v) for v in value)
    return False


def _markable(block: Any) -> bool:
    if not isinstance(block, Mapping) or block.get("type") in _UNMARKABLE:
        return False
    return not (block.get("type") == "text" and not block.get("text"))


def _mark_object(edits: _Edits, raw: bytes, where: tuple[int, int], empty: bool) -> None:
    close = where[1] - 1  # the object's closing brace
    edits.inserts.append((close, _MARK if empty else b"," + _MARK))


def _mark_content(edits: _Edits, raw: bytes, at: Spans, path: Path, content: Any) -> bool:
    """A breakpoint at the end of `content` (a string or a list of blocks) found at `path`."""
    if isinstance(content, str):
        if not content or path not in at:
            return False
        start, end = at[path]
        edits.wraps.append((start, end, _MARK))
        return True
    if not isinstance(content, list):
        return False
    # The last block that can carry a marker (not a thinking block, not empty text).
    for i in range(len(content) - 1, -1, -1):
        if _markable(content[i]) and (*path, i) in at:
            _mark_object(edits, raw, at[(*path, i)], not content[i])
            return True
    return False


def _message_blocks(message: Any) -> int:
    content = message.get("content") if isinstance(message, Mapping) else None
    if isinstance(content, list):
        return len(content)
    return 1


def _anthropic(
    body: Mapping[str, Any], raw: bytes, at: Spans, match: Match, second: bool
) -> Repaired:
    if _marked(raw, body, at):
        return Repaired(raw, skipped=("breakpoints: the client places its own",))
    edits = _Edits()
    hist: History | None = match.history
    tools = body.get("tools")
    system = body.get("system")
    # The cache reads a prefix in the order tools -> system -> messages: a part that changed
    # since the session's previous request will change again, and a breakpoint at or after it
    # would only write (at 1.25x) what no later request reads.
    tools_vary = hist is not None and hist.tools != match.tools
    system_vary = hist is not None and hist.system != match.system
    if tools_vary:
        edits.skipped.append("breakpoints: the tools change between requests (nothing after reads)")
        return Repaired(raw, (), tuple(edits.skipped))
    last_tool = ("tools", len(tools) - 1) if isinstance(tools, list) and tools else None
    if (
        last_tool is not None
        and last_tool in at
        and isinstance(tools, list)
        and isinstance(tools[-1], Mapping)
    ):
        _mark_object(edits, raw, at[last_tool], not tools[-1])
        edits.applied.append("breakpoint:tools")
    if system_vary:
        edits.skipped.append(
            "breakpoints: the system prompt changes between requests (nothing after it reads)"
        )
        return Repaired(edits.apply(raw), tuple(edits.applied), tuple(edits.skipped))
    if system and _mark_content(edits, raw, at, ("system",), system):
        edits.applied.append("breakpoint:system")
    messages = body.get("messages")
    if isinstance(messages, list) and messages:
        _tail(edits, raw, at, messages, match, second)
    return Repaired(edits.apply(raw), tuple(edits.applied), tuple(edits.skipped))


def _tail(
    edits: _Edits,
    raw: bytes,
    at: Spans,
    messages: Sequence[Any],
    match: Match,
    second: bool,
) -> None:
    hist = match.history
    tail = len(messages) - 1
    kept = 0  # how many of the previous request's items this one repeats unchanged
    if hist is not None:
        kept = common_prefix(hist.items, match.items)
        if 0 < kept == len(hist.items) - 1 and tail >= 1:
            # The client rewrote the previous request's last message (a reminder it sends once):
            # its tail is volatile, so the breakpoint goes on the message before it.
            tail -= 1
            edits.skipped.append("breakpoint:tail: the client rewrites its last message")
    while tail >= 0 and not _mark_at(edits, raw, at, messages, tail):
        tail -= 1
    if tail < 0:
        return
    edits.applied.append("breakpoint:tail")
    if not second or hist is None or kept != len(hist.items) or kept == 0:
        return
    previous_tail = kept - 1
    added = sum(_message_blocks(m) for m in messages[kept : tail + 1])
    if (
        previous_tail < tail
        and added >= LOOKBACK
        and _mark_at(edits, raw, at, messages, previous_tail)
    ):
        edits.applied.append("second-breakpoint")


def _mark_at(
    edits: _Edits,
    raw: bytes,
    at: Spans,
    messages: Sequence[Any],
    index: int,
) -> bool:
    message = messages[index]
    if not isinstance(message, Mapping):
        return False
    return _mark_content(edits, raw, at, ("messages", index, "content"), message.get("content"))
