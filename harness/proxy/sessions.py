"""Which session a request through the proxy belongs to, told from the request alone.

Pure. A client that sets no session id still sends its whole conversation on every request, so a
session is the chain of its messages: a request continues the session whose earlier request's
messages are the longest prefix of its own. The chain starts from a hash of the client's key
(never the key: the proxy hashes it before anything else sees it), so two keys never share a
session. System prompts and tools are left out of the chain on purpose: a client that stamps the
time into its system prompt or shuffles its tools still has one conversation, which is what the
repairs and the figures need to see. Responses API requests that continue a stored response
(`previous_response_id`) belong to that response's session.
"""

from __future__ import annotations

import hashlib
from collections import OrderedDict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..canonical import canonical_bytes

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


class SessionTracker:
    """Assigns requests to sessions; remembers each session's last request. Bounded: the oldest
    prefixes are forgotten first (a forgotten session continues as a new one)."""

    def __init__(self, max_prefixes: int = 200_000) -> None:
        self.max_prefixes = max_prefixes
        self._prefixes: OrderedDict[str, str] = OrderedDict()  # chain hash -> session id
        self._responses: OrderedDict[str, str] = OrderedDict()  # response id -> session id
        self._last: dict[str, History] = {}

    @staticmethod
    def _chain(client: str, api: str, items: Sequence[str]) -> list[str]:
        h = hashlib.sha256(f"{client}\x00{family(api)}".encode()).hexdigest()
        out = []
        for item in items:
            h = hashlib.sha256(f"{h}\x00{item}".encode()).hexdigest()
            out.append(h)
        return out

    def identify(self, api: str, body: Mapping[str, Any], client: str) -> Match:
        """The session `body` (sent with the key hashing to `client`) continues, or a new one."""
        items = tuple(item_hash(i) for i in conversation(api, body))
        previous = body.get("previous_response_id") if api == "openai-responses" else None
        if isinstance(previous, str) and previous in self._responses:
            sid = self._responses[previous]
            return Match(sid, False, self._last.get(sid), items)
        chain = self._chain(client, api, items)
        for h in reversed(chain):
            found = self._prefixes.get(h)
            if found is not None:
                self._prefixes.move_to_end(h)
                return Match(found, False, self._last.get(found), items)
        seed = chain[0] if chain else self._chain(client, api, ["(empty)"])[0]
        return Match("px-" + seed[:16], True, None, items)

    def remember(self, match: Match, api: str, body: Mapping[str, Any], client: str) -> History:
        """`body` went out as `match.session_id`'s latest request: later ones continue it."""
        for h in self._chain(client, api, match.items):
            self._prefixes[h] = match.session_id
            self._prefixes.move_to_end(h)
        while len(self._prefixes) > self.max_prefixes:
            self._prefixes.popitem(last=False)
        count = match.history.requests if match.history else 0
        tools = body.get("tools")
        hist = History(
            items=match.items,
            system=part_hash(instructions(api, body)),
            tools=part_hash(tools),
            requests=count + 1,
        )
        self._last[match.session_id] = hist
        return hist

    def link_response(self, response_id: str, session_id: str) -> None:
        """A Responses API reply: a later request naming it continues `session_id`."""
        self._responses[response_id] = session_id
        while len(self._responses) > self.max_prefixes:
            self._responses.popitem(last=False)
