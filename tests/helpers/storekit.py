"""Set-up shared by the store tests, and a small runner for their subprocesses.

`python -m tests.helpers.storekit run DB URL ID TURNS NOW` (from the repository root) runs TURNS
turns of the scripted session into the store at DB; `python -m tests.helpers.storekit resume DB
URL ID TEXT NOW` resumes session ID in this new process and sends one turn. Both print one JSON
line with what they saw.
"""

from __future__ import annotations

import asyncio
import json
import sqlite3
import sys
from pathlib import Path
from typing import Any

from prefixlock.agent import Agent
from prefixlock.billing.usage import Usage
from prefixlock.clock import ManualClock
from prefixlock.events import UsageReport
from prefixlock.store.database import SessionStore
from prefixlock.store.records import NewRequest
from prefixlock.store.schema import SCHEMA_VERSION
from tests.helpers.guardkit import prefix

API_KEY = "test-key"  # the key the in-process sessions use: caches are per key


def make_agent(db: str, url: str, now: float) -> Agent:
    return Agent(
        prefix(),
        model="claude-opus-4-7",
        api_key=API_KEY,
        base_url=url,
        clock=ManualClock(now),
        store=SessionStore(db),
    )


def bare_session(store: SessionStore, sid: str) -> None:
    """A session row with nothing behind it, for tests that write requests by hand."""
    store.create_session(
        sid,
        model="m",
        api="anthropic",
        provider="anthropic",
        prefix={},
        prefix_fingerprint="f",
        created=0.0,
    )


def bare_request(body: dict[str, Any], at: float = 0.0, usage: Usage | None = None) -> NewRequest:
    """A turn's request to model "m" as a store test writes it by hand."""
    return NewRequest(
        "turn", at, "anthropic", "anthropic", "m", "/v1/messages", body, usage or Usage()
    )


def newer_store(path: Path) -> None:
    """An empty store as a newer prefixlock left it: schema version SCHEMA_VERSION + 1."""
    SessionStore(path).close()
    con = sqlite3.connect(path)
    con.execute("UPDATE schema_version SET version = ?", (SCHEMA_VERSION + 1,))
    con.commit()
    con.close()


def text(i: int) -> str:
    return f"Turn {i}: look at src/app.py and tell me what f{i} does."


async def _run(db: str, url: str, sid: str, turns: int, now: float) -> None:
    async with make_agent(db, url, now).session(sid) as s:
        for i in range(1, turns + 1):
            async for _ in s.send(text(i)):
                pass
            print(json.dumps({"turn": i}), flush=True)


async def _resume(db: str, url: str, sid: str, msg: str, now: float) -> None:
    agent = make_agent(db, url, now)
    async with agent.resume(sid) as s:
        reports = []
        async for e in s.send(msg):
            if isinstance(e, UsageReport):
                reports.append({"read": e.usage.cache_read, "predicted": e.predicted_read})
        print(json.dumps({"turn": s.turn, "reports": reports, "verified": s.resume_verified}))


if __name__ == "__main__":
    cmd, db, url, sid, arg, now = sys.argv[1:7]
    if cmd == "run":
        asyncio.run(_run(db, url, sid, int(arg), float(now)))
    else:
        asyncio.run(_resume(db, url, sid, arg, float(now)))
