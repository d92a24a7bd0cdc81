"""Which session a request through the proxy belongs to, told from the request alone.

Pure. A client that sets no session id still sends its whole conversation on every request, so a
session is the chain of its messages: a request continues the session whose earlier request's
messages are the longest prefix of its own. The chain starts from a hash of the client's key
(never the key: the proxy hashes it before anything else sees it), so two keys never share a
session. System prompts and tools are left out of the chain on purpose: a client that stamps the
time into its system prompt or shuffles its tools still has one conversation, which is what the
repairs and the figures need to see. Responses API requests that continue a stored response
(`previous_response_id`) belong to that response's session.

Two conversations of one key that open with the same message are told apart by the
conversation's own ids where the client sends any (`session_scope`: a session header, the
Responses `conversation`, Anthropic `metadata.user_id`, a `prompt_cache_key` it set itself),
and otherwise by what a new conversation looks like: a request of one conversation item that
matches a session already past its first request opens a new session, not a rewrite of that
one's history.

Items, system prompts and tools are compared by hashes of their bytes as the client sent them,
cache markers cut out (`layout.Layout`), so detection reads no more of a body than its layout.

Bounded: the oldest prefixes, responses and sessions are forgotten first (a forgotten session
continues as a new one); a prefix is kept as a 16-byte digest.
"""

from __future__ import annotations

import hashlib
from collections import OrderedDict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import msgspec

from ..canonical import canonical_bytes
from .jsonspan import JsonSpanError
from .layout import Layout

# Roles that are part of the instructions, not the conversation (OpenAI wire formats).
_INSTRUCTION_ROLES = ("system", "developer")


def client_hash(api_key: str | None) -> str:
    """A short, one-way name for the client's key: what sessions are scoped by and stored as."""
    data = b"prefixlock-proxy\x00" + (api_key or "").encode("utf-8")
    return hashlib.sha256(data).hexdigest()[:16]


def family(api: str) -> str:
    """Requests of one family can continue each other's sessions."""
    return "anthropic" if api == "anthropic" else "openai"


def conversation(api: str, body: Mapping[str, Any]) -> list[Any]:
    """The conversation items of a request body (instructions left out)."""
    if api == "openai-responses":
        items = body.get("input")
        if isinstance(items, str):
            return [{"role": "user", "content": items}]
        raw: list[Any] = items if isinstance(items, list) else []
    else:
        messages = body.get("messages")
        raw = messages if isinstance(messages, list) else []
    if api == "anthropic":
        return list(raw)
    return [m for m in raw if not (isinstance(m, Mapping) and m.get("role") in _INSTRUCTION_ROLES)]


def _strip_markers(value: Any) -> Any:
    """A message as it is compared: breakpoint markers move between requests, content does not."""
    if isinstance(value, Mapping):
        return {
            k: _strip_markers(v)
            for k, v in value.items()
            if k not in ("cache_control", "prompt_cache_breakpoint")
        }
    if isinstance(value, list):
        return [_strip_markers(v) for v in value]
    return value


def item_hash(item: Any) -> str:
    return hashlib.sha256(canonical_bytes(_strip_markers(item))).hexdigest()[:24]


def part_hash(value: Any) -> str | None:
    """A hash of a system prompt or tool list, to tell whether it changed (None: absent)."""
    if value is None:
        return None
    return hashlib.sha256(canonical_bytes(_strip_markers(value))).hexdigest()[:24]


# Headers a client names its conversation with (lower case), the first one present wins.
SESSION_HEADERS = ("x-session-id", "session-id", "session_id", "x-claude-code-session-id")


def session_scope(api: str, body: Mapping[str, Any], headers: Mapping[str, str]) -> str:
    """The conversation's own id, from the client's headers (lower-cased names) or body ("" when
    it sends none): requests with different ones are never one session."""
    for name in SESSION_HEADERS:
        value = headers.get(name)
        if value:
            return f"h:{value}"
    conv = body.get("conversation") if api == "openai-responses" else None
    if isinstance(conv, Mapping):
        conv = conv.get("id")
    if isinstance(conv, str) and conv:
        return f"c:{conv}"
    meta = body.get("metadata") if api == "anthropic" else None
    user = meta.get("user_id") if isinstance(meta, Mapping) else None
    if isinstance(user, str) and user:
        return f"u:{user}"
    key = body.get("prompt_cache_key") if api != "anthropic" else None
    if isinstance(key, str) and key:
        return f"k:{key}"
    return ""


@dataclass(frozen=True)
class History:
    """A session's previous request, as much of it as the repairs compare against."""

    items: tuple[str, ...]  # item_hash of each conversation item
    system: str | None  # part_hash of the system prompt / instructions
    tools: str | None  # part_hash of the tools
    requests: int  # how many requests the session has made


@dataclass(frozen=True)
class Match:
    """The session a request belongs to."""

    session_id: str
    new: bool
    history: History | None  # None for a session's first request
    items: tuple[str, ...]  # this request's item hashes
    system: str | None = None  # this request's system prompt hash (None: absent)
    tools: str | None = None  # this request's tools hash (None: absent)
    scope: str = ""  # the client's hash and session_scope, and the chain of `items` in it
    chain: tuple[str, ...] = ()


def instructions(api: str, body: Mapping[str, Any]) -> Any:
    """The system prompt of a request, in whatever form the client sent it."""
    if api == "anthropic":
        return body.get("system")
    if api == "openai-responses" and "instructions" in body:
        return body.get("instructions")
    msgs = body.get("messages") if api != "openai-responses" else body.get("input")
    if not isinstance(msgs, list):
        return None
    head = [m for m in msgs if isinstance(m, Mapping) and m.get("role") in _INSTRUCTION_ROLES]
    return head or None


def hashes(
    api: str, body: Mapping[str, Any], layout: Layout | None = None
) -> tuple[tuple[str, ...], str | None, str | None]:
    """(item hashes, system prompt hash, tools hash) of a request, from `layout` (the bytes
    `body` came as) or `body`'s msgspec serialization. A body whose bytes the layout cannot
    explain (a duplicate key) is hashed from its parsed form instead."""
    try:
        if layout is None:
            layout = Layout(msgspec.json.encode(body))
        return (
            layout.item_hashes(api, body),
            layout.system_hash(api, body),
            layout.tools_hash(body),
        )
    except JsonSpanError:
        items = tuple(item_hash(i) for i in conversation(api, body))
        return items, part_hash(instructions(api, body)), part_hash(body.get("tools"))


# The longest chain kept for a scope's next request (a 100K-token body has hundreds of items).
_CHAINS_KEPT = 20_000


def common_prefix(a: tuple[str, ...], b: tuple[str, ...]) -> int:
    """How many items `a` and `b` share from the start (compared a slice at a time, at C
    speed, not item by item)."""
    lo, hi = 0, min(len(a), len(b))
    if a[:hi] == b[:hi]:
        return hi
    while lo < hi:  # a[:lo] == b[:lo], and they differ within a[:hi + 1]
        mid = (lo + hi + 1) // 2
        if a[lo:mid] == b[lo:mid]:
            lo = mid
        else:
            hi = mid - 1
    return lo


class SessionTracker:
    """Assigns requests to sessions; remembers each session's last request. Bounded: the oldest
    prefixes (and responses, and sessions' last requests) are forgotten first (a forgotten
    session continues as a new one)."""

    def __init__(self, max_prefixes: int = 50_000, max_sessions: int = 1_024) -> None:
        self.max_prefixes = max_prefixes
        self.max_sessions = max_sessions
        # chain digest -> session id (the id string shared by all of a session's entries)
        self._prefixes: OrderedDict[bytes, str] = OrderedDict()
        self._responses: OrderedDict[str, str] = OrderedDict()  # response id -> session id
        self._last: OrderedDict[str, History] = OrderedDict()
        self._opened = 0  # sessions opened with a first message another session had
        # The last chain taken in each scope (its items and hashes): a conversation's next
        # request repeats its items, whose chain hashes need not be taken again.
        # (root, api) -> (items, chain, the chain's keys)
        self._chains: OrderedDict[
            tuple[str, str], tuple[tuple[str, ...], tuple[str, ...], tuple[bytes, ...]]
        ] = OrderedDict()

    @staticmethod
    def _chain(client: str, api: str, items: Sequence[str]) -> list[str]:
        h = hashlib.sha256(f"{client}\x00{family(api)}".encode()).hexdigest()
        out = []
        for item in items:
            h = hashlib.sha256(f"{h}\x00{item}".encode()).hexdigest()
            out.append(h)
        return out

    def _chained(self, root: str, api: str, items: tuple[str, ...]) -> tuple[str, ...]:
        """`_chain(root, api, items)`, continuing the scope's last chain where `items` begins
        with that chain's items (compared at C speed, a slice at a time)."""
        before, chain, keys = self._chains.pop((root, api), ((), (), ()))
        lo = common_prefix(before, items)
        if lo:
            h, more = chain[lo - 1], []
            for item in items[lo:]:
                h = hashlib.sha256(f"{h}\x00{item}".encode()).hexdigest()
                more.append(h)
            result = chain[:lo] + tuple(more)
        else:
            result = tuple(self._chain(root, api, items))
        keys = keys[:lo] + tuple(self._key(h) for h in result[lo:])
        if len(items) > _CHAINS_KEPT:
            return result  # kept, it would hold hundreds of MB: hashed afresh next time
        self._chains[(root, api)] = (items, result, keys)
        while len(self._chains) > self.max_sessions:
            self._chains.popitem(last=False)
        return result

    def _keys(self, root: str, api: str, chain: tuple[str, ...]) -> tuple[bytes, ...]:
        """The `_key` of each of `chain`'s hashes (the scope's last chain's, kept with it)."""
        kept = self._chains.get((root, api))
        if kept is not None and kept[1] is chain:
            return kept[2]
        return tuple(self._key(h) for h in chain)

    @staticmethod
    def _key(chain_hash: str) -> bytes:
        return bytes.fromhex(chain_hash[:32])

    def identify(
        self,
        api: str,
        body: Mapping[str, Any],
        client: str,
        headers: Mapping[str, str] | None = None,
        layout: Layout | None = None,
    ) -> Match:
        """The session `body` (sent with the key hashing to `client`, and `headers` with
        lower-cased names) continues, or a new one. `layout`: where `body`'s parts sit in the
        bytes it came as (by default, in its msgspec serialization)."""
        items, system, tools = hashes(api, body, layout)
        scope = session_scope(api, body, headers or {})
        root = client + scope
        chain = self._chained(root, api, items)
        self._learn(api, body, chain)
        previous = body.get("previous_response_id") if api == "openai-responses" else None
        if isinstance(previous, str) and previous in self._responses:
            sid = self._responses[previous]
            return Match(
                sid, False, self._last.get(sid), items, system, tools, scope=root, chain=chain
            )
        for depth in range(len(chain), 0, -1):
            key = self._key(chain[depth - 1])
            found = self._prefixes.get(key)
            if found is None:
                continue
            last = self._last.get(found)
            if len(items) == 1 and last is not None and len(last.items) > 1:
                break  # a new conversation opening with the message that one opened with
            self._prefixes.move_to_end(key)
            return Match(found, False, last, items, system, tools, scope=root, chain=chain)
        else:
            seed = chain[0] if chain else self._chain(client + scope, api, ["(empty)"])[0]
            return Match(
                "px-" + seed[:16], True, None, items, system, tools, scope=root, chain=chain
            )
        self._opened += 1
        seed = hashlib.sha256(f"{chain[0]}\x00{self._opened}".encode()).hexdigest()
        return Match("px-" + seed[:16], True, None, items, system, tools, scope=root, chain=chain)

    def _learn(self, api: str, body: Mapping[str, Any], chain: Sequence[str]) -> None:
        """Before a request is matched: a hook for a tracker whose prefixes, histories and
        responses also live elsewhere (`shared.SharedTracker` reads them from the store)."""

    def _learned(self, match: Match, chain: Sequence[str], fresh: Sequence[str]) -> None:
        """After a request is remembered (`fresh`: the chain hashes that named no session or
        another one before): a hook for a tracker that shares what it learned."""

    def remember(
        self,
        match: Match,
        api: str,
        body: Mapping[str, Any],
        client: str,
        headers: Mapping[str, str] | None = None,
    ) -> History:
        """`body` went out as `match.session_id`'s latest request: later ones continue it."""
        scope = session_scope(api, body, headers or {})
        chain = (
            match.chain
            if match.chain and match.scope == client + scope
            else tuple(self._chain(client + scope, api, match.items))
        )
        fresh = []
        prefixes, sid = self._prefixes, match.session_id
        for h, key in zip(chain, self._keys(client + scope, api, chain), strict=True):
            if prefixes.get(key) != sid:
                fresh.append(h)
                prefixes[key] = sid
            prefixes.move_to_end(key)
        while len(self._prefixes) > self.max_prefixes:
            self._prefixes.popitem(last=False)
        count = match.history.requests if match.history else 0
        hist = History(
            items=match.items, system=match.system, tools=match.tools, requests=count + 1
        )
        self._last[match.session_id] = hist
        self._last.move_to_end(match.session_id)
        while len(self._last) > self.max_sessions:
            self._last.popitem(last=False)
        self._learned(match, chain, fresh)
        return hist

    def link_response(self, response_id: str, session_id: str) -> None:
        """A Responses API reply: a later request naming it continues `session_id`. Call it as
        soon as the id is known (`StreamUsage(on_response_id=)`), not after the answer ends."""
        self._responses[response_id] = session_id
        self._responses.move_to_end(response_id)
        while len(self._responses) > self.max_prefixes:
            self._responses.popitem(last=False)
