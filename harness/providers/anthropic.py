"""Anthropic Messages: pure request building with explicit cache breakpoints, and the stream
parser that turns SSE events into text deltas and one `Reply`.

Breakpoints (at most `MAX_BREAKPOINTS`, prefixlock.cache.anthropic): the last tool, the last
system block, the conversation tail, and a second conversation breakpoint at the previous
request's tail when this turn added `LOOKBACK` or more blocks (a read looks back only that many
block positions from a breakpoint, so the tail alone would no longer find the previous write).
`Settings.history_ttl` adds a breakpoint on the last assistant message at that (longer) TTL.
`mark_block` adds one on a given block (the turn back to a model after a turn on another one
marks where that model's own last entry ends, when it lies past the lookback).
Volatile text (a date reminder, a one-off note) is appended after the tail breakpoint on this
request only: it never carries one, since it changes next turn. 1h entries come before 5m ones
(the prefix TTL may be longer than the conversation's, not shorter). A session that compacts
sends its system prompt's last line as a block of its own, its prefix mark before that line at
5m and on it at 1h (`anchored_system`, docs/savings.md#the-prefix-anchor). Anthropic's rules:
docs/providers.md#anthropic-breakpoints.
"""

# pure: imports no I/O (tests/test_layout.py checks it)

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..billing.usage import from_anthropic
from ..cache.anthropic import LOOKBACK, MAX_BREAKPOINTS, late_longer_ttl
from ..cache.media import unit_tokens
from ..cache.packed_units import PackedUnits
from ..cache.units import Unit, anthropic_message_settings, message_unit_data
from ..canonical import canonical_bytes, canonical_copy, canonical_json, chain_hash
from ..events import TextDelta
from ..prefix import FrozenPrefix, base_system
from ..settings import Settings
from ..tokenizer import count_tokens
from ..transcript import Message
from ..wire import WireRequest
from ._incremental import Built, Draft, IncrementalBuilder, MessageParts, with_breakpoint
from .base import Reply, memo, parse_tool_input, remember
from .lazy_body import LazyBody, MessagesRecipe
from .wire_message import WireMessage

_MEMO_KEY = "anthropic.parts"
OPENAI_ONLY = "detail"  # a key of an image block only OpenAI reads (prefixlock.media.Image)
_ROLE_TOKENS = {role: count_tokens(role + "\x00") for role in ("user", "assistant")}


def cache_control(ttl: str) -> dict[str, str]:
    """The breakpoint marker; 5m is the API default, so only 1h is spelled out."""
    return {"type": "ephemeral", "ttl": "1h"} if ttl == "1h" else {"type": "ephemeral"}


def _unit_data(wire: tuple[Mapping[str, Any], ...]) -> list[bytes]:
    """The bytes each block of a message's wire dict hashes (its role, then the block's
    canonical bytes): made when the chain is computed, not kept (`MessageParts`)."""
    (message,) = wire
    role = message["role"]
    return [message_unit_data(role, canonical_bytes(b)) for b in message["content"]]


def _message_parts(message: Message) -> MessageParts:
    """The message on the wire. Made when the chain memo takes the message (once, unless the
    prefix changes), not kept on it: a body makes the wire dict again when its list is read
    (`_wire_message`), and the parts come from the blocks and their counts, which the message
    keeps (a MessageParts and its memo entry a
    message cost ~120 bytes for the conversation's life). Only a message whose blocks must
    change for this API (an image's `detail`) keeps its parts: its counts are its own."""
    cached = memo(message, _MEMO_KEY)
    if isinstance(cached, MessageParts):
        return cached
    role = message.role
    # The message itself goes on the wire (a `WireMessage` over it, whose bytes are the
    # message's): a dict over its blocks held the conversation a second time in the kept body.
    # A breakpoint is put on a copy (`_mark`).
    content: Sequence[Mapping[str, Any]] = message.blocks
    if not any(OPENAI_ONLY in b for b in content):
        wire = WireMessage(message)
        return MessageParts((wire,), message.block_tokens, _unit_data, _ROLE_TOKENS[role])
    # An image's OpenAI `detail` is not an Anthropic field: neither sent nor hashed.
    content = [{k: v for k, v in b.items() if k != OPENAI_ONLY} for b in content]
    counts = tuple(unit_tokens(canonical_bytes(b), b, "anthropic", remember=False) for b in content)
    parts = MessageParts(
        ({"role": role, "content": content},), counts, _unit_data, _ROLE_TOKENS[role]
    )
    result = remember(message, _MEMO_KEY, parts)
    assert isinstance(result, MessageParts)
    return result


def _wire_message(message: Message) -> Mapping[str, Any]:
    """The message's wire dict in a body (what `_message_parts` gives it, made again: the body
    keeps a recipe of its list, not the dicts). Every message of a body went through
    `_message_parts` when the chain memo took it, which kept the parts of those it changes."""
    cached = memo(message, _MEMO_KEY)
    if isinstance(cached, MessageParts):
        return cached.wire[0]
    return WireMessage(message)


def _marked(item: Mapping[str, Any], block: int, ttl: str | None) -> Mapping[str, Any]:
    """`item` (a body's message) with a breakpoint on its `block`-th block, a copy; ttl None:
    with none on any block (`item` itself where it has none)."""
    if ttl is None:
        content = item["content"]
        if isinstance(content, (list, tuple)) and any("cache_control" in b for b in content):
            content = [{k: v for k, v in b.items() if k != "cache_control"} for b in content]
            return {**item, "content": content}
        return item
    content = list(item["content"])
    content[block] = {**content[block], "cache_control": cache_control(ttl)}
    return {**item, "content": content}


# The anchor of a session that compacts: the last line of its system prompt (at most this many
# tokens) as a block of its own, so that the entry ending there can be written at 1 hour for a
# few tokens (docs/savings.md#the-prefix-anchor).
ANCHOR_MAX_TOKENS = 200


def anchor_split(text: str) -> tuple[str, str] | None:
    """`text` cut before its last line: (the rest, ending with its newline; the last line), or
    None when it has no last line of at most `ANCHOR_MAX_TOKENS` tokens after other text. The
    two blocks hold the text unchanged, in order."""
    cut = text.rfind("\n")
    if cut < 0:
        return None
    head, tail = text[: cut + 1], text[cut + 1 :]
    if not head.strip() or not tail.strip() or count_tokens(tail) > ANCHOR_MAX_TOKENS:
        return None
    return head, tail


def first_unmarked(part: _PrefixPart, messages: Sequence[Message], units: Iterable[Unit]) -> bool:
    """Leave the messages of this request unmarked? Only the first request of a conversation on
    an anchored prefix (at 5m, no reply yet) whose messages are short (at most
    `ANCHOR_MAX_TOKENS`): it writes the prefix up to the anchor line at 5 minutes and sends the
    line and the opening as plain input, so the next request, held at 1 hour, reads that entry
    and writes the line, the opening and the reply at 1 hour: the entry of the whole prefix
    then lives an hour past every request that reads it, for the opening's and the line's few
    tokens at 2x, where a separate read of the prefix would cost 0.1x of all of it."""
    if not part.anchored or any(m.role == "assistant" for m in messages):
        return False
    return sum(u.tokens for u in units) <= ANCHOR_MAX_TOKENS


def anchored_system(prefix: FrozenPrefix, ttl: str) -> tuple[list[str], int | None]:
    """The system blocks of a session that compacts, and the one its prefix mark goes on
    (None: the last, as for any session).

    The last block of the system prompt proper (a compaction's summary block, which follows
    it, left out) is split before its last line (`anchor_split`). Before a compaction, a 5m
    mark goes on the block before that line and a 1h mark on the line: so the entry that ends
    at the whole prompt is never written at 5 minutes, and one output-free request that reads
    the 5-minute entry before it writes it at 1 hour for the line's few tokens at 2x
    (`prefixlock.guard.prefix_keep`). A compacted prefix (the summary after the line) marks
    its last block, as any session does; its lookback reads the line's 1-hour entry."""
    texts = list(prefix.system)
    base = len(base_system(prefix))
    split = anchor_split(texts[base - 1]) if base else None
    if split is None:
        return texts, None
    texts[base - 1 : base] = split
    if base < len(prefix.system):  # compacted: the summary's block is the last
        return texts, None
    return texts, base if ttl == "1h" else base - 1


@dataclass(frozen=True)
class _PrefixPart:
    tools: list[dict[str, Any]]  # last one carries cache_control
    system: list[dict[str, Any]]  # last one carries cache_control
    units: tuple[Unit, ...]  # with their breakpoints
    seed: str  # chain after the prefix and the message-level settings
    total: int
    anchored: bool = False  # the 5m mark sits before the anchor line (`anchored_system`)


class AnthropicBuilder(IncrementalBuilder[_PrefixPart]):
    """Builds Anthropic Messages requests, incrementally (see `_incremental`)."""

    api = "anthropic"
    path = "/v1/messages"

    def __init__(self, model: str) -> None:
        super().__init__(model, _message_parts, keep_wire=False)

    def _head(self, settings: Settings) -> dict[str, Any]:
        head: dict[str, Any] = {"model": self.model, "max_tokens": settings.max_tokens}
        if settings.temperature is not None:
            head["temperature"] = settings.temperature
        if settings.effort is not None:
            head["output_config"] = {"effort": settings.effort}
        return head

    def _prefix_part(
        self, prefix: FrozenPrefix, settings: Settings, head: dict[str, Any]
    ) -> _PrefixPart:
        ttl = settings.effective_prefix_ttl
        settings_bytes = anthropic_message_settings(head)
        anchor = settings.compact_at is not None
        key = (prefix.fingerprint, ttl, settings_bytes, anchor)
        return self._remembered(
            key, lambda: self._make_prefix_part(prefix, ttl, settings_bytes, anchor)
        )

    @staticmethod
    def _make_prefix_part(
        prefix: FrozenPrefix, ttl: str, settings_bytes: bytes, anchor: bool = False
    ) -> _PrefixPart:
        # Canonical key order: the SDK sends the dicts' insertion order, and a tool's schema is
        # rendered into the prompt as sent; pydantic's field order is not the order the store
        # keeps and the guard compares (canonical bytes).
        tools: list[dict[str, Any]] = [canonical_copy(t.to_dict()) for t in prefix.tools]
        texts, marked = anchored_system(prefix, ttl) if anchor else (list(prefix.system), None)
        system: list[dict[str, Any]] = [{"type": "text", "text": s} for s in texts]
        if marked is None:
            marked = len(system) - 1
        units: list[Unit] = []
        chain, total = "", 0
        for section, items, mark in (("tools", tools, len(tools) - 1), ("system", system, marked)):
            for i, item in enumerate(items):
                data = canonical_bytes(item)
                chain = chain_hash(chain, data)
                n = count_tokens(data.decode("utf-8"))
                total += n
                ttl_here = ttl if i == mark else None
                units.append(Unit(section, len(units), chain, n, total, ttl_here))
        cc = cache_control(ttl)
        if tools:
            tools[-1] = canonical_copy({**tools[-1], "cache_control": cc})
        if system:
            system[marked] = {**system[marked], "cache_control": cc}
        anchored = anchor and ttl != "1h" and marked < len(system) - 1
        seed = chain_hash(chain, settings_bytes)
        return _PrefixPart(tools, system, tuple(units), seed, total, anchored)

    def _body(self, draft: Draft[_PrefixPart]) -> Built:
        part, volatile = draft.part, draft.volatile
        memo_ = self._chain
        messages = memo_.messages
        marked: dict[int, Unit] = {}  # position: the unit with its breakpoint
        marks: list[tuple[int, int, str]] = []  # (message, block, ttl): the recipe's marks
        ttl = draft.settings.ttl
        used = sum(u.breakpoint is not None for u in part.units)  # the prefix's marks
        n = len(messages)
        tail_msg = n - 1
        while tail_msg >= 0 and not messages[tail_msg].has_blocks:
            tail_msg -= 1
        # An anchored prefix's first request (no reply yet, a short opening): its messages are
        # not marked, so that the next request reads the entry before the anchor line and
        # writes the line, the opening and the reply at 1h (`first_unmarked`).
        opening = first_unmarked(part, messages, memo_.units)
        if tail_msg >= 0 and not opening:
            self._mark(marked, marks, part, tail_msg, ttl)
            held = draft.settings.history_ttl
            reply = self._last_reply(messages, tail_msg) if held is not None else None
            used += 1
            prev = self._previous_tail(messages, tail_msg)
            if held is not None and reply is not None and used < MAX_BREAKPOINTS:
                # The longer-lived entry ends on the last reply, right after the previous
                # request's tail: a read looks back from it to that entry, so it takes the
                # place of the lookback mark below (which, at the shorter TTL, may not come
                # before it).
                self._mark(marked, marks, part, reply, held)
            elif prev is not None and used < MAX_BREAKPOINTS:
                tail_pos = memo_.message_unit_range(tail_msg)[1] - 1
                prev_pos = memo_.message_unit_range(prev)[1] - 1
                if tail_pos - prev_pos >= LOOKBACK:
                    self._mark(marked, marks, part, prev, ttl)
        tail = self._volatile_units(part, volatile) if volatile else ()
        # The units packed: the prefix's, the memo's (marked ones in their place), the tail.
        units = memo_.units.units(part.units, marked, tail)
        # The messages as a recipe (the transcript's own objects, the marks, the volatile
        # text), made into their list when read: prefixlock.providers.lazy_body.
        recipe = MessagesRecipe(
            messages,  # the memo's list, its first n held: it only grows (a cut is a copy)
            _wire_message,
            _marked,
            tuple(marks),
            tuple(volatile),
            merge=bool(messages) and messages[-1].role == "user",
            count=n,
        )
        body = LazyBody(draft.head)
        # In the order the cache hashes them: tools, system, messages.
        if part.tools:
            body["tools"] = part.tools
        if part.system:
            body["system"] = part.system
        body["messages"] = recipe
        body["stream"] = True
        return body, units, None

    def _mark(
        self,
        marked: dict[int, Unit],
        marks: list[tuple[int, int, str]],
        part: _PrefixPart,
        index: int,
        ttl: str,
    ) -> None:
        """Put a breakpoint on the last block of message `index` (its unit a copy, its wire
        dict marked when the body's list is made: `_marked`; the memo stays clean)."""
        start, stop = self._chain.message_unit_range(index)
        if stop == start:
            return
        pos = len(part.units) + stop - 1
        unit = marked.get(pos) or self._chain.units[stop - 1]
        marked[pos] = with_breakpoint(unit, ttl)
        marks.append((index, -1, ttl))

    @staticmethod
    def _last_reply(messages: Sequence[Message], tail: int) -> int | None:
        """Index of the last assistant message before the tail (None: there is none)."""
        for i in range(tail - 1, -1, -1):
            if messages[i].role == "assistant" and messages[i].has_blocks:
                return i
        return None

    @staticmethod
    def _previous_tail(messages: Sequence[Message], tail: int) -> int | None:
        """Index of the message the previous request ended on: the user message just before
        the last assistant message (requests always end on a user turn)."""
        i = tail
        while i >= 0 and messages[i].role != "assistant":
            i -= 1
        if i >= 1 and messages[i - 1].role == "user" and messages[i - 1].has_blocks:
            return i - 1
        return None

    def _volatile_units(self, part: _PrefixPart, texts: Sequence[str]) -> tuple[Unit, ...]:
        """The volatile blocks' units (their wire dicts are the recipe's: `MessagesRecipe`)."""
        blocks = [{"type": "text", "text": t} for t in texts]
        held = self._chain.units
        last = held[len(held) - 1] if len(held) else (part.units[-1] if part.units else None)
        chain = last.chain if last is not None else ""
        total = last.end if last is not None else 0
        units: list[Unit] = []
        start = len(part.units) + len(held)
        # Volatile blocks follow every message unit, so they extend the chain at its end.
        for block in blocks:
            data = message_unit_data("user", canonical_bytes(block))
            chain = chain_hash(chain, data)
            n = _ROLE_TOKENS["user"] + count_tokens(canonical_json(block))
            total += n
            units.append(Unit("messages", start + len(units), chain, n, total))
        return tuple(units)


def _block_count(msg: Mapping[str, Any]) -> int:
    """The blocks of a body message's content (a plain text counts as one). A message sent as
    its own bytes is counted from its kept token counts (one a block), not decoded: reading
    every message's blocks to find one cost ~15x the rest of `mark_block` over a long chat."""
    if type(msg) is WireMessage:
        return len(msg.message.block_tokens)
    content = msg["content"]
    return 1 if isinstance(content, str) else len(content)


def without_message_breakpoints(request: WireRequest) -> WireRequest:
    """`request` with no cache_control in its messages (the tools' and system's breakpoints
    kept): the history is sent as plain input and nothing of it is written. For a one-off
    request over a cold history (a compaction's summary after the cache expired), where a write
    at 1.25x would never be read. Pure."""
    body = request.body
    recipe = body.recipe("messages") if type(body) is LazyBody else None
    held = request.units
    units: tuple[Unit, ...]
    if isinstance(held, PackedUnits):  # its message marks are the ones it holds apart
        units = held.marking(dict.fromkeys(held.message_marks()))
    else:
        units = tuple(
            u.with_breakpoint(None) if u.section == "messages" and u.breakpoint is not None else u
            for u in held
        )
    if type(body) is LazyBody and recipe is not None:
        # The body's list as a recipe without its marks: no message read or made.
        plain = body.replacing("messages", recipe.without_marks())
        return dataclasses.replace(request, body=plain, units=units)
    messages = []
    for msg in request.body["messages"]:
        # A message sent as its own bytes is searched, not decoded: over a long chat, reading
        # every message's blocks cost ~15x the rest of this.
        if type(msg) is WireMessage and not msg.may_hold(b'"cache_control"'):
            messages.append(msg)
            continue
        content = msg["content"]
        if isinstance(content, (list, tuple)) and any("cache_control" in b for b in content):
            content = [{k: v for k, v in b.items() if k != "cache_control"} for b in content]
            msg = {**msg, "content": content}
        messages.append(msg)
    return WireRequest(
        api=request.api,
        model=request.model,
        path=request.path,
        body={**request.body, "messages": messages},
        units=units,
        cache_key=request.cache_key,
        meta=request.meta,
    )


def mark_block(request: WireRequest, position: int, ttl: str = "5m") -> WireRequest | None:
    """`request` with one more breakpoint, at `ttl`, on the message block of unit `position`.

    For a read that must reach an entry more than `LOOKBACK` blocks behind the request's other
    marks: the turn back to a model after a turn on another one finds its own last entry that
    far back when the other model's turn added 20 blocks or more. None where the unit is not a
    message block or is marked already, where the request has no breakpoint to spare, or where
    the mark would put a shorter TTL before a longer one. Pure."""
    held = request.units
    if not 0 <= position < len(held):
        return None
    unit = held[position]
    if unit.section != "messages" or unit.breakpoint is not None:
        return None
    if sum(u.breakpoint is not None for u in held) >= MAX_BREAKPOINTS:
        return None
    new = with_breakpoint(unit, ttl)
    # Packed units stay packed (prefixlock.cache.packed_units): the new mark held apart.
    units: tuple[Unit, ...] = (
        held.marking({position: new})
        if isinstance(held, PackedUnits)
        else (*held[:position], new, *held[position + 1 :])
    )
    if late_longer_ttl(u.breakpoint for u in units if u.breakpoint is not None) is not None:
        return None
    skip = position - sum(1 for u in units if u.section != "messages")
    body = request.body
    recipe = body.recipe("messages") if type(body) is LazyBody else None
    marked = recipe.with_mark(skip, ttl) if recipe is not None else None
    if type(body) is LazyBody and marked is not None:
        # The body's list as a recipe with one more mark: no other message read or made.
        return dataclasses.replace(request, body=body.replacing("messages", marked), units=units)
    messages = []
    for msg in request.body["messages"]:
        blocks = _block_count(msg)
        if 0 <= skip < blocks:
            content = msg["content"]
            if isinstance(content, str):
                return None  # a plain-text message has no block to mark
            content = list(content)
            content[skip] = {**content[skip], "cache_control": cache_control(ttl)}
            msg = {**msg, "content": content}
        skip -= blocks
        messages.append(msg)
    return WireRequest(
        api=request.api,
        model=request.model,
        path=request.path,
        body={**request.body, "messages": messages},
        units=units,
        cache_key=request.cache_key,
        meta=request.meta,
    )


class AnthropicStream:
    """Accumulates Anthropic SSE events (as dicts) into text deltas and a final `Reply`."""

    def __init__(self) -> None:
        self.blocks: list[dict[str, Any]] = []
        self._json: dict[int, list[str]] = {}
        self.usage: dict[str, Any] = {}
        self.stop_reason: str = ""
        self.message_id: str | None = None
        self.diagnostics: dict[str, Any] = {}
        self.done: bool = False

    def feed(self, event: Mapping[str, Any]) -> TextDelta | None:
        kind = event.get("type")
        if kind == "message_start":
            message = event.get("message") or {}
            self.message_id = message.get("id")
            self.usage.update(message.get("usage") or {})
            if isinstance(message.get("diagnostics"), Mapping):  # cache-diagnostics beta
                self.diagnostics = {"diagnostics": dict(message["diagnostics"])}
        elif kind == "content_block_start":
            block = dict(event.get("content_block") or {})
            index = int(event.get("index", len(self.blocks)))
            while len(self.blocks) <= index:
                self.blocks.append({})
            if block.get("type") == "tool_use":
                block["input"] = {}
                self._json[index] = []
            self.blocks[index] = block
        elif kind == "content_block_delta":
            index = int(event.get("index", 0))
            delta = event.get("delta") or {}
            block = self.blocks[index]
            if delta.get("type") == "text_delta":
                text = str(delta.get("text", ""))
                block["text"] = str(block.get("text", "")) + text
                return TextDelta(text)
            if delta.get("type") == "input_json_delta":
                self._json.setdefault(index, []).append(str(delta.get("partial_json", "")))
        elif kind == "content_block_stop":
            index = int(event.get("index", 0))
            if index in self._json:
                raw = "".join(self._json.pop(index))
                self.blocks[index]["input"] = parse_tool_input(raw)
        elif kind == "message_delta":
            delta = event.get("delta") or {}
            if delta.get("stop_reason"):
                self.stop_reason = str(delta["stop_reason"])
            # message_delta carries cumulative counters; they win over message_start's.
            late = event.get("usage") or {}
            self.usage.update({k: v for k, v in late.items() if v is not None})
        elif kind == "message_stop":
            self.done = True
        return None

    def reply(self) -> Reply:
        # Only the fields a request may carry back: new response-only fields must not leak
        # into the transcript (they would be sent, and maybe refused, next turn).
        blocks: list[dict[str, Any]] = []
        for b in self.blocks:
            if b.get("type") == "text" and b.get("text"):
                blocks.append({"type": "text", "text": b["text"]})
            elif b.get("type") == "tool_use":
                blocks.append(
                    {
                        "type": "tool_use",
                        "id": b.get("id"),
                        "name": b.get("name"),
                        "input": b.get("input", {}),
                    }
                )
        return Reply(
            tuple(blocks),
            self.stop_reason or "end_turn",
            from_anthropic(self.usage),
            dict(self.usage),
            self.message_id,
            self.diagnostics,
        )
