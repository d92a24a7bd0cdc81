"""Anthropic Messages wire format: request checks, the response body and its SSE events. Pure."""

# pure: imports no I/O (tests/test_layout.py checks it)

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from ..cache import anthropic
from ..cache.units import Unit, as_blocks
from .apierror import ApiError
from .media_checks import check_anthropic_base64, check_anthropic_text_document
from .model import Conversation, Reply, Turns, offered_tools
from .openai_api import one_of
from .promptcache import AnthropicOutcome

MESSAGE_FIELDS = frozenset(
    {
        "model",
        "messages",
        "max_tokens",
        "system",
        "tools",
        "tool_choice",
        "metadata",
        "stop_sequences",
        "stream",
        "temperature",
        "top_p",
        "top_k",
        "thinking",
        "cache_control",
        "service_tier",
        "container",
        "mcp_servers",
        "output_config",
        "context_management",
        "inference_geo",
        "diagnostics",  # cache diagnostics: why the cache missed (prefixlock.emulator.diagnostics)
    }
)
COUNT_FIELDS = MESSAGE_FIELDS - {
    "max_tokens",
    "stream",
    "stop_sequences",
    "temperature",
    "top_p",
    "top_k",
    "metadata",
    "service_tier",
    "diagnostics",
}
BLOCK_TYPES = frozenset(
    {
        "text",
        "image",
        "document",
        "tool_use",
        "tool_result",
        "thinking",
        "redacted_thinking",
        "server_tool_use",
        "web_search_tool_result",
        "search_result",
        "container_upload",
    }
)
SYSTEM_BLOCK_TYPES = frozenset({"text"})


def _check_block(block: Any, where: str) -> None:
    if not isinstance(block, Mapping):
        raise ApiError(400, f"{where}: Input should be a valid dictionary")
    kind = block.get("type")
    if not one_of(kind, BLOCK_TYPES):
        raise ApiError(400, f"{where}.type: Input tag {kind!r} does not match any expected tag")
    if kind == "text" and not isinstance(block.get("text"), str):
        raise ApiError(400, f"{where}.text: Field required (a string)")
    if kind == "tool_use" and not (
        isinstance(block.get("id"), str)
        and isinstance(block.get("name"), str)
        and isinstance(block.get("input"), Mapping)
    ):
        raise ApiError(400, f"{where}: tool_use blocks need id, name and an object input")
    if kind == "tool_result" and not isinstance(block.get("tool_use_id"), str):
        raise ApiError(400, f"{where}.tool_use_id: Field required")
    cc = block.get("cache_control")
    if cc is not None:
        _check_cache_control(cc, f"{where}.cache_control")


def _check_cache_control(cc: Any, where: str) -> None:
    if not isinstance(cc, Mapping) or cc.get("type") != "ephemeral":
        raise ApiError(400, f"{where}: expected {{'type': 'ephemeral'}}")
    if cc.get("ttl", anthropic.DEFAULT_TTL) not in anthropic.TTL_LABELS:
        labels = " or ".join(repr(t) for t in anthropic.TTL_LABELS)
        raise ApiError(400, f"{where}.ttl: Input should be {labels}")
    extra = set(cc) - {"type", "ttl"}
    if extra:
        raise ApiError(400, f"{where}.{sorted(extra)[0]}: Extra inputs are not permitted")


def validate(body: Any, *, count_tokens: bool = False) -> None:
    """Raise a 400 ApiError for a body the real API would reject."""
    if not isinstance(body, Mapping):
        raise ApiError(400, "request body must be a JSON object")
    allowed = COUNT_FIELDS if count_tokens else MESSAGE_FIELDS
    for key in body:
        if key not in allowed:
            raise ApiError(400, f"{key}: Extra inputs are not permitted", param=key)
    if not isinstance(body.get("model"), str):
        raise ApiError(400, "model: Field required", param="model")
    if not count_tokens:
        mt = body.get("max_tokens")
        if not isinstance(mt, int) or isinstance(mt, bool) or mt < 0:
            raise ApiError(400, "max_tokens: Field required (a non-negative integer)")
    messages = body.get("messages")
    if not isinstance(messages, list) or not messages:
        raise ApiError(400, "messages: Field required (a non-empty list)", param="messages")
    for i, msg in enumerate(messages):
        where = f"messages.{i}"
        if not isinstance(msg, Mapping) or msg.get("role") not in ("user", "assistant"):
            raise ApiError(400, f"{where}.role: Input should be 'user' or 'assistant'")
        if set(msg) - {"role", "content"}:
            extra = sorted(set(msg) - {"role", "content"})[0]
            raise ApiError(400, f"{where}.{extra}: Extra inputs are not permitted")
        content = msg.get("content")
        if isinstance(content, str):
            continue
        if not isinstance(content, list):
            raise ApiError(400, f"{where}.content: Input should be a string or a list of blocks")
        for j, block in enumerate(content):
            _check_block(block, f"{where}.content.{j}")
    system = body.get("system")
    if system is not None and not isinstance(system, str):
        if not isinstance(system, list):
            raise ApiError(400, "system: Input should be a string or a list of text blocks")
        for j, block in enumerate(system):
            if not isinstance(block, Mapping) or not one_of(block.get("type"), SYSTEM_BLOCK_TYPES):
                raise ApiError(400, f"system.{j}.type: Input tag does not match 'text'")
            _check_block(block, f"system.{j}")
    tools = body.get("tools")
    if tools is not None:
        if not isinstance(tools, list):
            raise ApiError(400, "tools: Input should be a valid list")
        for j, t in enumerate(tools):
            if not isinstance(t, Mapping) or not isinstance(t.get("name"), str):
                raise ApiError(400, f"tools.{j}.name: Field required")
            # A custom tool (no type, or "custom") needs its schema; server tools have none.
            if t.get("type", "custom") == "custom" and not isinstance(
                t.get("input_schema"), Mapping
            ):
                raise ApiError(400, f"tools.{j}.input_schema: Field required (an object)")
            if "cache_control" in t:
                _check_cache_control(t["cache_control"], f"tools.{j}.cache_control")
        names = [t["name"] for t in tools]
        if len(set(names)) != len(names):
            raise ApiError(400, "tools: Tool names must be unique.", param="tools")
    if "cache_control" in body:
        _check_cache_control(body["cache_control"], "cache_control")
    _check_field_types(body)
    _check_contents(messages)
    _check_tool_pairs(messages)


IMAGE_MEDIA_TYPES = ("image/jpeg", "image/png", "image/gif", "image/webp")


def _check_source(block: Mapping[str, Any], where: str) -> None:
    """An image or document block's `source`, as the Messages API reads it."""
    kind = block["type"]
    source = block.get("source")
    if not isinstance(source, Mapping):
        raise ApiError(400, f"{where}.{kind}.source: Field required")
    stype = source.get("type")
    if stype == "base64":
        media = source.get("media_type")
        if kind == "image" and media not in IMAGE_MEDIA_TYPES:
            # https://github.com/anthropics/claude-code/issues/2438 quotes this wording.
            allowed = ", ".join(repr(m) for m in IMAGE_MEDIA_TYPES[:-1])
            raise ApiError(
                400,
                f"{where}.{kind}.source.base64.media_type: Input should be {allowed} or "
                f"{IMAGE_MEDIA_TYPES[-1]!r}",
            )
        if not isinstance(source.get("data"), str) or not source["data"]:
            raise ApiError(400, f"{where}.{kind}.source.base64.data: Field required")
        check_anthropic_base64(kind, source, where)
    elif kind == "document" and stype == "text":
        check_anthropic_text_document(source, where)
    elif stype == "url":
        if not isinstance(source.get("url"), str):
            raise ApiError(400, f"{where}.{kind}.source.url.url: Field required")
    elif not (kind == "document" and stype in ("text", "content", "file")) and not (
        kind == "image" and stype == "file"
    ):
        raise ApiError(
            400, f"{where}.{kind}.source: Input tag {stype!r} does not match any expected tag"
        )


def _check_contents(messages: list[Any]) -> None:
    """Empty text, and empty messages: refused everywhere but a final assistant message (a
    prefill), and a breakpoint on an empty text block is refused with its own message."""
    last = len(messages) - 1
    for i, msg in enumerate(messages):
        content = msg.get("content")
        final_assistant = i == last and msg.get("role") == "assistant"
        if (content == "" or content == []) and not final_assistant:
            # https://github.com/anthropics/claude-code/issues/6774 quotes this wording.
            raise ApiError(
                400,
                f"messages.{i}: all messages must have non-empty content except for the "
                "optional final assistant message",
            )
        if final_assistant:
            _check_prefill_end(content)
        if not isinstance(content, list):
            continue
        for j, block in enumerate(content):
            kind = block.get("type")
            if kind in ("image", "document"):
                _check_source(block, f"messages.{i}.content.{j}")
            text = block.get("text")
            if kind == "text" and isinstance(text, str) and text and not text.strip():
                if not final_assistant:
                    # https://github.com/anthropics/claude-code/issues/23440 quotes this body.
                    raise ApiError(
                        400, "messages: text content blocks must contain non-whitespace text"
                    )
                continue
            if kind != "text" or text:
                continue
            if "cache_control" in block:
                # https://github.com/anthropics/claude-code/issues/55302 quotes this wording.
                raise ApiError(
                    400,
                    f"messages.{i}.content.{j}.text: cache_control cannot be set for empty "
                    "text blocks",
                )
            if not final_assistant:
                # https://github.com/anthropics/claude-code/issues/59812 quotes this wording.
                raise ApiError(400, "messages: text content blocks must be non-empty")


def _check_prefill_end(content: Any) -> None:
    """A final assistant message (a prefill the answer continues) may not end in whitespace."""
    if isinstance(content, list):
        last = content[-1] if content else None
        is_text = isinstance(last, Mapping) and last.get("type") == "text"
        content = last.get("text") if is_text and last is not None else None
    if isinstance(content, str) and content and content[-1].isspace():
        # https://github.com/tailcallhq/forgecode/issues/1872 quotes this body.
        raise ApiError(400, "messages: final assistant content cannot end with trailing whitespace")


def _tool_ids(msg: Mapping[str, Any], kind: str, field: str) -> list[str]:
    content = msg.get("content")
    if not isinstance(content, list):
        return []
    return [str(b.get(field)) for b in content if b.get("type") == kind]


def _check_tool_pairs(messages: list[Any]) -> None:
    """Each tool_use answered by a tool_result in the very next message, and each tool_result
    answering a tool_use of the message before it (the API's own wording)."""
    for i, msg in enumerate(messages):
        if msg.get("role") == "user":
            results = _tool_ids(msg, "tool_result", "tool_use_id")
            asked = set(_tool_ids(messages[i - 1], "tool_use", "id")) if i > 0 else set()
            stray = [r for r in results if r not in asked]
            if stray:
                j = next(
                    j
                    for j, b in enumerate(msg["content"])
                    if b.get("type") == "tool_result" and b.get("tool_use_id") == stray[0]
                )
                # https://github.com/anthropics/claude-code/issues/13460 quotes this wording.
                raise ApiError(
                    400,
                    f"messages.{i}.content.{j}: unexpected `tool_use_id` found in `tool_result` "
                    f"blocks: {', '.join(stray)}. Each `tool_result` block must have a "
                    "corresponding `tool_use` block in the previous message.",
                )
        elif msg.get("role") == "assistant" and i + 1 < len(messages):
            uses = _tool_ids(msg, "tool_use", "id")
            answered = set(_tool_ids(messages[i + 1], "tool_result", "tool_use_id"))
            missing = [u for u in uses if u not in answered]
            if missing:
                # https://github.com/anthropics/claude-code/issues/5989 quotes this wording
                # (two ids, joined by ", ").
                raise ApiError(
                    400,
                    f"messages.{i}: `tool_use` ids were found without `tool_result` blocks "
                    f"immediately after: {', '.join(missing)}. Each `tool_use` block must have "
                    "a corresponding `tool_result` block in the next message.",
                )


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


# Optional top-level fields: the type each must have when present, and how to say so.
_FIELD_TYPES: dict[str, tuple[Callable[[Any], bool], str]] = {
    "stream": (lambda v: isinstance(v, bool), "a valid boolean"),
    "temperature": (_is_number, "a valid number"),
    "top_p": (_is_number, "a valid number"),
    "top_k": (lambda v: isinstance(v, int) and not isinstance(v, bool), "a valid integer"),
    "stop_sequences": (
        lambda v: isinstance(v, list) and all(isinstance(x, str) for x in v),
        "a valid list of strings",
    ),
    "metadata": (lambda v: isinstance(v, Mapping), "a valid dictionary"),
    "tool_choice": (
        lambda v: isinstance(v, Mapping) and v.get("type") in ("auto", "any", "tool", "none"),
        "an object with type 'auto', 'any', 'tool' or 'none'",
    ),
    "thinking": (lambda v: isinstance(v, Mapping), "a valid dictionary"),
}


def _check_field_types(body: Mapping[str, Any]) -> None:
    for key, (ok, wanted) in _FIELD_TYPES.items():
        if body.get(key) is not None and not ok(body[key]):  # null: as if absent
            raise ApiError(400, f"{key}: Input should be {wanted}", param=key)


def _marks(body: Mapping[str, Any]) -> list[tuple[str, Any]]:
    """Each explicit `cache_control`, with its path, in the order the API processes blocks:
    tools, system, messages."""
    marks: list[tuple[str, Any]] = []
    for i, tool in enumerate(body.get("tools") or []):
        if isinstance(tool, Mapping) and "cache_control" in tool:
            marks.append((f"tools.{i}", tool["cache_control"]))
    system = body.get("system")
    if isinstance(system, list):
        for i, block in enumerate(system):
            if isinstance(block, Mapping) and "cache_control" in block:
                marks.append((f"system.{i}", block["cache_control"]))
    for i, msg in enumerate(body.get("messages") or []):
        content = msg.get("content") if isinstance(msg, Mapping) else None
        if isinstance(content, list):
            for j, block in enumerate(content):
                if isinstance(block, Mapping) and "cache_control" in block:
                    marks.append((f"messages.{i}.content.{j}", block["cache_control"]))
    return marks


def _mark_ttl(cc: Any) -> str:
    """A `cache_control` mark's TTL label (the default when it names none)."""
    ttl = cc.get("ttl", anthropic.DEFAULT_TTL) if isinstance(cc, Mapping) else anthropic.DEFAULT_TTL
    return str(ttl)


def check_breakpoints(units: Sequence[Unit], limit: int, body: Mapping[str, Any]) -> None:
    """At most `limit` breakpoints (the top-level automatic one takes a slot too), and longer
    TTLs before shorter ones."""
    marks = _marks(body)
    count = len(marks) + (1 if "cache_control" in body else 0)
    if count > limit:
        # The API's wording, quoted in https://github.com/tghamm/Anthropic.SDK/issues/50
        raise ApiError(
            400,
            f"A maximum of {limit} blocks with cache_control may be provided. Found {count}.",
        )
    if anthropic.late_longer_ttl(u.breakpoint for u in units if u.breakpoint is not None) is None:
        return
    # The API's wording, with the offending block's path, quoted in
    # https://github.com/cnighswonger/claude-code-cache-fix/issues/44; the units place the
    # top-level automatic mark, the explicit marks name a path (none when the late one is the
    # automatic mark).
    late = anthropic.late_longer_ttl(_mark_ttl(cc) for _, cc in marks)
    where = f"{marks[late][0]}.cache_control.ttl" if late is not None else "cache_control.ttl"
    raise ApiError(
        400,
        f"{where}: a ttl='1h' cache_control block must not come after a ttl='5m' "
        "cache_control block. Note that blocks are processed in the following order: "
        "`tools`, `system`, `messages`.",
    )


def conversation(body: Mapping[str, Any]) -> Conversation:
    """The scripted model's view of an Anthropic request."""
    t = Turns()
    for msg in body.get("messages") or []:
        blocks = as_blocks(msg.get("content"))
        if msg.get("role") == "user":
            texts = [str(b.get("text", "")) for b in blocks if b.get("type") == "text"]
            for b in blocks:
                if b.get("type") == "tool_result":
                    t.result(_result_text(b))
            if texts:
                t.user("\n".join(texts))  # beside tool results: an aside (model.Turns)
            t.after = ""  # each Anthropic message is read on its own
        else:
            t.reply()
    tools, schemas = offered_tools(body.get("tools") or [], "input_schema")
    return t.conversation(tools, schemas)


def _result_text(block: Mapping[str, Any]) -> str:
    content = block.get("content")
    if isinstance(content, str):
        return content
    return "\n".join(str(b.get("text", "")) for b in as_blocks(content) if b.get("type") == "text")


def usage_dict(outcome: AnthropicOutcome, output_tokens: int) -> dict[str, Any]:
    return {
        "input_tokens": outcome.input_tokens,
        "cache_creation_input_tokens": outcome.cache_creation,
        "cache_read_input_tokens": outcome.cache_read,
        "cache_creation": {
            "ephemeral_5m_input_tokens": outcome.write_5m,
            "ephemeral_1h_input_tokens": outcome.write_1h,
        },
        "output_tokens": output_tokens,
        "service_tier": "standard",
    }


def content_blocks(reply: Reply) -> list[dict[str, Any]]:
    blocks: list[dict[str, Any]] = []
    if reply.text:
        blocks.append({"type": "text", "text": reply.text})
    for call in reply.tool_calls:
        blocks.append(
            {
                "type": "tool_use",
                "id": "toolu_" + call.id,
                "name": call.name,
                "input": dict(call.input),
            }
        )
    return blocks


def message(
    body: Mapping[str, Any], reply: Reply | None, outcome: AnthropicOutcome, msg_id: str
) -> dict[str, Any]:
    """The non-streaming response. `reply` None: a `max_tokens: 0` warm-up, no content."""
    if reply is None:
        blocks: list[dict[str, Any]] = []
        stop = "max_tokens"
        out = 0
    else:
        blocks = content_blocks(reply)
        stop = "tool_use" if reply.tool_calls else "end_turn"
        out = reply.output_tokens
    return {
        "id": msg_id,
        "type": "message",
        "role": "assistant",
        "model": body["model"],
        "content": blocks,
        "stop_reason": stop,
        "stop_sequence": None,
        "usage": usage_dict(outcome, out),
    }


def _chunks(text: str, size: int) -> list[str]:
    return [text[i : i + size] for i in range(0, len(text), size)] or [""]


def sse_events(msg: Mapping[str, Any], chunk_chars: int) -> list[tuple[str, dict[str, Any]]]:
    """The SSE event sequence that streams `msg` (what the SDKs' stream parsers expect)."""
    start_usage = dict(msg["usage"])
    start_usage["output_tokens"] = min(1, int(msg["usage"]["output_tokens"]))
    start = {**msg, "content": [], "stop_reason": None, "usage": start_usage}
    events: list[tuple[str, dict[str, Any]]] = [
        ("message_start", {"type": "message_start", "message": start}),
        ("ping", {"type": "ping"}),
    ]
    for index, block in enumerate(msg["content"]):
        if block["type"] == "text":
            events.append(
                (
                    "content_block_start",
                    {
                        "type": "content_block_start",
                        "index": index,
                        "content_block": {"type": "text", "text": ""},
                    },
                )
            )
            for piece in _chunks(block["text"], chunk_chars):
                events.append(
                    (
                        "content_block_delta",
                        {
                            "type": "content_block_delta",
                            "index": index,
                            "delta": {"type": "text_delta", "text": piece},
                        },
                    )
                )
        else:
            head = {"type": "tool_use", "id": block["id"], "name": block["name"], "input": {}}
            events.append(
                (
                    "content_block_start",
                    {"type": "content_block_start", "index": index, "content_block": head},
                )
            )
            raw = json.dumps(block["input"], separators=(",", ":"))
            for piece in _chunks(raw, chunk_chars):
                events.append(
                    (
                        "content_block_delta",
                        {
                            "type": "content_block_delta",
                            "index": index,
                            "delta": {"type": "input_json_delta", "partial_json": piece},
                        },
                    )
                )
        events.append(("content_block_stop", {"type": "content_block_stop", "index": index}))
    events.append(
        (
            "message_delta",
            {
                "type": "message_delta",
                "delta": {"stop_reason": msg["stop_reason"], "stop_sequence": None},
                "usage": {k: v for k, v in msg["usage"].items() if k != "service_tier"},
            },
        )
    )
    events.append(("message_stop", {"type": "message_stop"}))
    return events
