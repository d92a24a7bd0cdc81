"""Cache units: a request body cut into the pieces a provider's prompt cache hashes.

One cut, shared by the guard (which predicts hits), the emulator (which serves them), the ledger
and the linter. Each unit carries the chained hash of itself and everything before it, its token
count, the running total, and the breakpoint it carries, if any. Anthropic's units are its blocks
in hashing order tools -> system -> messages (`cache_control` is not hashed: moving a breakpoint
does not change the bytes it covers); OpenAI's are the settings, the instructions, each tool and
each input item, and `openai_tokens` gives the prompt's token ids. Settings that key the cache
without being content (tool_choice and thinking for Anthropic's message level; parallel_tool_calls,
response format, reasoning effort and verbosity for OpenAI) are folded into the chain where the
provider documents they take effect.

Units are hashed as the provider reads them (`unit_bytes`): the JSON structure the API parses
(block and message keys) in a fixed order, since reordering it changes nothing the model sees,
but free-form JSON the provider renders into the prompt as written (a tool call's `input`, a
tool's schema) in the client's own key order: Anthropic matches prompts byte for byte, so a
`tool_use` input re-sent with its keys reordered misses from that block on. prefixlock's own
requests are canonical copies (sorted keys throughout), for which `unit_bytes` equals
`canonical_bytes`.

For gpt-5.6 and later `openai_units` labels the units that carry a breakpoint: an explicit
`prompt_cache_breakpoint`'s TTL, or `IMPLICIT` where OpenAI places its own (the end of the newest
eligible input message, unless the mode is explicit); the marker is not hashed, and a mark on a
content part counts at the end of its message. What the caches do with units is in `anthropic`,
`openai` and `deepseek`.
"""

# pure: imports no I/O (tests/test_layout.py checks it)

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from typing import Any, Literal, get_args

from ..canonical import canonical_bytes, canonical_json, chain_hash
from ..tokenizer import count_tokens
from .media import unit_token_ids, unit_tokens
from .unit import Unit as Unit  # packed: a long chat holds one per block (prefixlock.cache.unit)

Section = str  # "tools" | "system" | "messages" | "settings"


# Keys whose values a provider renders into the prompt as the client wrote them: the arguments of
# a tool call (Anthropic `input`), a tool's schema (`input_schema`, OpenAI `parameters`) and a
# structured-output schema. Below them key order is content; everywhere else it is structure.
VERBATIM_KEYS = frozenset({"input", "input_schema", "parameters", "schema"})

_UNIT_ENCODER = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False, allow_nan=False)


def _as_rendered(value: Any, verbatim: bool) -> Any:
    if isinstance(value, Mapping):
        if verbatim:
            return {k: _as_rendered(v, True) for k, v in value.items()}
        return {k: _as_rendered(value[k], k in VERBATIM_KEYS) for k in sorted(value)}
    if isinstance(value, (list, tuple)):
        return [_as_rendered(v, verbatim) for v in value]
    if isinstance(value, (set, frozenset)):
        return sorted((_as_rendered(v, verbatim) for v in value), key=canonical_json)
    return value


def unit_bytes(value: Any) -> bytes:
    """The bytes a cache unit hashes: structure in sorted key order, the values under
    VERBATIM_KEYS in the order the client sent them (see the module docstring)."""
    return _UNIT_ENCODER.encode(_as_rendered(value, False)).encode("utf-8")


def key_order_only(a: Any, b: Any) -> bool:
    """Do `a` and `b` hash differently only because of the key order of their free-form JSON?
    (The cause the guard names when a client re-sends a tool call's input reordered.)"""
    return unit_bytes(a) != unit_bytes(b) and canonical_bytes(a) == canonical_bytes(b)


def without_cache_control(block: Mapping[str, Any]) -> dict[str, Any]:
    """`block` as the cache hashes it: a breakpoint marker is not part of the key."""
    return {k: v for k, v in block.items() if k != "cache_control"}


def _ttl(block: Mapping[str, Any]) -> str | None:
    cc = block.get("cache_control")
    if not isinstance(cc, Mapping):
        return None
    ttl = cc.get("ttl", "5m")
    return str(ttl)


def message_unit_data(role: str, block_bytes: bytes) -> bytes:
    """The bytes a message content block is hashed as (its role, then its `unit_bytes`)."""
    return role.encode("ascii") + b"\x00" + block_bytes


def anthropic_block_tokens(role: str, block: Any, data: bytes | None = None) -> int:
    """Tokens of one message block on Anthropic: its role marker and its content, an image or
    a document by the documented rule (prefixlock.cache.media), not by its base64 text."""
    data = message_unit_data(role, unit_bytes(block)) if data is None else data
    return count_tokens(role + "\x00") + unit_tokens(data[len(role) + 1 :], block, "anthropic")


def anthropic_message_settings(body: Mapping[str, Any]) -> bytes:
    """Settings that invalidate Anthropic's message level (tool_choice, thinking)."""
    return unit_bytes(
        {k: body[k] for k in ("tool_choice", "thinking", "output_config") if k in body}
    )


def as_blocks(content: Any) -> list[Mapping[str, Any]]:
    """Anthropic `system` or message `content` as blocks: a string is one text block."""
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    if isinstance(content, Sequence):
        return [b for b in content if isinstance(b, Mapping)]
    return []


class _Builder:
    def __init__(self) -> None:
        self.units: list[Unit] = []
        self.chain = ""
        self.total = 0

    def add(
        self, section: Section, data: bytes, ttl: str | None, tokens: int | None = None
    ) -> None:
        self.chain = chain_hash(self.chain, data)
        n = count_tokens(data.decode("utf-8")) if tokens is None else tokens
        self.total += n
        self.units.append(Unit(section, len(self.units), self.chain, n, self.total, ttl))

    def seed(self, data: bytes) -> None:
        """Fold settings into the chain without adding a unit or tokens."""
        self.chain = chain_hash(self.chain, data)


def anthropic_units(body: Mapping[str, Any]) -> list[Unit]:
    """Cache units of an Anthropic Messages request body, in hashing order."""
    b = _Builder()
    for t in body.get("tools") or []:
        b.add("tools", unit_bytes(without_cache_control(t)), _ttl(t))
    system = body.get("system")
    for block in as_blocks(system) if system is not None else []:
        b.add("system", unit_bytes(without_cache_control(block)), _ttl(block))
    b.seed(anthropic_message_settings(body))
    for msg in body.get("messages") or []:
        role = str(msg.get("role", ""))
        for block in as_blocks(msg.get("content")):
            plain = without_cache_control(block)
            data = message_unit_data(role, unit_bytes(plain))
            b.add("messages", data, _ttl(block), anthropic_block_tokens(role, plain, data))
    top = body.get("cache_control")
    if isinstance(top, Mapping) and b.units:
        # Automatic caching: the breakpoint sits on the last cacheable block.
        last = b.units[-1]
        ttl = str(top.get("ttl", "5m"))
        b.units[-1] = last.with_breakpoint(ttl)
    return b.units


OPENAI_PREFIX_SETTINGS = (
    "parallel_tool_calls",
    "response_format",
    "reasoning_effort",
    "verbosity",
    "reasoning",
    "text",
)


def openai_settings(body: Mapping[str, Any]) -> bytes:
    """Settings that change OpenAI's cached prefix (docs/providers.md#openai-prefix), canonical."""
    return unit_bytes({k: body[k] for k in OPENAI_PREFIX_SETTINGS if k in body})


def openai_items(body: Mapping[str, Any]) -> list[Any]:
    """The input items of a Chat (`messages`) or Responses (`input`) body, in prompt order."""
    items = body.get("messages")
    if items is None:
        raw = body.get("input")
        items = [{"role": "user", "content": raw}] if isinstance(raw, str) else raw
    return list(items) if isinstance(items, Sequence) and not isinstance(items, str) else []


# ---- gpt-5.6 and later: breakpoints ----------------------------------------------------------

BREAKPOINT_FIELD = "prompt_cache_breakpoint"
IMPLICIT = "implicit"  # Unit.breakpoint of the breakpoint OpenAI places itself (implicit mode)
OPENAI_DEFAULT_TTL = "30m"
OpenAICacheMode = Literal["implicit", "explicit"]  # prompt_cache_options.mode
OPENAI_CACHE_MODES: tuple[OpenAICacheMode, ...] = get_args(OpenAICacheMode)
OPENAI_DEFAULT_MODE: OpenAICacheMode = "implicit"
_GPT = re.compile(r"^(?:[a-z-]+:)?gpt-(\d+)(?:\.(\d+))?")


def openai_explicit_cache(model: str) -> bool:
    """Does `model` cache by breakpoints (gpt-5.6 and later) rather than in 128-token steps?"""
    m = _GPT.match(model)
    return m is not None and (int(m[1]), int(m[2] or 0)) >= (5, 6)


def openai_cache_options(body: Mapping[str, Any]) -> tuple[str, str]:
    """(mode, request TTL) of a gpt-5.6-family body, defaults filled in (implicit, 30m)."""
    opts = body.get("prompt_cache_options")
    if not isinstance(opts, Mapping):
        return OPENAI_DEFAULT_MODE, OPENAI_DEFAULT_TTL
    return str(opts.get("mode", OPENAI_DEFAULT_MODE)), str(opts.get("ttl", OPENAI_DEFAULT_TTL))


def _parts_key(item: Mapping[str, Any]) -> str:
    # A function_call_output carries its content parts under `output`, messages under `content`.
    return "output" if item.get("type") == "function_call_output" else "content"


def breakpoint_mark(item: Any) -> Mapping[str, Any] | None:
    """The `prompt_cache_breakpoint` on one of `item`'s content parts (the last one wins)."""
    if not isinstance(item, Mapping):
        return None
    parts = item.get(_parts_key(item))
    if not isinstance(parts, list):
        return None
    found: Mapping[str, Any] | None = None
    for part in parts:
        if isinstance(part, Mapping) and isinstance(part.get(BREAKPOINT_FIELD), Mapping):
            found = part[BREAKPOINT_FIELD]
    return found


def without_breakpoints(item: Any) -> Any:
    """`item` as the cache hashes it: the breakpoint marker is not part of the prefix."""
    if breakpoint_mark(item) is None:
        return item  # the usual case, and every item of older models: no copy
    key = _parts_key(item)
    parts = [
        {k: v for k, v in p.items() if k != BREAKPOINT_FIELD} if isinstance(p, Mapping) else p
        for p in item[key]
    ]
    return {**item, key: parts}


def breakpoint_eligible(item: Any) -> bool:
    """Can OpenAI's implicit breakpoint sit at the end of `item`? Input messages and tool
    results can; the model's own output (assistant messages, function calls) cannot."""
    if not isinstance(item, Mapping):
        return False
    kind = item.get("type", "message")
    if kind == "function_call_output":
        return True
    return kind == "message" and item.get("role") in ("system", "developer", "user", "tool")


def openai_breakpoint_labels(body: Mapping[str, Any]) -> dict[int, str]:
    """Item index -> breakpoint label (an explicit mark's TTL, or IMPLICIT) of a body.

    Empty for models before gpt-5.6, whose cache knows no breakpoints. Where the implicit
    breakpoint falls on an explicitly marked message the two are one write, labelled IMPLICIT.
    """
    if not openai_explicit_cache(str(body.get("model", ""))):
        return {}
    mode, ttl = openai_cache_options(body)
    items = openai_items(body)
    labels: dict[int, str] = {}
    for i, item in enumerate(items):
        mark = breakpoint_mark(item)
        if mark is not None:
            labels[i] = str(mark.get("ttl", ttl))
    if mode != "explicit":
        for i in range(len(items) - 1, -1, -1):
            if breakpoint_eligible(items[i]):
                labels[i] = IMPLICIT
                break
    return labels


def _openai_unit_texts(body: Mapping[str, Any]) -> list[tuple[Section, bytes, Any]]:
    """(section, bytes, value) of each unit; the value is walked for media only when the
    bytes may hold one."""
    out: list[tuple[Section, bytes, Any]] = [("settings", openai_settings(body), None)]
    if "instructions" in body and body["instructions"] is not None:
        out.append(("system", unit_bytes({"instructions": body["instructions"]}), None))
    for t in body.get("tools") or []:
        out.append(("tools", unit_bytes(t), None))
    for m in openai_items(body):
        role = m.get("role") if isinstance(m, Mapping) else None
        section: Section = "system" if role in ("system", "developer") else "messages"
        item = without_breakpoints(m)
        out.append((section, unit_bytes(item), item))
    return out


def openai_units(body: Mapping[str, Any]) -> list[Unit]:
    """Cache units of an OpenAI Chat Completions or Responses body, in prompt order (with the
    breakpoints of gpt-5.6-family models labelled)."""
    b = _Builder()
    texts = _openai_unit_texts(body)
    for section, data, value in texts:
        b.add(section, data, None, unit_tokens(data, value, "openai"))
    labels = openai_breakpoint_labels(body)
    if labels:
        first = len(texts) - len(openai_items(body))  # units before the first input item
        for i, label in labels.items():
            b.units[first + i] = b.units[first + i].with_breakpoint(label)
    return b.units


def openai_reply_chain(units: Sequence[Unit], echo: Mapping[str, Any]) -> str:
    """Chain of the unit a request's reply adds to its prompt: what the next request hashes
    when it ends in this request's input followed by `echo`, the assistant message exactly as
    the client sends it back (one message: one unit, as `openai_units` cuts a prompt).

    DeepSeek stores a unit at the end of each request's output as well as its input
    (docs/providers.md#deepseek-cache-units), so the next turn reads through the previous
    reply; the emulator stores this chain and the guard predicts from it."""
    return chain_hash(units[-1].chain if units else "", unit_bytes(echo))


def unit_objects(api: str, body: Mapping[str, Any]) -> list[Any]:
    """What each unit of `body` hashes, as JSON values, in unit order (one per unit of
    `anthropic_units` or `openai_units`): for explaining a miss, not for hashing."""
    out: list[Any] = []
    if api == "anthropic":
        out.extend(without_cache_control(t) for t in body.get("tools") or [])
        system = body.get("system")
        out.extend(
            without_cache_control(b) for b in (as_blocks(system) if system is not None else [])
        )
        for msg in body.get("messages") or []:
            role = str(msg.get("role", ""))
            out.extend([role, without_cache_control(b)] for b in as_blocks(msg.get("content")))
        return out
    out.append({k: body[k] for k in OPENAI_PREFIX_SETTINGS if k in body})
    if body.get("instructions") is not None:
        out.append({"instructions": body["instructions"]})
    out.extend(body.get("tools") or [])
    out.extend(without_breakpoints(m) for m in openai_items(body))
    return out


def openai_tokens(body: Mapping[str, Any]) -> list[int]:
    """Token ids of an OpenAI prompt, unit by unit (the same cut as `openai_units`)."""
    ids: list[int] = []
    for _, data, value in _openai_unit_texts(body):
        ids.extend(unit_token_ids(data, value, "openai"))
    return ids


def anthropic_tokens(body: Mapping[str, Any]) -> int:
    """Total input tokens of an Anthropic body as the emulator counts them."""
    units = anthropic_units(body)
    return units[-1].end if units else 0
