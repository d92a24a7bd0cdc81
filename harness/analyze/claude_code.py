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
from collections.abc import Iterable
from typing import Any

from .model import Event, FileResult, Request
from .records import as_int, iter_records, parse_ts

SOURCE = "claude-code"
_AGENT_FILE = re.compile(r"agent-([A-Za-z0-9_.-]+)\.jsonl$")
_WRAPPERS = ("<command-", "<local-command-stdout", "<local-command-stderr")
_NEEDED = ('"assistant"', '"user"', '"system"', '"summary"')


def _keep(line: str) -> bool:
    # Skips progress, file-history-snapshot, queue-operation lines unparsed. A user line is
    # parsed (its structure matters); the parse of its content is the price of that.
    return any(t in line for t in _NEEDED)


_UUID = re.compile(r'"uuid":"([^"]*)"')
_PARENT = re.compile(r'"parentUuid":(?:null|"([^"]*)")')
_SESSION = re.compile(r'"sessionId":"([^"]*)"')
_AGENT = re.compile(r'"agentId":"([^"]*)"')


def _tool_result(line: str) -> dict[str, Any] | None:
    """The structure of a user line that only carries tool results (most of a log's bytes),
    read with a few searches instead of parsing its content: in JSON text an unescaped
    `"uuid":"` is a key, never string content, and a tool result's content holds no keys of
    that name (it is text or text blocks); a line where one appears twice is parsed whole."""
    if '"tool_result"' not in line or '"isCompactSummary"' in line or '"type":"user"' not in line:
        return None
    if line.count('"uuid":"') != 1 or line.count('"parentUuid":') != 1:
        return None
    uuid, parent, session = _UUID.search(line), _PARENT.search(line), _SESSION.search(line)
    if uuid is None or parent is None or session is None:
        return None
    rec: dict[str, Any] = {
        "type": "user",
        "uuid": uuid.group(1),
        "parentUuid": parent.group(1),
        "sessionId": session.group(1),
        "isSidechain": '"isSidechain":true' in line,
    }
    agent = _AGENT.search(line)
    if agent is not None:
        rec["agentId"] = agent.group(1)
    return rec


def _human_prompt(rec: dict[str, Any]) -> bool:
    """A prompt a person typed: not a tool result, not injected (isMeta), not a compaction
    summary, not a slash-command wrapper."""
    if rec.get("isMeta") or rec.get("isCompactSummary") or rec.get("isSidechain"):
        return False
    msg = rec.get("message")
    if not isinstance(msg, dict):
        return False
    content = msg.get("content")
    if isinstance(content, str):
        return not content.lstrip().startswith(_WRAPPERS)
    if not isinstance(content, list):
        return False
    texts = []
    for block in content:
        if not isinstance(block, dict) or block.get("type") == "tool_result":
            return False
        if block.get("type") == "text":
            texts.append(str(block.get("text", "")))
    return bool(texts) and not texts[0].lstrip().startswith(_WRAPPERS)


def _prompt_text(rec: dict[str, Any]) -> str:
    content = rec["message"].get("content")
    if isinstance(content, list):
        content = " ".join(str(b.get("text", "")) for b in content if isinstance(b, dict))
    return " ".join(str(content).split())[:80]


def _usage(u: Any) -> tuple[int, int, int, int, int, int, bool] | None:
    """(uncached, read, write_5m, write_1h, write_unsplit, output, has_cache), or None when a
    field is null or not a count (ccusage rejects such lines)."""
    if not isinstance(u, dict):
        return None
    inp, out = as_int(u.get("input_tokens")), as_int(u.get("output_tokens"))
    if inp is None or out is None:
        return None
    has_cache = "cache_read_input_tokens" in u or "cache_creation_input_tokens" in u
    read = as_int(u.get("cache_read_input_tokens", 0))
    creation = as_int(u.get("cache_creation_input_tokens", 0))
    if read is None or creation is None:
        return None
    split = u.get("cache_creation")
    if isinstance(split, dict):
        # Absent stays absent: only a present split says the TTL. A breakdown larger than
        # the total is clamped to it; the total wins.
        w1 = min(as_int(split.get("ephemeral_1h_input_tokens")) or 0, creation)
        w5 = creation - w1
        return inp, read, w5, w1, 0, out, has_cache
    return inp, read, 0, 0, creation, out, has_cache


def parse(lines: Iterable[str], path: str = "", text: bool = False) -> FileResult:
    """The requests, events and notes of one Claude Code transcript; `text`: keep each human
    prompt's first words (--show-text)."""
    result = FileResult(path, SOURCE)
    notes = result.notes
    m = _AGENT_FILE.search(path.replace("\\", "/"))
    file_agent = m.group(1) if m and "/subagents/" in path.replace("\\", "/") else None
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
    for lineno, rec in iter_records(lines, notes, _keep, _tool_result):
        rtype = rec.get("type")
        session = str(rec.get("sessionId") or path.rsplit("/", 1)[-1].removesuffix(".jsonl"))
        uuid = rec.get("uuid") if isinstance(rec.get("uuid"), str) else None
        parent = rec.get("parentUuid") if isinstance(rec.get("parentUuid"), str) else None
        side = bool(rec.get("isSidechain")) or file_agent is not None
        if isinstance(rec.get("cwd"), str):
            result.projects.setdefault(session, rec["cwd"])
        # Which thread this line is on.
        if file_agent is not None:
            thread = f"agent:{file_agent}"
        elif side:
            agent = rec.get("agentId")
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
                link = parent if parent is not None else rec.get("logicalParentUuid")
                parent_of[uuid] = link if isinstance(link, str) else None
                if isinstance(link, str):
                    has_child.add(link)
        if rtype == "system" and rec.get("subtype") == "compact_boundary":
            meta = rec.get("compactMetadata") or rec.get("compact_metadata") or {}
            meta = meta if isinstance(meta, dict) else {}
            pre = meta.get("preTokens", meta.get("pre_tokens"))
            evidence = f"compact_boundary trigger={meta.get('trigger', '?')} preTokens={pre}"
            if meta.get("postTokens") is not None:
                evidence += f" postTokens={meta['postTokens']}"
            pending.setdefault((session, thread), {})["compaction"] = evidence
            result.events.append(
                Event(session, thread, "compaction", parse_ts(rec.get("timestamp")), evidence)
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
                ts = parse_ts(rec.get("timestamp"))
                result.events.append(Event(session, thread, "history_rewrite", ts, evidence))
        elif rtype == "assistant" or (rtype is None and isinstance(rec.get("message"), dict)):
            # ccusage's fixtures (and some exports) carry no top-level type: usage decides.
            _assistant(rec, lineno, session, thread, side, path, turns, by_key, msg_ids, result)
            key = _key(rec)
            req = by_key.get(key) if key else None
            if req is not None and req.line == lineno:  # a new request: signals land on it
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


def _key(rec: dict[str, Any]) -> str | None:
    msg = rec.get("message")
    if not isinstance(msg, dict) or not isinstance(msg.get("id"), str) or not msg["id"]:
        return None
    rid = rec.get("requestId")
    return f"{msg['id']}:{rid}" if isinstance(rid, str) and rid else msg["id"]


def _assistant(
    rec: dict[str, Any],
    lineno: int,
    session: str,
    thread: str,
    side: bool,
    path: str,
    turns: dict[str, int],
    by_key: dict[str, Request],
    msg_ids: dict[str, str],
    result: FileResult,
) -> None:
    notes = result.notes
    msg = rec.get("message")
    if not isinstance(msg, dict) or "usage" not in msg:
        return
    notes["usage_lines"] += 1
    model = msg.get("model")
    if model == "<synthetic>":
        notes["synthetic"] += 1
        return
    if rec.get("isApiErrorMessage"):
        notes["api_errors"] += 1
        return
    counts = _usage(msg.get("usage"))
    key = _key(rec)
    if counts is None or key is None or not isinstance(model, str) or not model:
        notes["invalid_usage"] += 1
        return
    if side and msg["id"] in msg_ids and msg_ids[msg["id"]] != key:
        notes["sidechain_replays"] += 1  # /btw replays a parent message under a new requestId
        return
    if not side:
        msg_ids.setdefault(msg["id"], key)
    uncached, read, w5, w1, wu, out, has_cache = counts
    ts = parse_ts(rec.get("timestamp"))
    u = msg.get("usage") or {}
    cost = rec.get("costUSD")
    req = by_key.get(key)
    if req is None:
        by_key[key] = Request(
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
            u.get("speed") if isinstance(u.get("speed"), str) else None,
            path,
            lineno,
            turns.get(session, 0),
            logged_cost=float(cost) if isinstance(cost, (int, float)) else None,
            sidechain=side,
        )
        return
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
    if req.speed is None and isinstance(u.get("speed"), str):
        req.speed = u["speed"]
