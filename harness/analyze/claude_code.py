"""Claude Code transcripts (`~/.claude/projects/<cwd>/<sessionId>.jsonl`) to requests.

Claude Code writes one assistant line per content block, each repeating the request's full
usage; `output_tokens` grows on the later lines. One request is one (message.id, requestId)
(message.id alone when requestId is absent, as CC 2.1.63 writes): the counters of its line with
the largest total, the largest output, the first timestamp (ccusage's rule; codeburn#201).
Sidechain lines (inline subagents of 1.0.x, or `subagents/agent-<id>.jsonl` files) form their
own threads. Human prompts, compaction boundaries and rewinds (a prompt re-parented to an
earlier node) are read from the structure. Pure: the caller hands in the lines.
"""

# pure: imports no I/O (tests/test_layout.py checks it)

from __future__ import annotations

import re
import sys
from collections.abc import Iterable
from typing import Any

import msgspec

from .model import Event, FileResult, Request
from .records import MAX_TOKENS, as_int, iter_typed, parse_ts, recode

SOURCE = "claude-code"
_AGENT_FILE = re.compile(r"agent-([A-Za-z0-9_.-]+)\.jsonl$")
_WRAPPERS = ("<command-", "<local-command-stdout", "<local-command-stderr")
# The line types a report reads (and untyped lines); progress, file-history-snapshot and the
# like are skipped.
_NEEDED = frozenset(("assistant", "user", "system", "summary"))
_TOOL_RESULT = b'"type":"tool_result"'
_intern = sys.intern


class Usage(msgspec.Struct, gc=False):
    """The counters of `usage` a report reads (UNSET: absent from the line); the rest of it
    (server tool use, service tier, ...) is skipped, not built."""

    input_tokens: Any = None
    output_tokens: Any = None
    cache_read_input_tokens: Any = msgspec.UNSET
    cache_creation_input_tokens: Any = msgspec.UNSET
    cache_creation: Any = None
    speed: Any = None


class Message(msgspec.Struct):
    """The fields of `message` a report reads; the content stays raw (undecoded) until a user
    line needs it, so tool output and assistant text are scanned, never built."""

    id: Any = None
    model: Any = None
    usage: Usage | msgspec.UnsetType | None = msgspec.UNSET
    content: msgspec.Raw = msgspec.Raw(b"null")


class Line(msgspec.Struct, rename={"parent": "parentUuid", "logical_parent": "logicalParentUuid"}):
    """One transcript line, as far as a report needs it."""

    type: Any = None
    subtype: Any = None
    sessionId: Any = None
    uuid: Any = None
    parent: Any = None
    logical_parent: Any = None
    isSidechain: Any = None
    agentId: Any = None
    cwd: Any = None
    timestamp: Any = None
    requestId: Any = None
    isMeta: Any = None
    isCompactSummary: Any = None
    isApiErrorMessage: Any = None
    costUSD: Any = None
    compactMetadata: Any = None
    compact_metadata: Any = None
    message: Message | None = None


class Block(msgspec.Struct):
    type: Any = None
    text: Any = None


_LINE = msgspec.json.Decoder(Line)
_decode_line = _LINE.decode
_decode_content = msgspec.json.Decoder(
    str | list[Block | str | int | float | bool | list[Any] | None]
).decode


def _coerce(obj: dict[str, Any]) -> Line | None:
    # A `message` that is not an object is no message (the reader ignores it either way).
    msg = obj.get("message")
    if "message" in obj and not isinstance(msg, dict):
        obj = {**obj, "message": None}
    elif isinstance(msg, dict) and "usage" in msg and not isinstance(msg["usage"], dict):
        # Usage that is not an object is invalid usage (counted so), not a lost line.
        obj = {**obj, "message": {**msg, "usage": None}}
    return recode(_LINE.decode, obj)


def _content(msg: Message) -> Any:
    try:
        return msgspec.json.decode(msg.content)
    except (msgspec.DecodeError, RecursionError):
        return None


def _human_prompt(rec: Line) -> bool:
    """A prompt a person typed: not a tool result, not injected (isMeta), not a compaction
    summary, not a slash-command wrapper."""
    if rec.isMeta or rec.isCompactSummary or rec.isSidechain:
        return False
    msg = rec.message
    if msg is None:
        return False
    raw = bytes(msg.content)
    if _TOOL_RESULT in raw:
        # A tool result (by far the most bytes of a transcript) known without decoding it
        # again; compact JSON is what Claude Code writes, anything else takes the long way.
        return False
    try:
        content: Any = _decode_content(raw)
    except (msgspec.DecodeError, msgspec.ValidationError, RecursionError):
        return False
    if isinstance(content, str):
        return not content.lstrip().startswith(_WRAPPERS)
    texts = []
    for block in content:
        if not isinstance(block, Block) or block.type == "tool_result":
            return False
        if block.type == "text":
            texts.append(str(block.text if block.text is not None else ""))
    return bool(texts) and not texts[0].lstrip().startswith(_WRAPPERS)


def _prompt_text(rec: Line) -> str:
    content = _content(rec.message) if rec.message is not None else None
    if isinstance(content, list):
        content = " ".join(str(b.get("text", "")) for b in content if isinstance(b, dict))
    return " ".join(str(content).split())[:80]


def _count(v: Any) -> int | None:
    # The common case (a plain non-negative int) without a call.
    return v if type(v) is int and 0 <= v < MAX_TOKENS else as_int(v)


_UNSET = msgspec.UNSET


def _usage(u: Usage | None) -> tuple[int, int, int, int, int, int, bool] | None:
    """(uncached, read, write_5m, write_1h, write_unsplit, output, has_cache), or None when a
    field is null or not a count (ccusage rejects such lines)."""
    if u is None:
        return None
    inp, out = _count(u.input_tokens), _count(u.output_tokens)
    if inp is None or out is None:
        return None
    v_read, v_creation = u.cache_read_input_tokens, u.cache_creation_input_tokens
    has_cache = v_read is not _UNSET or v_creation is not _UNSET
    read = 0 if v_read is _UNSET else _count(v_read)
    split = u.cache_creation
    if v_creation is _UNSET and isinstance(split, dict):
        # The split without its total: the write is the sum of its parts.
        w5 = as_int(split.get("ephemeral_5m_input_tokens", 0))
        w1 = as_int(split.get("ephemeral_1h_input_tokens", 0))
        if read is None or w5 is None or w1 is None:
            return None
        return inp, read, w5, w1, 0, out, True
    creation = 0 if v_creation is _UNSET else _count(v_creation)
    if read is None or creation is None:
        return None
    if isinstance(split, dict):
        # Absent stays absent: only a present split says the TTL. A breakdown larger than
        # the total is clamped to it; the total wins.
        w1 = min(as_int(split.get("ephemeral_1h_input_tokens")) or 0, creation)
        w5 = creation - w1
        return inp, read, w5, w1, 0, out, has_cache
    return inp, read, 0, 0, creation, out, has_cache


def parse(lines: Iterable[bytes | str], path: str = "", text: bool = False) -> FileResult:
    """The requests, events and notes of one Claude Code transcript; `text`: keep each human
    prompt's first words (--show-text)."""
    result = FileResult(path, SOURCE)
    notes = result.notes
    slashed = path.replace("\\", "/")
    m = _AGENT_FILE.search(slashed)
    file_agent = m.group(1) if m and "/subagents/" in slashed else None
    file_thread = f"agent:{file_agent}" if file_agent is not None else None
    by_key: dict[str, Request] = {}
    thread_of: dict[str, str] = {}  # uuid -> thread (inline sidechains follow their parents)
    parent_of: dict[str, str | None] = {}  # main-chain uuid -> parent (live-branch walk)
    human: set[str] = set()
    has_child: set[str] = set()
    last_main: str | None = None
    pending: dict[tuple[str, str], dict[str, str]] = {}  # (session, thread) -> signals
    turns: dict[str, int] = {}
    leaf: dict[str, str] = {}  # session -> last main-chain uuid
    msg_ids: dict[str, str] = {}  # message.id -> key of its non-sidechain request
    first = True
    stem = path.rsplit("/", 1)[-1].removesuffix(".jsonl")
    for lineno, rec in iter_typed(lines, notes, _decode_line, _coerce):
        rtype = rec.type
        if rtype is not None and rtype not in _NEEDED:
            continue
        sid = rec.sessionId
        # Interned: every line repeats the session and model, and a request keeps both.
        session = _intern(sid) if isinstance(sid, str) and sid else (str(sid) if sid else stem)
        uuid = rec.uuid if isinstance(rec.uuid, str) else None
        parent = rec.parent if isinstance(rec.parent, str) else None
        side = bool(rec.isSidechain) or file_agent is not None
        if isinstance(rec.cwd, str) and session not in result.projects:
            result.projects[session] = rec.cwd
        # Which thread this line is on.
        if file_thread is not None:
            thread = file_thread
        elif side:
            agent = rec.agentId
            if isinstance(agent, str) and agent:
                thread = f"agent:{agent}"
            elif parent is not None and parent in thread_of:
                thread = thread_of[parent]
            else:
                thread = f"agent:{(uuid or str(lineno))[:8]}"
        else:
            thread = "main"
        # A node that already has a child and gets another is a branch point (a rewind); a
        # parent never seen (a skipped progress line) proves nothing.
        branch = thread == "main" and parent is not None and parent in has_child
        if uuid is not None:
            thread_of[uuid] = thread
            if thread == "main":
                link = parent if parent is not None else rec.logical_parent
                parent_of[uuid] = link if isinstance(link, str) else None
                if isinstance(link, str):
                    has_child.add(link)
        if rtype == "system" and rec.subtype == "compact_boundary":
            meta = rec.compactMetadata or rec.compact_metadata or {}
            meta = meta if isinstance(meta, dict) else {}
            pre = meta.get("preTokens", meta.get("pre_tokens"))
            evidence = f"compact_boundary trigger={meta.get('trigger', '?')} preTokens={pre}"
            if meta.get("postTokens") is not None:
                evidence += f" postTokens={meta['postTokens']}"
            pending.setdefault((session, thread), {})["compaction"] = evidence
            result.events.append(
                Event(session, thread, "compaction", parse_ts(rec.timestamp), evidence)
            )
        elif rtype == "user" and thread == "main" and _human_prompt(rec):
            turns[session] = turns.get(session, 0) + 1
            result.prompts[session] = result.prompts.get(session, 0) + 1
            if uuid is not None:
                human.add(uuid)
            if text:
                result.texts[(session, turns[session])] = _prompt_text(rec)
            if branch and parent is not None:
                prev = leaf.get(session, "?")
                evidence = (
                    f"prompt {(uuid or '?')[:8]} re-parented to {parent[:8]}, not the leaf "
                    f"{prev[:8]}"
                )
                pending.setdefault((session, thread), {})["rewrite"] = "rewind: " + evidence
                ts = parse_ts(rec.timestamp)
                result.events.append(Event(session, thread, "history_rewrite", ts, evidence))
        elif rtype == "assistant" or (rtype is None and rec.message is not None):
            # ccusage's fixtures (and some exports) carry no top-level type: usage decides.
            req = _assistant(
                rec, lineno, session, thread, side, path, turns, by_key, msg_ids, result
            )
            if req is not None:  # a new request: signals land on it
                req.first_in_file = first
                first = False
                sig = pending.pop((session, thread), None)
                if sig:
                    req.compaction = sig.get("compaction")
                    req.rewrite = sig.get("rewrite")
        if uuid is not None and thread == "main":
            leaf[session] = uuid
            last_main = uuid
    result.requests = list(by_key.values())
    for r in result.requests:
        r.project = result.projects.get(r.session, "")
    # The live branch: from the last main-chain node back to the root, through compaction
    # boundaries (logicalParentUuid), counting the human prompts on the way.
    node, seen, live = last_main, set(), 0
    while node is not None and node not in seen:
        seen.add(node)
        live += node in human
        node = parent_of.get(node)
    if last_main is not None and result.prompts:
        session = next(iter(result.prompts))
        result.live_prompts[session] = live
    return result


def _key(rec: Line) -> str | None:
    msg = rec.message
    if msg is None or not isinstance(msg.id, str) or not msg.id:
        return None
    rid = rec.requestId
    return f"{msg.id}:{rid}" if isinstance(rid, str) and rid else msg.id


def _assistant(
    rec: Line,
    lineno: int,
    session: str,
    thread: str,
    side: bool,
    path: str,
    turns: dict[str, int],
    by_key: dict[str, Request],
    msg_ids: dict[str, str],
    result: FileResult,
) -> Request | None:
    """Adds one assistant line's usage; the Request when the line starts a new one."""
    notes = result.notes
    msg = rec.message
    if msg is None or msg.usage is msgspec.UNSET:
        return None
    notes["usage_lines"] += 1
    model = msg.model
    if model == "<synthetic>":
        notes["synthetic"] += 1
        return None
    if rec.isApiErrorMessage:
        notes["api_errors"] += 1
        return None
    u = msg.usage
    counts = _usage(u)
    key = _key(rec)
    if counts is None or key is None or not isinstance(model, str) or not model:
        notes["invalid_usage"] += 1
        return None
    if side and msg.id in msg_ids and msg_ids[msg.id] != key:
        notes["sidechain_replays"] += 1  # /btw replays a parent message under a new requestId
        return None
    if not side:
        msg_ids.setdefault(msg.id, key)
    uncached, read, w5, w1, wu, out, has_cache = counts
    model = _intern(model)
    ts = parse_ts(rec.timestamp)
    speed = u.speed if u is not None else None
    cost = rec.costUSD
    req = by_key.get(key)
    if req is None:
        req = by_key[key] = Request(
            SOURCE,
            session,
            thread,
            key,
            ts,
            ts,
            model,
            uncached,
            read,
            w5,
            w1,
            wu,
            out,
            has_cache,
            speed if isinstance(speed, str) else None,
            path,
            lineno,
            turns.get(session, 0),
            logged_cost=float(cost) if isinstance(cost, (int, float)) else None,
            sidechain=side,
        )
        return req
    notes["duplicate_lines"] += 1
    if ts is not None:
        req.first_ts = ts if req.first_ts is None else min(req.first_ts, ts)
        req.last_ts = ts if req.last_ts is None else max(req.last_ts, ts)
    if req.sidechain and not side:  # prefer the main-thread copy
        req.sidechain, req.thread = False, thread
    if uncached + read + w5 + w1 + wu + out > req.total_tokens:
        req.uncached, req.read, req.write_5m, req.write_1h, req.write_unsplit = (
            uncached,
            read,
            w5,
            w1,
            wu,
        )
    req.output = max(req.output, out)
    if req.speed is None and isinstance(speed, str):
        req.speed = speed
    return None
