"""OpenAI Chat Completions, OpenAI Responses and OpenAI-compatible APIs (DeepSeek, vLLM,
Ollama): pure request building and stream parsing.

OpenAI caches automatically by prefix; what the client controls is that the prefix stays
byte-identical (settings, tools, system, then the conversation, in that order) and that requests
of one session land on the same machine: a stable per-session `prompt_cache_key`, derived from
the session id, sent on every request. `prompt_cache_retention` is sent when set. Transcript
messages are in Anthropic's block shape; each is converted once and memoized.

gpt-5.6 and later cache only at breakpoints and match them exactly (prefixlock.cache.units), so a
large stable prefix followed by a changing suffix is re-written every turn unless a breakpoint
sits at the stable boundary. For these models the builders send `prompt_cache_options` (mode and
TTL; never together with `prompt_cache_retention`, which OpenAI refuses), the system prompt as a
system (Chat) or developer (Responses: `instructions` cannot carry a mark) message with a
`prompt_cache_breakpoint` after tools and instructions, and one on the last stable input message
when volatile text follows it or the mode is explicit. Messages that may carry a mark are sent
as content-part lists, so marking one later changes no byte the cache hashes. Older models get
the same bytes as before.
"""

# pure: imports no I/O (tests/test_layout.py checks it)

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..billing.usage import from_openai_chat, from_openai_responses
from ..cache.media import unit_tokens
from ..cache.units import (
    BREAKPOINT_FIELD,
    IMPLICIT,
    OPENAI_DEFAULT_TTL,
    Section,
    Unit,
    breakpoint_eligible,
    openai_explicit_cache,
    openai_settings,
)
from ..canonical import canonical_bytes, canonical_copy, canonical_json, chain_hash
from ..errors import UserError
from ..events import TextDelta
from ..prefix import FrozenPrefix
from ..settings import Settings
from ..tokenizer import count_tokens
from ..transcript import Message
from ._incremental import Built, Draft, IncrementalBuilder, MessageParts, with_breakpoint
from .base import Reply, memo, parse_tool_input, remember
from .diagnostics import OPENAI_FIELD as DIAGNOSTICS_FIELD


def _unit(section: Section, item: Mapping[str, Any]) -> tuple[Section, bytes, int]:
    data = canonical_bytes(item)
    return section, data, unit_tokens(data, item, "openai")


def _items_data(wire: tuple[Mapping[str, Any], ...]) -> list[bytes]:
    """The bytes each input item hashes: made when the chain is computed, not kept
    (`MessageParts`)."""
    return [canonical_bytes(item) for item in wire]


def _texts(message: Message) -> list[str]:
    return [str(b.get("text", "")) for b in message.blocks if b.get("type") == "text"]


_MEDIA = ("image", "document")


def _has_media(message: Message) -> bool:
    return any(b.get("type") in _MEDIA for b in message.blocks)


def _source_url(block: Mapping[str, Any]) -> str:
    """An image or document block's source as one URL: a data URL for inline bytes."""
    source = block["source"]
    if source.get("type") == "url":
        return str(source["url"])
    return f"data:{source['media_type']};base64,{source['data']}"


def _filename(block: Mapping[str, Any]) -> str:
    return str(block.get("title") or "document.pdf")


def chat_part(block: Mapping[str, Any]) -> dict[str, Any] | None:
    """A user text, image or document block as a Chat Completions content part."""
    kind = block.get("type")
    if kind == "text":
        return {"type": "text", "text": str(block.get("text", ""))}
    if kind == "image":
        image: dict[str, Any] = {"url": _source_url(block)}
        if block.get("detail"):
            image["detail"] = str(block["detail"])
        return {"type": "image_url", "image_url": image}
    if kind == "document":
        source = block["source"]
        if source.get("type") == "text":
            return {"type": "text", "text": str(source.get("data", ""))}
        if source.get("type") != "base64":
            raise UserError(
                "OpenAI Chat Completions takes a document as data, not a URL: use "
                "Document.from_path/from_bytes, or an openai-responses: model",
                where="document",
            )
        return {
            "type": "file",
            "file": {"filename": _filename(block), "file_data": _source_url(block)},
        }
    return None


def responses_part(block: Mapping[str, Any]) -> dict[str, Any] | None:
    """A user text, image or document block as a Responses API input content part."""
    kind = block.get("type")
    if kind == "text":
        return {"type": "input_text", "text": str(block.get("text", ""))}
    if kind == "image":
        detail = str(block.get("detail") or "auto")
        return {"type": "input_image", "image_url": _source_url(block), "detail": detail}
    if kind == "document":
        source = block["source"]
        if source.get("type") == "text":
            return {"type": "input_text", "text": str(source.get("data", ""))}
        if source.get("type") == "url":
            return {"type": "input_file", "file_url": str(source["url"])}
        return {"type": "input_file", "filename": _filename(block), "file_data": _source_url(block)}
    return None


def _user_parts(
    message: Message, convert: Callable[[Mapping[str, Any]], dict[str, Any] | None]
) -> list[dict[str, Any]]:
    parts = (convert(b) for b in message.blocks if b.get("type") != "tool_result")
    return [p for p in parts if p is not None]


def _result_text(block: Mapping[str, Any]) -> str:
    content = block.get("content", "")
    if isinstance(content, str):
        text = content
    else:  # a list of content blocks
        text = "".join(str(c.get("text", "")) for c in content if isinstance(c, Mapping))
    return text


def chat_messages(message: Message) -> list[dict[str, Any]]:
    """A transcript message as Chat Completions messages (tool results become `tool` ones)."""
    out: list[dict[str, Any]] = []
    if message.role == "user":
        for b in message.blocks:
            if b.get("type") == "tool_result":
                call_id = str(b["tool_use_id"])
                out.append({"role": "tool", "tool_call_id": call_id, "content": _result_text(b)})
        texts = _texts(message)
        if _has_media(message):  # parts in the blocks' order: text beside its picture
            out.append({"role": "user", "content": _user_parts(message, chat_part)})
        elif texts:
            content: Any = (
                texts[0] if len(texts) == 1 else [{"type": "text", "text": t} for t in texts]
            )
            out.append({"role": "user", "content": content})
        return out
    text = "".join(_texts(message))
    msg: dict[str, Any] = {"role": "assistant", "content": text or None}
    calls = [
        {
            "id": str(b["id"]),
            "type": "function",
            "function": {"name": str(b["name"]), "arguments": canonical_json(b.get("input", {}))},
        }
        for b in message.tool_uses()
    ]
    if calls:
        msg["tool_calls"] = calls
    out.append(msg)
    return out


def responses_items(message: Message) -> list[dict[str, Any]]:
    """A transcript message as Responses API input items."""
    out: list[dict[str, Any]] = []
    if message.role == "user":
        for b in message.blocks:
            if b.get("type") == "tool_result":
                out.append(
                    {
                        "type": "function_call_output",
                        "call_id": str(b["tool_use_id"]),
                        "output": _result_text(b),
                    }
                )
        texts = _texts(message)
        if _has_media(message):
            out.append({"role": "user", "content": _user_parts(message, responses_part)})
        elif texts:
            out.append(
                {"role": "user", "content": [{"type": "input_text", "text": t} for t in texts]}
            )
        return out
    text = "".join(_texts(message))
    if text:
        out.append({"role": "assistant", "content": text})
    for b in message.tool_uses():
        out.append(
            {
                "type": "function_call",
                "call_id": str(b["id"]),
                "name": str(b["name"]),
                "arguments": canonical_json(b.get("input", {})),
            }
        )
    return out


def _as_parts(item: dict[str, Any], key: str, part_type: str) -> dict[str, Any]:
    """`item` with a string under `key` turned into one content part (which can carry a mark)."""
    value = item.get(key)
    if isinstance(value, str):
        return {**item, key: [{"type": part_type, "text": value}]}
    return item


def chat_messages_markable(message: Message) -> list[dict[str, Any]]:
    """`chat_messages`, with user and tool contents as part lists (gpt-5.6 and later)."""
    return [
        _as_parts(m, "content", "text") if m["role"] in ("user", "tool") else m
        for m in chat_messages(message)
    ]


def responses_items_markable(message: Message) -> list[dict[str, Any]]:
    """`responses_items`, with tool outputs as part lists (gpt-5.6 and later)."""
    return [
        _as_parts(i, "output", "input_text") if i.get("type") == "function_call_output" else i
        for i in responses_items(message)
    ]


def with_mark(item: Mapping[str, Any]) -> dict[str, Any] | None:
    """A copy of `item` with an explicit breakpoint on its last content part (None: it has no
    part list to carry one). Bodies share item dicts between requests: never mark in place."""
    key = "output" if item.get("type") == "function_call_output" else "content"
    parts = item.get(key)
    if not isinstance(parts, list) or not parts or not isinstance(parts[-1], Mapping):
        return None
    marked = [*parts[:-1], {**parts[-1], BREAKPOINT_FIELD: {"mode": "explicit"}}]
    return {**item, key: marked}


def _memo_parts(
    message: Message, key: str, convert: Callable[[Message], list[dict[str, Any]]]
) -> MessageParts:
    """`message` converted to wire items (one cache unit each), once per message and API."""
    cached = memo(message, key)
    if isinstance(cached, MessageParts):
        return cached
    wire = convert(message)
    # Counted once per message (memoized on it): not kept in the tokenizer's memo too.
    tokens = tuple(unit_tokens(canonical_bytes(m), m, "openai", remember=False) for m in wire)
    parts = MessageParts(tuple(wire), tokens, _items_data)
    remember(message, key, parts)
    return parts


@dataclass(frozen=True)
class _PrefixPart:
    tools: list[dict[str, Any]]
    system: list[dict[str, Any]]  # chat: the system message(s); responses: empty
    instructions: str | None  # responses only
    units: tuple[Unit, ...]
    seed: str
    total: int


class _OpenAIBuilder(IncrementalBuilder[_PrefixPart]):
    api = "openai-chat"
    path = "/v1/chat/completions"

    def __init__(self, model: str) -> None:
        super().__init__(model, self._parts)
        # gpt-5.6 and later: breakpoints and prompt_cache_options (see the module docstring).
        self.explicit: bool = openai_explicit_cache(model)

    # Subclasses define these (and `_head`).
    def _parts(self, message: Message) -> MessageParts:
        raise NotImplementedError

    def _tool(self, spec: Mapping[str, Any]) -> dict[str, Any]:
        raise NotImplementedError

    def _split_system(self, prefix: FrozenPrefix) -> tuple[str | None, list[dict[str, Any]]]:
        raise NotImplementedError

    def _prefix_part(
        self, prefix: FrozenPrefix, settings: Settings, head: dict[str, Any]
    ) -> _PrefixPart:
        settings_bytes = openai_settings(head)
        key = (prefix.fingerprint, settings_bytes)
        return self._remembered(key, lambda: self._make_prefix_part(prefix, settings_bytes))

    def _make_prefix_part(self, prefix: FrozenPrefix, settings_bytes: bytes) -> _PrefixPart:
        # Canonical key order: the SDK sends the dicts' insertion order, and a tool's schema is
        # rendered into the prompt as sent (pydantic's field order is not canonical).
        tools = [canonical_copy(self._tool(t.to_dict())) for t in prefix.tools]
        instructions, system = self._split_system(prefix)
        items: list[tuple[Section, bytes, int]] = [
            ("settings", settings_bytes, count_tokens(settings_bytes.decode("utf-8")))
        ]
        if instructions is not None:
            items.append(_unit("system", {"instructions": instructions}))
        items.extend(_unit("tools", t) for t in tools)
        items.extend(_unit("system", m) for m in system)
        units: list[Unit] = []
        chain, total = "", 0
        for section, data, n in items:
            chain = chain_hash(chain, data)
            total += n
            units.append(Unit(section, len(units), chain, n, total))
        return _PrefixPart(tools, system, instructions, tuple(units), chain, total)

    def _body(self, draft: Draft[_PrefixPart]) -> Built:
        part, settings, volatile = draft.part, draft.settings, draft.volatile
        memo_ = self._chain
        units = list(part.units)
        units.extend(memo_.units)
        items: list[Mapping[str, Any]] = [*part.system, *memo_.wire]
        stable = len(items)  # items before the volatile ones
        if volatile:
            extra = self._volatile(volatile)
            section, data, n = _unit("messages", extra)
            chain = chain_hash(units[-1].chain, data)
            units.append(Unit(section, len(units), chain, n, units[-1].end + n))
            items.append(extra)
        if self.explicit:
            self._place_breakpoints(
                units, items, len(part.units) - len(part.system), stable, len(part.system), settings
            )
        body: dict[str, Any] = {"model": self.model}
        if part.instructions is not None:
            body["instructions"] = part.instructions
        if part.tools:
            body["tools"] = part.tools
        body[self._items_key] = items
        body.update(draft.head)
        key = draft.session.cache_key if settings.send_cache_key else None
        if key is not None:
            body["prompt_cache_key"] = key
        if self.explicit:
            # prompt_cache_options.ttl supersedes prompt_cache_retention; OpenAI refuses both.
            body["prompt_cache_options"] = {
                "mode": settings.openai_cache_mode,
                "ttl": OPENAI_DEFAULT_TTL,
            }
        elif settings.retention is not None and self.api != "openai-compat":
            body["prompt_cache_retention"] = settings.retention
        return body, units, key

    _items_key = "messages"

    @staticmethod
    def _place_breakpoints(
        units: list[Unit],
        items: list[Mapping[str, Any]],
        first: int,
        stable: int,
        n_system: int,
        settings: Settings,
    ) -> None:
        """Mark `items` (in place; unit `first + k` is item k) for a gpt-5.6-family request.

        Explicit marks go on the end of the system prompt and, where it pays, on the last stable
        input message: in explicit mode always (nothing else is written), in implicit mode only
        when volatile text follows it (OpenAI's own breakpoint then sits on the volatile text,
        which the next request never matches). Never on assistant output, never on volatile
        text; two marks, within the three explicit writes that implicit mode leaves. The
        implicit breakpoint's unit is labelled as OpenAI will place it, as cache.units does."""
        marks: list[int] = []
        if settings.openai_breakpoints:
            if n_system:
                marks.append(n_system - 1)
            tail = next(
                (k for k in range(stable - 1, n_system - 1, -1) if breakpoint_eligible(items[k])),
                None,
            )
            if tail is not None and (
                settings.openai_cache_mode == "explicit" or stable < len(items)
            ):
                marks.append(tail)
        for k in marks:
            marked = with_mark(items[k])
            if marked is not None:
                items[k] = marked
                units[first + k] = with_breakpoint(units[first + k], OPENAI_DEFAULT_TTL)
        if settings.openai_cache_mode != "explicit":
            for k in range(len(items) - 1, -1, -1):
                if breakpoint_eligible(items[k]):
                    units[first + k] = with_breakpoint(units[first + k], IMPLICIT)
                    break

    def _volatile(self, texts: Sequence[str]) -> dict[str, Any]:
        return {"role": "user", "content": "\n\n".join(texts)}


class ChatBuilder(_OpenAIBuilder):
    """Chat Completions (OpenAI, and OpenAI-compatible servers with `api="openai-compat"`)."""

    def __init__(self, model: str, api: str = "openai-chat") -> None:
        super().__init__(model)
        self.api = api

    def _parts(self, message: Message) -> MessageParts:
        if self.explicit:
            return _memo_parts(message, "openai-chat.parts.markable", chat_messages_markable)
        return _memo_parts(message, "openai-chat.parts", chat_messages)

    def _tool(self, spec: Mapping[str, Any]) -> dict[str, Any]:
        return {
            "type": "function",
            "function": {
                "name": spec["name"],
                "description": spec["description"],
                "parameters": spec["input_schema"],
            },
        }

    def _head(self, settings: Settings) -> dict[str, Any]:
        # Compatible servers (DeepSeek, vLLM, Ollama) know max_tokens; OpenAI wants the new name.
        limit = "max_tokens" if self.api == "openai-compat" else "max_completion_tokens"
        head: dict[str, Any] = {limit: settings.max_tokens}
        if settings.temperature is not None:
            head["temperature"] = settings.temperature
        if settings.effort is not None:
            head["reasoning_effort"] = settings.effort
        head["stream"] = True
        head["stream_options"] = {"include_usage": True}
        return head

    def _split_system(self, prefix: FrozenPrefix) -> tuple[str | None, list[dict[str, Any]]]:
        if not prefix.system:
            return None, []
        text = "\n\n".join(prefix.system)
        if self.explicit:  # a part list, to carry the stable-boundary breakpoint
            return None, [{"role": "system", "content": [{"type": "text", "text": text}]}]
        return None, [{"role": "system", "content": text}]


class ResponsesBuilder(_OpenAIBuilder):
    """The Responses API: system prompt as `instructions`, conversation as input items."""

    api = "openai-responses"
    path = "/v1/responses"
    _items_key = "input"

    def _parts(self, message: Message) -> MessageParts:
        if self.explicit:
            return _memo_parts(message, "openai-responses.parts.markable", responses_items_markable)
        return _memo_parts(message, "openai-responses.parts", responses_items)

    def _tool(self, spec: Mapping[str, Any]) -> dict[str, Any]:
        return {
            "type": "function",
            "name": spec["name"],
            "description": spec["description"],
            "parameters": spec["input_schema"],
        }

    def _head(self, settings: Settings) -> dict[str, Any]:
        head: dict[str, Any] = {"max_output_tokens": settings.max_tokens}
        if settings.temperature is not None:
            head["temperature"] = settings.temperature
        if settings.effort is not None:
            head["reasoning"] = {"effort": settings.effort}
        head["store"] = False  # the whole input is sent each turn; nothing to keep server-side
        head["stream"] = True
        return head

    def _split_system(self, prefix: FrozenPrefix) -> tuple[str | None, list[dict[str, Any]]]:
        text = "\n\n".join(prefix.system) if prefix.system else None
        if self.explicit and text is not None:
            # `instructions` is a plain string and cannot carry a breakpoint: a developer
            # message in the same place (after the tools) can.
            return None, [{"role": "developer", "content": [{"type": "input_text", "text": text}]}]
        return text, []

    def _volatile(self, texts: Sequence[str]) -> dict[str, Any]:
        return {"role": "user", "content": [{"type": "input_text", "text": t} for t in texts]}


_CHAT_STOP = {"stop": "end_turn", "tool_calls": "tool_use", "length": "max_tokens"}


class ChatStream:
    """Accumulates Chat Completions chunks (dicts) into text deltas and a `Reply`."""

    def __init__(self) -> None:
        self.text: list[str] = []
        self.calls: dict[int, dict[str, Any]] = {}
        self.finish: str | None = None
        self.usage: dict[str, Any] = {}
        self.message_id: str | None = None
        self.diagnostics: dict[str, Any] = {}

    @property
    def done(self) -> bool:
        return self.finish is not None

    def feed(self, chunk: Mapping[str, Any]) -> TextDelta | None:
        self.message_id = self.message_id or chunk.get("id")
        if isinstance(chunk.get(DIAGNOSTICS_FIELD), Mapping):  # asked for a comparison
            self.diagnostics = {DIAGNOSTICS_FIELD: dict(chunk[DIAGNOSTICS_FIELD])}
        if chunk.get("usage"):
            self.usage = dict(chunk["usage"])
        out: TextDelta | None = None
        for choice in chunk.get("choices") or []:
            delta = choice.get("delta") or {}
            if delta.get("content"):
                self.text.append(str(delta["content"]))
                out = TextDelta(str(delta["content"]))
            for call in delta.get("tool_calls") or []:
                slot = self.calls.setdefault(
                    int(call.get("index", len(self.calls))), {"id": "", "name": "", "args": []}
                )
                if call.get("id"):
                    slot["id"] = call["id"]
                fn = call.get("function") or {}
                if fn.get("name"):
                    slot["name"] = fn["name"]
                if fn.get("arguments"):
                    slot["args"].append(fn["arguments"])
            if choice.get("finish_reason"):
                self.finish = str(choice["finish_reason"])
        return out

    def reply(self) -> Reply:
        blocks: list[dict[str, Any]] = []
        text = "".join(self.text)
        if text:
            blocks.append({"type": "text", "text": text})
        for _, call in sorted(self.calls.items()):
            raw = "".join(call["args"])
            blocks.append(
                {
                    "type": "tool_use",
                    "id": call["id"],
                    "name": call["name"],
                    "input": parse_tool_input(raw),
                }
            )
        stop = _CHAT_STOP.get(self.finish or "stop", self.finish or "end_turn")
        if self.calls:
            stop = "tool_use"
        return Reply(
            tuple(blocks),
            stop,
            from_openai_chat(self.usage),
            self.usage,
            self.message_id,
            self.diagnostics,
        )


class ResponsesStream:
    """Accumulates Responses API stream events (dicts) into text deltas and a `Reply`."""

    def __init__(self) -> None:
        self.items: list[dict[str, Any]] = []
        self.usage: dict[str, Any] = {}
        self.status: str | None = None
        self.message_id: str | None = None
        self.diagnostics: dict[str, Any] = {}
        self.done: bool = False

    def feed(self, event: Mapping[str, Any]) -> TextDelta | None:
        kind = event.get("type")
        if kind == "response.output_text.delta":
            return TextDelta(str(event.get("delta", "")))
        if kind == "response.output_item.done":
            self.items.append(dict(event.get("item") or {}))
        elif kind in ("response.completed", "response.incomplete"):
            response = event.get("response") or {}
            self.message_id = response.get("id")
            self.usage = dict(response.get("usage") or {})
            self.status = str(response.get("status") or kind.split(".")[1])
            if isinstance(response.get(DIAGNOSTICS_FIELD), Mapping):
                self.diagnostics = {DIAGNOSTICS_FIELD: dict(response[DIAGNOSTICS_FIELD])}
            if response.get("output"):
                self.items = [dict(i) for i in response["output"]]
            self.done = True
        return None

    def reply(self) -> Reply:
        blocks: list[dict[str, Any]] = []
        text: list[str] = []
        for item in self.items:
            if item.get("type") == "message":
                for c in item.get("content") or []:
                    if c.get("type") == "output_text":
                        text.append(str(c.get("text", "")))
            elif item.get("type") == "function_call":
                if text:
                    blocks.append({"type": "text", "text": "".join(text)})
                    text = []
                blocks.append(
                    {
                        "type": "tool_use",
                        "id": str(item.get("call_id", "")),
                        "name": str(item.get("name", "")),
                        "input": parse_tool_input(str(item.get("arguments", ""))),
                    }
                )
        if text:
            blocks.append({"type": "text", "text": "".join(text)})
        if any(b["type"] == "tool_use" for b in blocks):
            stop = "tool_use"
        else:
            stop = "max_tokens" if self.status == "incomplete" else "end_turn"
        return Reply(
            tuple(blocks),
            stop,
            from_openai_responses(self.usage),
            self.usage,
            self.message_id,
            self.diagnostics,
        )
