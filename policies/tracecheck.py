"""Trace checks: read recorded requests and find what broke the cache between them.

Reads prefixlock's JSONL export (one record a line with `session_id`, `seq`, `time`, `api`,
`model`, `body`, `usage`, `cache_key`) and raw request bodies one per line (Anthropic Messages,
OpenAI Chat Completions or Responses). Consecutive requests of a session are compared part by
part (model, tools, system, settings, messages, cache key, time gap); single bodies are checked
for breakpoint limits. A finding repeated through a session is reported once, at its first
request, with a count. Pure apart from `iter_lines`, which reads the file.
"""

from __future__ import annotations

import json
import math
import os
import re
from collections.abc import Collection, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from prefixlock.billing.prices import Price, PriceTable
from prefixlock.cache import anthropic, openai
from prefixlock.cache.defaults import model_ttl
from prefixlock.cache.units import (
    OPENAI_PREFIX_SETTINGS,
    breakpoint_eligible,
    breakpoint_mark,
    openai_cache_options,
    openai_explicit_cache,
    openai_items,
    without_breakpoints,
)
from prefixlock.tokenizer import count_tokens

from .findings import Finding
from .rules import WARNING

_ENC = json.JSONEncoder(sort_keys=True, separators=(",", ":"), ensure_ascii=False)
ANTHROPIC_SETTINGS = ("tool_choice", "thinking", "output_config")
MAX_BAD_LINES = 20  # listed one by one; the rest are counted


@dataclass
class Record:
    """One request of a trace."""

    line: int
    session: str
    seq: int
    time: float | None
    api: str
    model: str
    body: Mapping[str, Any]
    usage: Mapping[str, Any] | None = None
    cache_key: str | None = None
    raw_usage: Mapping[str, Any] | None = None


@dataclass
class Bad:
    line: int
    message: str
    text: str


_PROVIDER_API = {
    "anthropic": "anthropic",
    "openai": "openai-chat",
    "openai-responses": "openai-responses",
}


def detect_api(body: Mapping[str, Any], provider: str | None = None) -> str:
    """Which wire API a raw request body is for; `provider` decides when the body does not."""
    if "input" in body or "instructions" in body:
        return "openai-responses"
    model = str(body.get("model", ""))
    if "system" in body or "cache_control" in body or model.startswith("claude"):
        return "anthropic"
    for m in body.get("messages") or []:
        if isinstance(m, Mapping) and m.get("role") in ("system", "developer", "tool"):
            return "openai-chat"
        content = m.get("content") if isinstance(m, Mapping) else None
        if isinstance(content, list):
            for b in content:
                if isinstance(b, Mapping) and (
                    b.get("type") in ("tool_use", "tool_result") or "cache_control" in b
                ):
                    return "anthropic"
    tools = body.get("tools") or []
    if tools and isinstance(tools[0], Mapping) and "input_schema" in tools[0]:
        return "anthropic"
    return _PROVIDER_API.get(provider or "", "openai-chat")


_USAGE_COUNTERS = ("uncached_input", "cache_read", "cache_write_5m", "cache_write_1h", "output")


def _objects(value: Any) -> bool:
    # Decoded JSON: every object is a dict (and `type(...) is dict` is cheap on 100 MB traces).
    return type(value) is list and all(type(v) is dict for v in value)


def body_problem(body: Mapping[str, Any], where: str = "") -> str | None:
    """What makes a request body unreadable as a request, naming the field; None if nothing.

    Only the shape the checks rely on is checked (the provider validates the rest): a line
    of valid JSON with a number where the message list belongs is reported as that line's
    problem instead of stopping the whole run."""
    model = body.get("model")
    if model is not None and type(model) is not str:
        return f"{where}model: expected a string"
    tools = body.get("tools")
    if tools is not None and not _objects(tools):
        return f"{where}tools: expected a list of objects"
    messages = body.get("messages")
    if messages is not None:
        if type(messages) is not list:
            return f"{where}messages: expected a list of objects"
        for i, m in enumerate(messages):
            if type(m) is not dict:
                return f"{where}messages: expected a list of objects"
            role = m.get("role")
            if role is not None and not (type(role) is str and role.isascii()):
                return f"{where}messages[{i}].role: expected a role name"
    system = body.get("system")
    if system is not None and not (type(system) is str or _objects(system)):
        return f"{where}system: expected a string or a list of text blocks"
    items = body.get("input")
    if items is not None and type(items) not in (str, list):
        return f"{where}input: expected a string or a list of items"
    return None


def parse_record(
    raw: Any, line: int, default_session: str, provider: str | None = None
) -> Record | str:
    """A Record from a decoded JSON line, or an error message."""
    if not isinstance(raw, Mapping):
        return "not a JSON object"
    if isinstance(raw.get("body"), Mapping):
        body = raw["body"]
        problem = body_problem(body, "body.")
        if problem is not None:
            return problem
        usage = raw.get("usage")
        if isinstance(usage, Mapping):
            for k in _USAGE_COUNTERS:
                v = usage.get(k)
                if v is not None and (not isinstance(v, int) or isinstance(v, bool)):
                    return f"usage.{k}: expected a whole number"
        api = str(raw.get("api") or detect_api(body, provider))
        t = raw.get("time")
        return Record(
            line=line,
            session=str(raw.get("session_id") or default_session),
            seq=int(raw["seq"]) if isinstance(raw.get("seq"), int) else line,
            time=float(t) if isinstance(t, (int, float)) else None,
            api=api,
            model=str(raw.get("model") or body.get("model") or ""),
            body=body,
            usage=raw.get("usage") if isinstance(raw.get("usage"), Mapping) else None,
            cache_key=raw.get("cache_key") or body.get("prompt_cache_key"),
            raw_usage=raw.get("raw_usage") if isinstance(raw.get("raw_usage"), Mapping) else None,
        )
    if "messages" in raw or "input" in raw or "system" in raw:
        problem = body_problem(raw)
        if problem is not None:
            return problem
        api = detect_api(raw, provider)
        key = raw.get("prompt_cache_key")
        meta = raw.get("metadata")
        session = default_session
        if isinstance(meta, Mapping) and isinstance(meta.get("user_id"), str):
            session = meta["user_id"]
        return Record(
            line,
            session,
            line,
            None,
            api,
            str(raw.get("model", "")),
            raw,
            None,
            key if isinstance(key, str) else None,
        )
    return "neither a prefixlock trace record nor a request body"


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON value")


def _finite(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):  # 1e999 reads as inf, which no JSON writer can write back
        raise ValueError(f"number {text[:20]} is out of range")
    return value


_SURROGATE = re.compile(rb"\\u[dD]|\xed[\xa0-\xbf]")


def _has_lone_surrogate(data: Any) -> bool:
    try:
        json.dumps(data, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


def iter_lines(path: str) -> Iterator[tuple[int, bytes]]:
    with open(path, "rb") as fh:
        yield from enumerate(fh, start=1)


def read_records(
    path: str, lines: Iterable[tuple[int, bytes]] | None = None, provider: str | None = None
) -> Iterator[Record | Bad]:
    """Records of a trace file, with a Bad for each line that cannot be read."""
    default_session = os.path.basename(path)  # raw bodies: one session per file
    for i, raw in lines if lines is not None else iter_lines(path):
        if not raw.strip():
            continue
        try:
            data = json.loads(raw, parse_constant=_no_constant, parse_float=_finite)
            # A lone surrogate comes as a \u escape or as its UTF-8 form (\xed\xa0-\xbf...),
            # which json.loads decodes from bytes with "surrogatepass".
            if _SURROGATE.search(raw) and _has_lone_surrogate(data):
                raise ValueError("a \\u escape is half of a surrogate pair, not a character")
        except (ValueError, UnicodeDecodeError, RecursionError) as exc:
            # JSONDecodeError is a ValueError; RecursionError: nested past the stack.
            text = raw[:200].decode("utf-8", "replace").rstrip("\n")
            msg = (
                "nested too deeply"
                if isinstance(exc, RecursionError)
                else getattr(exc, "msg", str(exc))
            )
            if isinstance(exc, json.JSONDecodeError):  # "Unterminated string starting at"
                msg += f"{'' if msg.endswith(' at') else ' at'} column {exc.colno}"
            truncated = not raw.endswith(b"\n")
            yield Bad(i, f"malformed trace line{' (truncated)' if truncated else ''}: {msg}", text)
            continue
        rec = parse_record(data, i, default_session, provider)
        if isinstance(rec, str):
            yield Bad(i, rec, raw[:200].decode("utf-8", "replace").rstrip("\n"))
        else:
            yield rec


# --- normalized views -------------------------------------------------------------------------


def _strip_cc(block: Any) -> Any:
    if isinstance(block, Mapping) and "cache_control" in block:
        return {k: v for k, v in block.items() if k != "cache_control"}
    return block


def _blocks(content: Any) -> list[Any]:
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    if isinstance(content, list):
        return [_strip_cc(b) for b in content]
    return []


@dataclass
class View:
    """The parts of a request that the cache sees, normalized for comparison."""

    api: str
    model: str
    tools: list[Any]
    system: list[Any]
    settings: dict[str, Any]
    messages: list[tuple[str, list[Any]]]
    key: str | None
    breakpoints: list[tuple[int, str]] = field(default_factory=list)  # (block position, ttl)
    block_count: int = 0
    top_level_cc: bool = False
    # OpenAI: the input items as the cache hashes them (no prompt_cache_breakpoint marker),
    # the explicit marks as (item index, role), the cache mode of a gpt-5.6-family model ("" for
    # older models, which know no breakpoints), the item OpenAI's implicit breakpoint lands on,
    # and whether the deprecated retention and the new TTL are both sent.
    items: list[Any] = field(default_factory=list)
    marks: list[tuple[int, str]] = field(default_factory=list)
    mode: str = ""
    implicit: int | None = None
    retention_and_ttl: bool = False


def view_of(rec: Record) -> View:
    b = rec.body
    if rec.api == "anthropic":
        tools = [_strip_cc(t) for t in b.get("tools") or []]
        system = _blocks(b.get("system")) if b.get("system") is not None else []
        settings = {k: b[k] for k in ANTHROPIC_SETTINGS if k in b}
        msgs = [
            (str(m.get("role", "")), _blocks(m.get("content")))
            for m in b.get("messages") or []
            if isinstance(m, Mapping)
        ]
        v = View(rec.api, rec.model, tools, system, settings, msgs, None)
        pos = 0
        raw_parts: list[Any] = list(b.get("tools") or [])
        sysraw = b.get("system")
        if isinstance(sysraw, list):
            raw_parts += sysraw
        elif isinstance(sysraw, str):
            raw_parts.append({})
        for m in b.get("messages") or []:
            c = m.get("content") if isinstance(m, Mapping) else None
            raw_parts += c if isinstance(c, list) else [{}]
        for pos, part in enumerate(raw_parts):
            if isinstance(part, Mapping) and isinstance(part.get("cache_control"), Mapping):
                ttl = part["cache_control"].get("ttl", anthropic.DEFAULT_TTL)
                v.breakpoints.append((pos, str(ttl)))
        v.block_count = len(raw_parts)
        top = b.get("cache_control")
        if isinstance(top, Mapping) and raw_parts:
            v.top_level_cc = True
            v.breakpoints.append((len(raw_parts) - 1, str(top.get("ttl", anthropic.DEFAULT_TTL))))
        return v
    settings = {k: b[k] for k in OPENAI_PREFIX_SETTINGS if k in b}
    # The breakpoint marker is left out, as the cache leaves it out of the hash: a client that
    # moves its tail mark to the newest stable message each turn has not edited the history.
    items: list[Any] = []
    marks: list[tuple[int, str]] = []
    for i, m in enumerate(openai_items(b)):
        if breakpoint_mark(m) is None:
            items.append(m)
        else:
            items.append(without_breakpoints(m))
            marks.append((i, str(m.get("role", m.get("type", "")))))
    if rec.api == "openai-responses":
        system = [b["instructions"]] if b.get("instructions") is not None else []
        msgs = [
            (str(m.get("role", m.get("type", ""))), [m]) for m in items if isinstance(m, Mapping)
        ]
    else:
        system = []
        msgs = []
        for m in items:
            if not isinstance(m, Mapping):
                continue
            if m.get("role") in ("system", "developer") and not msgs:
                system.append(m)
            else:
                msgs.append((str(m.get("role", "")), [m]))
    key = b.get("prompt_cache_key")
    v = View(
        rec.api,
        rec.model,
        list(b.get("tools") or []),
        system,
        settings,
        msgs,
        key if isinstance(key, str) else rec.cache_key,
        items=items,
        marks=marks,
    )
    opts = b.get("prompt_cache_options")
    v.retention_and_ttl = (
        b.get("prompt_cache_retention") is not None and isinstance(opts, Mapping) and "ttl" in opts
    )
    if openai_explicit_cache(rec.model or str(b.get("model", ""))):
        v.mode = openai_cache_options(b)[0]
        if v.mode != "explicit":
            v.implicit = next(
                (i for i in range(len(items) - 1, -1, -1) if breakpoint_eligible(items[i])), None
            )
    return v


def first_diff(a: str, b: str) -> int:
    n = min(len(a), len(b))
    i = 0
    step = 4096
    while i < n and a[i : i + step] == b[i : i + step]:
        i += step
    while i < n and a[i] == b[i]:
        i += 1
    return i


def snippet(text: str, at: int, width: int = 24) -> str:
    lo = max(0, at - width)
    return (text[lo:at] + "|" + text[at : at + width]).replace("\n", "\\n")


def tools_change(prev: list[Any], cur: list[Any]) -> str:
    def name(t: Any) -> str:
        if isinstance(t, Mapping):
            fn = t.get("function")
            return str(fn.get("name") if isinstance(fn, Mapping) else t.get("name", "?"))
        return "?"

    pn, cn = [name(t) for t in prev], [name(t) for t in cur]
    added = sorted(set(cn) - set(pn))
    removed = sorted(set(pn) - set(cn))
    if added or removed:
        parts = []
        if added:
            parts.append("added " + ", ".join(added))
        if removed:
            parts.append("removed " + ", ".join(removed))
        return "; ".join(parts)
    if pn != cn:
        return "same tools in a different order"
    changed = [n for n, a, b in zip(pn, prev, cur, strict=True) if a != b]
    return "definition of " + ", ".join(changed) + " changed"


def volatile_hint(text: str) -> str:
    """A guess at what kind of value sits at a divergence (for messages)."""
    import re

    if re.search(r"\d{1,2}:\d{2}(:\d{2})?", text):
        return " (looks like a time of day)"
    if re.search(r"[0-9a-f]{8}-[0-9a-f]{4}-", text, re.I):
        return " (looks like a uuid)"
    if re.search(r"\d{4}-\d{2}-\d{2}", text):
        return " (looks like a date)"
    if re.search(r"\b\d{9,}\b", text):
        return " (looks like a timestamp or counter)"
    return ""


@dataclass
class Diff:
    code: str
    message: str
    severity: str = ""  # "" = the rule's default


def first_change(prev: View, cur: View) -> int | None:
    """Where `cur` first departs from `prev`'s conversation, in `prev`'s positions; None if
    `cur` keeps all of it (appends only).

    Positions are those of `reusable_floor`: Anthropic block positions (tools, system blocks,
    then every message block, as prefixlock.cache.units numbers its units), OpenAI input items."""
    if prev.api != "anthropic":
        for i, item in enumerate(prev.items):
            if i >= len(cur.items) or cur.items[i] != item:
                return i
        return None
    pos = len(prev.tools) + len(prev.system)
    for j, (role, blocks) in enumerate(prev.messages):
        if j >= len(cur.messages) or cur.messages[j][0] != role:
            return pos
        now = cur.messages[j][1]
        for k, block in enumerate(blocks):
            if k >= len(now) or now[k] != block:
                return pos + k
        pos += len(blocks)
    return None


def reusable_floor(v: View) -> int | None:
    """The first position of request `v` whose change or removal loses nothing the cache can
    give back to the next request; None: no such position (every edit is a loss).

    Anthropic and gpt-5.6-family explicit mode write entries only at breakpoints, so what lies
    after the last one (volatile text the SDK appends after its breakpoint: a date, a reminder)
    was never cached: the floor is just past it. Automatic caching (OpenAI before gpt-5.6,
    vLLM and other compatible servers) reads any stored prefix in fixed steps, and gpt-5.6's
    implicit breakpoint sits on the newest input message the same way, so only that newest
    message may change (its own tokens are the most it re-bills; explicit marks after it still
    count). DeepSeek is not like that: it stores whole units at the end of each request's input and
    output (docs/providers.md#deepseek-cache-units; the emulator's DeepSeekPromptCache), both of
    which end in that newest message, so dropping it leaves only the fixed prefix readable and every
    edit is a loss. An Anthropic request without any breakpoint cached nothing, so it gives no floor
    here: an edit is still reported, as it will cost once breakpoints are added (PL406 says so)."""
    if "deepseek" in v.model.lower():
        return None
    if v.api == "anthropic":
        return max(p for p, _ in v.breakpoints) + 1 if v.breakpoints else None
    explicit = [i for i, role in v.marks if role != "assistant"]
    past_mark = explicit[-1] + 1 if explicit else None
    if v.mode == "explicit":
        return past_mark
    newest = v.implicit if v.mode else (len(v.items) - 1 if v.items else None)
    if newest is None:
        return past_mark
    return max(newest, past_mark or 0)


def compare(prev: View, cur: View) -> list[Diff]:
    """What changed between two consecutive requests of a session, in cache order."""
    out: list[Diff] = []
    if prev.model != cur.model:
        out.append(
            Diff("PL501", f"model changed from {prev.model} to {cur.model}: the cache is per model")
        )
    if prev.tools != cur.tools:
        out.append(Diff("PL503", f"tools changed ({tools_change(prev.tools, cur.tools)})"))
    if prev.system != cur.system:
        a, b = _ENC.encode(prev.system), _ENC.encode(cur.system)
        at = first_diff(a, b)
        out.append(
            Diff(
                "PL502",
                f"system prompt changed at byte {at}: "
                f"'{snippet(b, at)}'{volatile_hint(b[max(0, at - 12) : at + 24])}",
            )
        )
    if prev.settings != cur.settings:
        keys = sorted(
            k
            for k in set(prev.settings) | set(cur.settings)
            if prev.settings.get(k) != cur.settings.get(k)
        )
        out.append(Diff("PL504", f"{', '.join(keys)} changed"))
    n = len(prev.messages)
    change = first_change(prev, cur) if cur.messages[:n] != prev.messages else None
    floor = reusable_floor(prev)
    if change is not None and not (floor is not None and change >= floor):
        idx = next(
            (
                i
                for i, (x, y) in enumerate(zip(prev.messages, cur.messages, strict=False))
                if x != y
            ),
            min(n, len(cur.messages)),
        )
        if idx >= len(cur.messages):
            what = f"history shortened from {n} to {len(cur.messages)} messages"
        else:
            what = f"message {idx} ({prev.messages[idx][0]}) was edited"
        out.append(Diff("PL505", f"{what} instead of appended to"))
    if prev.api != "anthropic" and prev.key != cur.key and prev.key is not None:
        out.append(Diff("PL507", f"prompt_cache_key changed from {prev.key!r} to {cur.key!r}"))
    return out


# --- token positions (memoized per session) ---------------------------------------------------


class TokenMemo:
    """Token counts of blocks, memoized by their canonical text."""

    def __init__(self) -> None:
        self.memo: dict[str, int] = {}

    def count(self, text: str) -> int:
        n = self.memo.get(text)
        if n is None:
            n = count_tokens(text)
            if len(self.memo) > 200_000:
                self.memo.clear()
            self.memo[text] = n
        return n

    def block_ends(self, v: View) -> list[int]:
        """Running token totals per block position (Anthropic order)."""
        ends: list[int] = []
        total = 0
        for t in v.tools:
            total += self.count(_ENC.encode(t))
            ends.append(total)
        for s in v.system:
            total += self.count(_ENC.encode(s))
            ends.append(total)
        for role, blocks in v.messages:
            for blk in blocks:
                total += self.count(role + "\x00" + _ENC.encode(blk))
                ends.append(total)
        return ends


def ttl_of(v: View, price: Price | None) -> int:
    """Seconds what a request wrote stays whole without a hit."""
    if v.api == "anthropic":
        return int(anthropic.shortest_ttl(t for _, t in v.breakpoints))
    return model_ttl(price)


def openai_writes(v: View) -> tuple[list[int], list[int]]:
    """(items this gpt-5.6-family request writes, explicit marks it does not write).

    OpenAI writes at most four breakpoints a request: in implicit mode its own one (the newest
    input message or tool output) and the latest three explicit marks, in explicit mode the
    latest four marks (the SDK's `PromptCacheOptions.mode` docs). An explicit mark on the item
    the implicit breakpoint lands on is that one write (prefixlock.cache.units counts it so). Marks
    on assistant messages are left out: the request is refused (PL407). The model's minimum
    length is not considered here (PL405's concern)."""
    explicit = [i for i, role in v.marks if role != "assistant" and i != v.implicit]
    return openai.select_writes(explicit, [] if v.implicit is None else [v.implicit], v.mode)


def _items_named(v: View, indexes: list[int]) -> str:
    def name(i: int) -> str:
        item = v.items[i] if i < len(v.items) else None
        role = item.get("role", item.get("type", "?")) if isinstance(item, Mapping) else "?"
        return f"{i} ({role})"

    return ", ".join(name(i) for i in indexes)


def check_openai_body(v: View, written_before: Collection[int] | None = None) -> list[Diff]:
    """Single-request checks of an OpenAI body: gpt-5.6 breakpoints and cache options.

    `written_before`: in a trace, the items whose prefix an earlier request of the session
    wrote; a mark this request does not write is fine when an earlier one wrote it, as matching
    considers the conversation's latest 80 breakpoints (the SDK's `PromptCacheOptions` docs).
    None for a lone request body, whose history is unknown."""
    out: list[Diff] = []
    if v.retention_and_ttl:
        out.append(
            Diff(
                "PL408",
                "prompt_cache_retention and prompt_cache_options.ttl are both "
                "set: the retention is deprecated in favour of the TTL, and "
                "the two are separate limits (a maximum and a minimum "
                "lifetime), not one setting",
            )
        )
    if not v.mode:
        return out
    for i, role in v.marks:
        if role == "assistant":
            out.append(
                Diff(
                    "PL407",
                    f"prompt_cache_breakpoint on input item {i}, an assistant "
                    "message: breakpoints go on system, developer, user or "
                    "tool content, never on the model's output",
                )
            )
            break
    if v.mode == "explicit" and not any(role != "assistant" for _, role in v.marks):
        out.append(
            Diff(
                "PL406",
                "prompt_cache_options.mode is explicit and no content block "
                "carries prompt_cache_breakpoint: nothing is cached",
            )
        )
    _, unwritten = openai_writes(v)
    never = [i for i in unwritten if written_before is None or i not in written_before]
    if never:
        room = openai.explicit_room(v.mode)
        why = (
            "this request does not write them"
            if written_before is None
            else "no request of the session wrote them, so they are never read"
        )
        out.append(
            Diff(
                "PL401",
                f"{len(unwritten) + room} explicit cache breakpoints; a "
                f"request in {v.mode} mode writes only the latest {room}: the "
                f"mark(s) on input item(s) {_items_named(v, never)} are "
                f"wasted ({why})",
                WARNING,
            )
        )
    return out


def check_body(
    v: View, price: Price | None, memo: TokenMemo, written_before: Collection[int] | None = None
) -> list[Diff]:
    """Single-request checks: breakpoint count and order, minimum length, no breakpoint
    (`written_before`: see check_openai_body)."""
    out: list[Diff] = []
    if v.api != "anthropic":
        return check_openai_body(v, written_before)
    bps = v.breakpoints
    if len(bps) > anthropic.MAX_BREAKPOINTS:
        limit = anthropic.MAX_BREAKPOINTS
        out.append(Diff("PL401", f"{len(bps)} cache breakpoints; the limit is {limit}"))
    if anthropic.late_longer_ttl(ttl for _, ttl in bps) is not None:
        out.append(Diff("PL403", "a 1h breakpoint after a 5m one; longer TTLs come first"))
    stable = len(v.tools) + len(v.system)  # tools and system blocks come first
    if bps and max(p for p, _ in bps) < stable - 1:
        last = max(p for p, _ in bps)
        ends = memo.block_ends(v)
        where = f"tool {last}" if last < len(v.tools) else f"system block {last - len(v.tools)}"
        out.append(
            Diff(
                "PL406",
                f"the last breakpoint is on {where}: the {stable - 1 - last} "
                "tool/system block(s) after it (about "
                f"{ends[stable - 1] - ends[last]} tokens) and the "
                "conversation are never cached",
            )
        )
    if price is None:
        return out
    ends = memo.block_ends(v)
    total = ends[-1] if ends else 0
    if bps:
        last = max(p for p, _ in bps)
        cached = ends[last] if last < len(ends) else total
        if cached < price.min_cacheable_tokens:
            out.append(
                Diff(
                    "PL405",
                    f"the prefix up to the last breakpoint is about {cached} "
                    f"tokens, under {price.model}'s minimum of "
                    f"{price.min_cacheable_tokens}: nothing is cached",
                )
            )
    elif total >= price.min_cacheable_tokens:
        out.append(
            Diff(
                "PL406", f"no cache_control in a request of about {total} tokens: nothing is cached"
            )
        )
    return out


# Differences after which the same item position no longer names the same cached prefix.
_PREFIX_BREAKS = frozenset({"PL501", "PL502", "PL503", "PL504", "PL505"})


def _changed_mark(pv: View, v: View) -> str | None:
    """The breakpoint whose bytes differ between two consecutive requests, named; None if none.

    Anthropic: a marked system block of this request that differs from the previous one's.
    OpenAI (gpt-5.6): an item the previous request marked explicitly that this one does not
    send byte-identical at the same position, so what the mark wrote is not read."""
    if v.api == "anthropic":
        if pv.system == v.system:
            return None
        n_tools = len(v.tools)
        for p, _ in v.breakpoints:
            idx = p - n_tools
            if 0 <= idx < min(len(v.system), len(pv.system)) and pv.system[idx] != v.system[idx]:
                return f"system block {idx} carries a breakpoint and"
        return None
    if not pv.mode:
        return None
    for i, _ in pv.marks:
        if i >= len(v.items) or v.items[i] != pv.items[i]:
            return f"input item {i} carries a prompt_cache_breakpoint and"
    return None


@dataclass
class _Agg:
    first: Finding
    count: int = 1


class TraceLinter:
    """Checks one trace file, record by record, keeping one previous request per session."""

    def __init__(self, path: str, prices: PriceTable | None, model: str | None = None) -> None:
        self.path = path
        self.prices = prices
        self.default_model = model
        self.prev: dict[str, tuple[Record, View]] = {}
        self.memos: dict[str, TokenMemo] = {}
        self.keyless: dict[str, Record] = {}
        self.keyed: set[str] = set()
        self.agg: dict[tuple[str, str], _Agg] = {}
        self.bad: list[Finding] = []
        self.sys_bp_changes: dict[str, list[int]] = {}  # session -> [pairs, changed at bp]
        self.written: dict[str, set[int]] = {}  # gpt-5.6: items a request of the session wrote
        self.bad_count: int = 0
        self.records: int = 0

    def price(self, model: str) -> Price | None:
        if self.prices is None:
            return None
        return self.prices.lookup(model or self.default_model or "")

    def emit(
        self, rec: Record, code: str, message: str, source: str = "", severity: str = ""
    ) -> None:
        key = (rec.session, code)
        a = self.agg.get(key)
        if a is not None:
            a.count += 1
            return
        self.agg[key] = _Agg(
            Finding(
                self.path,
                rec.line,
                1,
                code,
                f"session {rec.session}, request {rec.seq}: {message}",
                source_line=source,
                session=rec.session,
                severity=severity,
            )
        )

    def feed(self, item: Record | Bad) -> None:
        if isinstance(item, Bad):
            self.bad_count += 1
            if len(self.bad) < MAX_BAD_LINES:
                self.bad.append(
                    Finding(self.path, item.line, 1, "PL904", item.message, source_line=item.text)
                )
            return
        self.records += 1
        rec = item
        v = view_of(rec)
        memo = self.memos.setdefault(rec.session, TokenMemo())
        price = self.price(rec.model)
        src = f"{rec.api} {rec.model} ({len(v.messages)} messages)"
        previous = self.prev.get(rec.session)
        diffs = compare(previous[1], v) if previous is not None else []
        written = self.written.setdefault(rec.session, set())
        if v.mode:
            if any(d.code in _PREFIX_BREAKS for d in diffs):
                written.clear()  # item positions now name other prefixes
            elif previous is not None and (change := first_change(previous[1], v)) is not None:
                # An edit past the reusable floor (volatile text dropped): the items from
                # there on name other prefixes now; what came before still stands.
                written.difference_update([i for i in written if i >= change])
            for d in check_body(v, price, memo, written):
                self.emit(rec, d.code, d.message, src, d.severity)
            written.update(openai_writes(v)[0])
        else:
            for d in check_body(v, price, memo):
                self.emit(rec, d.code, d.message, src, d.severity)
        if rec.api != "anthropic":
            if v.key is None:
                self.keyless.setdefault(rec.session, rec)
            else:
                self.keyed.add(rec.session)
        if previous is not None:
            prec, pv = previous
            for d in diffs:
                self.emit(rec, d.code, d.message, src, d.severity)
            if prec.time is not None and rec.time is not None:
                gap = rec.time - prec.time
                ttl = ttl_of(pv, self.price(prec.model))
                if gap > ttl:
                    self.emit(
                        rec,
                        "PL508",
                        f"{gap:.0f} s since the previous request, past the {ttl} s cache TTL",
                    )
            self.lookback(rec, pv, v)
            self.volatile_breakpoint(rec, pv, v)
        self.prev[rec.session] = (rec, v)

    def lookback(self, rec: Record, pv: View, v: View) -> None:
        if v.api != "anthropic" or not pv.breakpoints or not v.breakpoints:
            return
        if pv.tools != v.tools or pv.system != v.system or pv.model != v.model:
            return
        q = max(p for p, _ in pv.breakpoints)
        reach = anthropic.LOOKBACK
        if (
            not any(q <= c <= q + reach for c, _ in v.breakpoints)
            and max(c for c, _ in v.breakpoints) > q + reach
        ):
            gap = max(c for c, _ in v.breakpoints) - q
            self.emit(
                rec,
                "PL404",
                f"the newest breakpoint is {gap} blocks after the previous "
                f"request's; the {reach}-block lookback cannot reach it",
            )

    def volatile_breakpoint(self, rec: Record, pv: View, v: View) -> None:
        st = self.sys_bp_changes.setdefault(rec.session, [0, 0])
        st[0] += 1
        what = _changed_mark(pv, v)
        if what is None:
            return
        st[1] += 1
        if st[1] == st[0] and st[0] >= 2:
            self.emit(rec, "PL402", f"{what} changes in every request: the write is never read")

    def finish(self) -> list[Finding]:
        out = list(self.bad)
        if self.bad_count > len(self.bad):
            last = out[-1]
            what = "" if self.records else "; no line is a request record: is this a trace?"
            out[-1] = last.with_(
                message=f"{last.message} ({self.bad_count - len(self.bad)} "
                f"more unreadable lines not listed{what})"
            )
        for session, rec in self.keyless.items():
            if session not in self.keyed:
                self.emit(
                    rec,
                    "PL506",
                    "no prompt_cache_key: requests may land on machines without the prefix",
                )
        for a in self.agg.values():
            f = a.first
            if a.count > 1:
                more = a.count - 1
                f = f.with_(
                    message=f"{f.message} (and {more} more time{'s' if more > 1 else ''} "
                    "in this session)"
                )
            out.append(f)
        return out


def check_trace(
    path: str,
    prices: PriceTable | None,
    model: str | None = None,
    provider: str | None = None,
    lines: Iterable[tuple[int, bytes]] | None = None,
) -> list[Finding]:
    """Lint one trace file."""
    linter = TraceLinter(path, prices, model)
    for item in read_records(path, lines, provider):
        if (
            isinstance(item, Bad)
            and linter.records == 0
            and linter.bad_count == 0
            and item.message.startswith("neither")
        ):
            # Valid JSON of another shape on the first line: some other JSONL, not a trace.
            return [
                Finding(
                    path,
                    item.line,
                    1,
                    "PL904",
                    "not a request trace: the first "
                    "line is neither a prefixlock trace record nor a request body",
                    source_line=item.text,
                )
            ]
        linter.feed(item)
    return linter.finish()


def check_request_file(
    path: str, body: Mapping[str, Any], prices: PriceTable | None, model: str | None = None
) -> list[Finding]:
    """Breakpoint checks on one request body stored as a JSON file."""
    rec = parse_record(body, 1, path)
    if isinstance(rec, str):
        return []
    price = prices.lookup(rec.model or model or "") if prices else None
    diffs = check_body(view_of(rec), price, TokenMemo())
    return [Finding(path, 1, 1, d.code, d.message, severity=d.severity) for d in diffs]


def looks_like_request(data: Any) -> bool:
    return isinstance(data, Mapping) and "model" in data and ("messages" in data or "input" in data)
