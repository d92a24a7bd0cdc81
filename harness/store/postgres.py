"""What `prefixlock proxy --store postgresql://...` records, in PostgreSQL (psycopg 3), so that
any number of proxy instances behind a load balancer share one view: the sessions and their
requests (usage, dollars, the guard's causes; not the bodies), and the memory session detection
needs to continue a session whichever instance gets its next request (the prefix chains, each
session's last request as the repairs compare against it, and Responses API ids).

The embedded SQLite store (`store.database.SessionStore`) stays the default; this one holds only
what the proxy writes and `proxy --stats` reads. Tables are created on first use (`proxy_*`).
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterable, Mapping, Sequence
from decimal import Decimal
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import psycopg

    from .records import NewRequest

_SCHEMA = """
CREATE TABLE IF NOT EXISTS proxy_sessions (
    id text PRIMARY KEY,
    created double precision NOT NULL,
    model text NOT NULL,
    api text NOT NULL,
    provider text NOT NULL,
    meta jsonb NOT NULL
);
CREATE TABLE IF NOT EXISTS proxy_requests (
    id bigserial PRIMARY KEY,
    session_id text NOT NULL REFERENCES proxy_sessions (id),
    kind text NOT NULL,
    time double precision NOT NULL,
    api text NOT NULL,
    model text NOT NULL,
    path text NOT NULL,
    input_total bigint NOT NULL,
    cache_read bigint NOT NULL,
    output bigint NOT NULL,
    usage jsonb NOT NULL,
    cost numeric,
    cost_without_cache numeric,
    cache_key text,
    predicted_read bigint,
    cause text,
    rebilled bigint NOT NULL,
    detail text NOT NULL,
    key_hash text NOT NULL DEFAULT '',
    user_name text NOT NULL DEFAULT '',
    agent text NOT NULL DEFAULT ''
);
CREATE INDEX IF NOT EXISTS proxy_requests_session ON proxy_requests (session_id, id);
CREATE INDEX IF NOT EXISTS proxy_requests_user ON proxy_requests (user_name, time);
CREATE INDEX IF NOT EXISTS proxy_requests_key ON proxy_requests (key_hash, time);
CREATE TABLE IF NOT EXISTS proxy_prefixes (chain text PRIMARY KEY, session_id text NOT NULL);
CREATE TABLE IF NOT EXISTS proxy_history (session_id text PRIMARY KEY, history jsonb NOT NULL);
CREATE TABLE IF NOT EXISTS proxy_responses (
    response_id text PRIMARY KEY,
    session_id text NOT NULL
);
"""


def is_url(value: str | None) -> bool:
    return value is not None and value.startswith(("postgresql://", "postgres://"))


class PostgresStore:
    """The proxy's records in PostgreSQL. Thread-safe: one connection, used under a lock."""

    def __init__(self, url: str) -> None:
        from ..errors import ConfigError
        from ..extras import need

        need("psycopg", "postgres", "--store postgresql://")
        import psycopg

        self.url = url
        try:
            self._db: psycopg.Connection[Any] = psycopg.connect(url, autocommit=True)
        except psycopg.Error as exc:
            where = url.split("@")[-1]  # never the password
            why = " ".join(str(exc).split())  # libpq's message spans lines
            raise ConfigError(
                f"cannot connect to PostgreSQL at {where}: {why}", where="--store"
            ) from None
        self._lock = threading.Lock()
        with self._lock:
            # One schema creation at a time, whichever instance starts first.
            self._db.execute("SELECT pg_advisory_lock(7031)")
            try:
                self._db.execute(_SCHEMA)
            finally:
                self._db.execute("SELECT pg_advisory_unlock(7031)")

    def close(self) -> None:
        with self._lock:
            self._db.close()

    def __enter__(self) -> PostgresStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ---- what the proxy writes (the SessionStore methods it calls) -------------------------

    def create_session(
        self,
        session_id: str,
        *,
        model: str,
        api: str,
        provider: str,
        created: float,
        meta: Mapping[str, Any] | None = None,
        **_: Any,
    ) -> None:
        """Register a session; idempotent (two instances may both see its first request)."""
        with self._lock:
            self._db.execute(
                "INSERT INTO proxy_sessions (id, created, model, api, provider, meta) "
                "VALUES (%s, %s, %s, %s, %s, %s) ON CONFLICT (id) DO NOTHING",
                (session_id, created, model, api, provider, json.dumps(dict(meta or {}))),
            )

    def record_request(
        self, session_id: str, request: NewRequest, who: Mapping[str, str] | None = None
    ) -> int:
        """Write one request; `who`: its key hash, user and agent (`proxy.team.Who`)."""
        u = request.usage
        who = who or {}
        with self._lock:
            row = self._db.execute(
                "INSERT INTO proxy_requests (session_id, kind, time, api, model, path, "
                "input_total, cache_read, output, usage, cost, cost_without_cache, cache_key, "
                "predicted_read, cause, rebilled, detail, key_hash, user_name, agent) VALUES "
                "(%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s) "
                "RETURNING id",
                (
                    session_id,
                    request.kind,
                    request.time,
                    request.api,
                    request.model,
                    request.path,
                    u.input_total,
                    u.cache_read,
                    u.output,
                    json.dumps(u.to_dict()),
                    request.cost,
                    request.cost_without_cache,
                    request.cache_key,
                    request.predicted_read,
                    request.cause,
                    request.rebilled,
                    request.detail,
                    who.get("key", ""),
                    who.get("user", ""),
                    who.get("agent", ""),
                ),
            ).fetchone()
        return int(row[0]) if row else 0

    def spent(self, kind: str, name: str, since: float) -> Decimal:
        """Dollars recorded since `since` for the key hash (`kind` "key") or user ("user"),
        by every instance: what a shared budget is checked against."""
        column = {"key": "key_hash", "user": "user_name"}[kind]
        with self._lock:
            row = self._db.execute(
                f"SELECT coalesce(sum(cost), 0) FROM proxy_requests "
                f"WHERE {column} = %s AND time >= %s",
                (name, since),
            ).fetchone()
        return Decimal(row[0]) if row else Decimal(0)

    # ---- what `proxy --stats` reads --------------------------------------------------------

    def stats(self) -> list[dict[str, Any]]:
        """Each proxy session's figures, most recently active first (`proxy --stats` rows)."""
        with self._lock:
            rows = self._db.execute(
                "SELECT s.id, s.model, s.api, count(r.id), coalesce(sum(r.input_total), 0), "
                "coalesce(sum(r.cache_read), 0), coalesce(sum(r.cost), 0), "
                "coalesce(sum(r.cost_without_cache - r.cost), 0), max(r.time) "
                "FROM proxy_sessions s LEFT JOIN proxy_requests r ON r.session_id = s.id "
                "GROUP BY s.id ORDER BY max(r.time) DESC NULLS LAST, s.id"
            ).fetchall()
            breaks = self._db.execute(
                "SELECT session_id, cause, sum(rebilled) FROM proxy_requests "
                "WHERE cause IS NOT NULL GROUP BY session_id, cause"
            ).fetchall()
        by_session: dict[str, dict[str, int]] = {}
        for sid, cause, tokens in breaks:
            by_session.setdefault(sid, {})[cause] = int(tokens)
        return [
            {
                "session_id": sid,
                "model": model,
                "api": api,
                "requests": int(n),
                "hit_rate": round(int(read) / int(total), 4) if total else 0.0,
                "cost": str(Decimal(cost)),
                "saved": str(Decimal(saved)),
                "breaks": by_session.get(sid, {}),
            }
            for sid, model, api, n, total, read, cost, saved, _ in rows
        ]

    def timelines(self, most: int, newest: int) -> dict[str, list[dict[str, Any]]]:
        """The newest `newest` requests (oldest first: time, model, usage, cost, cause) of the
        `most` sessions that re-billed most tokens, by every instance: the proxy dashboard's
        timelines."""
        with self._lock:
            top = self._db.execute(
                "SELECT session_id FROM proxy_requests GROUP BY session_id ORDER BY "
                "sum(rebilled) DESC, coalesce(sum(cost), 0) DESC, count(*) DESC, session_id "
                "LIMIT %s",
                (most,),
            ).fetchall()
            ids = [sid for (sid,) in top]
            rows = self._db.execute(
                "SELECT session_id, time, model, usage, cost, cause FROM (SELECT *, "
                "row_number() OVER (PARTITION BY session_id ORDER BY id DESC) AS newer "
                "FROM proxy_requests WHERE session_id = ANY(%s)) r WHERE newer <= %s "
                "ORDER BY session_id, id",
                (ids, newest),
            ).fetchall()
        out: dict[str, list[dict[str, Any]]] = {sid: [] for sid in ids}
        for sid, time, model, usage, cost, cause in rows:
            out[sid].append(
                {"time": time, "model": model, "usage": usage, "cost": cost, "cause": cause}
            )
        return out

    # ---- session detection's shared memory (proxy.shared.SharedTracker) --------------------

    def prefixes(self, chains: Sequence[str]) -> dict[str, str]:
        """{chain hash: session id} for those of `chains` some instance has seen."""
        if not chains:
            return {}
        with self._lock:
            rows = self._db.execute(
                "SELECT chain, session_id FROM proxy_prefixes WHERE chain = ANY(%s)",
                (list(chains),),
            ).fetchall()
        return {chain: sid for chain, sid in rows}

    def remember_prefixes(self, chains: Iterable[str], session_id: str) -> None:
        with self._lock, self._db.cursor() as cur:
            cur.executemany(
                "INSERT INTO proxy_prefixes (chain, session_id) VALUES (%s, %s) "
                "ON CONFLICT (chain) DO UPDATE SET session_id = excluded.session_id",
                [(c, session_id) for c in chains],
            )

    def history(self, session_id: str) -> dict[str, Any] | None:
        with self._lock:
            row = self._db.execute(
                "SELECT history FROM proxy_history WHERE session_id = %s", (session_id,)
            ).fetchone()
        return None if row is None else dict(row[0])

    def remember_history(self, session_id: str, history: Mapping[str, Any]) -> None:
        with self._lock:
            self._db.execute(
                "INSERT INTO proxy_history (session_id, history) VALUES (%s, %s) "
                "ON CONFLICT (session_id) DO UPDATE SET history = excluded.history",
                (session_id, json.dumps(dict(history))),
            )

    def response_session(self, response_id: str) -> str | None:
        with self._lock:
            row = self._db.execute(
                "SELECT session_id FROM proxy_responses WHERE response_id = %s", (response_id,)
            ).fetchone()
        return None if row is None else str(row[0])

    def link_response(self, response_id: str, session_id: str) -> None:
        with self._lock:
            self._db.execute(
                "INSERT INTO proxy_responses (response_id, session_id) VALUES (%s, %s) "
                "ON CONFLICT (response_id) DO NOTHING",
                (response_id, session_id),
            )
