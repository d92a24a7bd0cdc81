"""Session detection shared by proxy instances through PostgreSQL (`--store postgresql://...`).

`SharedTracker` is the `SessionTracker` of one instance, with what every instance learned read
from and written to the store around each request: the prefix chains that name a session, its
last request (what the repairs compare the next one against) and Responses API ids. Requests of
one conversation alternating between instances behind a load balancer are then one session, with
one `prompt_cache_key` and the same repairs as through a single instance. A new session's id is
derived from its first request alone, so two instances that see it at once agree on it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ..store.postgres import PostgresStore
from .sessions import History, Match, SessionTracker


class SharedTracker(SessionTracker):
    """A `SessionTracker` whose `_learn` and `_learned` hooks read and write the store."""

    def __init__(self, store: PostgresStore, max_prefixes: int = 200_000) -> None:
        super().__init__(max_prefixes)
        self.store = store

    def _learn(self, api: str, body: Mapping[str, Any], chain: Sequence[str]) -> None:
        known = self.store.prefixes(list(chain))
        sessions = list(dict.fromkeys(known.values()))
        for h, sid in known.items():
            self._prefixes[self._key(h)] = sid
        previous = body.get("previous_response_id") if api == "openai-responses" else None
        if isinstance(previous, str):
            linked = self.store.response_session(previous)
            if linked is not None:
                self._responses[previous] = linked
                if linked not in sessions:
                    sessions.append(linked)
        for sid in sessions:
            doc = self.store.history(sid)
            if doc is not None:
                self._last[sid] = History(
                    items=tuple(doc["items"]),
                    system=doc["system"],
                    tools=doc["tools"],
                    requests=int(doc["requests"]),
                )

    def _learned(self, match: Match, chain: Sequence[str], fresh: Sequence[str]) -> None:
        history = self._last[match.session_id]
        self.store.remember_prefixes(list(fresh), match.session_id)
        self.store.remember_history(
            match.session_id,
            {
                "items": list(history.items),
                "system": history.system,
                "tools": history.tools,
                "requests": history.requests,
            },
        )

    def link_response(self, response_id: str, session_id: str) -> None:
        super().link_response(response_id, session_id)
        self.store.link_response(response_id, session_id)
