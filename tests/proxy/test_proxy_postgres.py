"""Two proxy instances on one PostgreSQL store, requests alternating between them as a load
balancer would send them: one session, one `prompt_cache_key`, the same hit rate as through one
instance, and `proxy --stats` equal to what the upstream reported. A real PostgreSQL server
(`tests.proxy.pgserver`); the tests skip with the reason where it cannot start."""

from __future__ import annotations

import json
import socket
import uuid
from collections.abc import Iterator
from decimal import Decimal
from typing import Any

import httpx2
import pytest

from prefixlock.clock import ManualClock
from prefixlock.emulator import Emulator
from prefixlock.proxy import Proxy, ProxyConfig
from prefixlock.proxy.repair import DEFAULT_FIXES
from prefixlock.proxy.team import Budgets
from prefixlock.store.postgres import PostgresStore
from tests.helpers.cli import run_cli
from tests.proxy import pgserver

psycopg = pytest.importorskip("psycopg", reason="psycopg is not installed (the postgres extra)")

KEY = "sk-team-key"
SYSTEM = "You are a careful coding agent; follow the house style. " * 300
TURNS = 8


@pytest.fixture(scope="module")
def server() -> Iterator[str]:
    running = pgserver.start()
    try:
        url = running.__enter__()
    except pgserver.Unavailable as exc:
        pytest.skip(f"PostgreSQL cannot start here: {exc}")
    try:
        yield url
    finally:
        running.__exit__(None, None, None)


@pytest.fixture
def database(server: str) -> str:
    """A fresh database on the server, for one test."""
    name = "t_" + uuid.uuid4().hex[:12]
    with psycopg.connect(server, autocommit=True) as db:
        db.execute(f"CREATE DATABASE {name}")
    return server.rsplit("/", 1)[0] + "/" + name


def _conversation(
    api: str, urls: list[str], emu: Emulator, proxies: list[Proxy], stamped: bool
) -> None:
    """A client with no cache hints, `TURNS` turns, each sent to the next of `urls` (`stamped`:
    the time in its system prompt, as some agents do; Responses: continued by id)."""
    history: list[dict[str, Any]] = []
    previous = None
    with httpx2.Client(trust_env=False, timeout=60) as c:
        for turn in range(TURNS):
            system = SYSTEM + (f" The time is 10:{turn:02d}." if stamped else "")
            history.append({"role": "user", "content": f"step {turn}: carry on with the task"})
            if api == "anthropic":
                body: dict[str, Any] = {
                    "model": "claude-sonnet-4-6",
                    "max_tokens": 64,
                    "system": system,
                    "messages": history,
                }
                path, headers = "/v1/messages", {"x-api-key": KEY}
            elif api == "openai-responses":
                body = {"model": "gpt-5.4", "instructions": system, "input": history[-1:]}
                if previous is not None:
                    body["previous_response_id"] = previous
                path, headers = "/v1/responses", {"authorization": f"Bearer {KEY}"}
            else:
                body = {"model": "gpt-5.4", "messages": [{"role": "system", "content": system}]}
                body["messages"] += history
                path, headers = "/v1/chat/completions", {"authorization": f"Bearer {KEY}"}
            r = c.post(urls[turn % len(urls)] + path, json=body, headers=headers)
            assert r.status_code == 200, r.text
            doc = r.json()
            if api == "anthropic":
                text = doc["content"][0]["text"]
            elif api == "openai-responses":
                text, previous = "", doc["id"]
            else:
                text = doc["choices"][0]["message"]["content"]
            history.append({"role": "assistant", "content": text})
            emu.clock.advance(20)  # type: ignore[attr-defined]
            for px in proxies:
                # The response id is linked when the answer is accounted: let that happen
                # before the next request (a client's think time, here without waiting).
                px.settle()


def _upstream_totals(emu: Emulator) -> tuple[int, int]:
    """(input tokens, of which read from cache) over what the upstream reported."""
    total = read = 0
    for r in emu.requests:
        u = r.usage or {}
        if "input_tokens_details" in u:  # Responses
            total += u["input_tokens"]
            read += u["input_tokens_details"].get("cached_tokens", 0)
        elif "input_tokens" in u:  # Messages
            cached = u.get("cache_read_input_tokens", 0)
            total += u["input_tokens"] + cached + u.get("cache_creation_input_tokens", 0)
            read += cached
        else:
            total += u.get("prompt_tokens", 0)
            read += (u.get("prompt_tokens_details") or {}).get("cached_tokens", 0)
    return total, read


@pytest.mark.parametrize(
    ("api", "stamped"),
    [
        ("anthropic", False),
        ("anthropic", True),
        ("openai-chat", False),
        ("openai-responses", False),
    ],
)
def test_two_instances_on_one_postgres_are_one_proxy(
    database: str, api: str, stamped: bool
) -> None:
    fix = ProxyConfig(fixes=frozenset(DEFAULT_FIXES))
    # One instance alone, on its own emulator: the figures to match.
    with (
        Emulator.start(clock=ManualClock(1000.0)) as alone_emu,
        Proxy.start(
            ProxyConfig(upstream=alone_emu.base_url, fixes=fix.fixes), clock=alone_emu.clock
        ) as alone,
    ):
        _conversation(api, [alone.base_url], alone_emu, [alone], stamped)
        (one,) = alone.figures()
    with (
        Emulator.start(clock=ManualClock(1000.0)) as emu,
        PostgresStore(database) as store_a,
        PostgresStore(database) as store_b,
        Proxy.start(
            ProxyConfig(upstream=emu.base_url, fixes=fix.fixes), clock=emu.clock, store=store_a
        ) as a,
        Proxy.start(
            ProxyConfig(upstream=emu.base_url, fixes=fix.fixes), clock=emu.clock, store=store_b
        ) as b,
    ):
        _conversation(api, [a.base_url, b.base_url], emu, [a, b], stamped)
        a.settle()
        b.settle()
        assert a.errors == [] and b.errors == []
        keys = {json.dumps(r.body.get("prompt_cache_key")) for r in emu.requests}
        total, read = _upstream_totals(emu)
        pages = [a.dashboard(), b.dashboard()]  # either instance shows the shared sessions
    assert len(keys) == 1  # one key for the session, from either instance
    ran = run_cli("proxy", "--stats", "--json", "--store", database)
    assert ran.returncode == 0, ran.stderr
    (session,) = json.loads(ran.stdout)  # one session, whichever instance answered
    assert session["requests"] == TURNS
    assert session["hit_rate"] == round(read / total, 4)  # --stats is the upstream's usage
    assert session["hit_rate"] == one["hit_rate"]  # as through one instance
    assert session["cost"] == one["cost"]
    assert stamped or session["hit_rate"] > 0.5
    for page in pages:
        assert session["session_id"] in page and page.count("<td>px-") == 1
        assert f"{session['hit_rate']:.1%}" in page and f"${Decimal(session['cost']):.4f}" in page
    # The timelines too are every instance's requests, read from the store: the same on both
    # pages, a bar for each of the session's requests (each instance answered only half).
    drawn = [page.partition("<h2>Timelines</h2>")[2] for page in pages]
    assert drawn[0] and drawn[0] == drawn[1]
    assert f'{session["session_id"]} <span class="note">({TURNS:,} requests)' in drawn[0]


def test_an_unreachable_postgres_is_one_line_and_exit_2() -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]  # nothing listens here once closed
    url = f"postgresql://team:secret@127.0.0.1:{port}/proxy"
    ran = run_cli("proxy", "--stats", "--store", url)
    assert ran.returncode == 2
    (line,) = ran.stderr.strip().splitlines()
    assert "--store" in line and f"127.0.0.1:{port}/proxy" in line
    assert "secret" not in line  # the password is never printed


def test_a_budget_counts_every_instances_spend(database: str) -> None:
    limit = Decimal("0.02")
    budgets = Budgets(per_user=limit)
    with (
        Emulator.start(clock=ManualClock(1000.0)) as emu,
        PostgresStore(database) as store_a,
        PostgresStore(database) as store_b,
        Proxy.start(
            ProxyConfig(upstream=emu.base_url), clock=emu.clock, store=store_a, budgets=budgets
        ) as a,
        Proxy.start(
            ProxyConfig(upstream=emu.base_url), clock=emu.clock, store=store_b, budgets=budgets
        ) as b,
        httpx2.Client(trust_env=False, timeout=60) as c,
    ):
        statuses = []
        for turn in range(20):
            spent = store_a.spent("user", "alice", 0.0)
            body = {
                "model": "claude-sonnet-4-6",
                "max_tokens": 16,
                "system": SYSTEM,
                "messages": [{"role": "user", "content": f"question {turn}"}],
            }
            headers = {"x-api-key": KEY, "x-prefixlock-user": "alice"}
            r = c.post((a, b)[turn % 2].base_url + "/v1/messages", json=body, headers=headers)
            statuses.append(r.status_code)
            # Refused exactly once the two instances together have spent the budget.
            assert r.status_code == (429 if spent >= limit else 200)
            a.settle()
            b.settle()
            if r.status_code == 429:
                break
        assert statuses[-1] == 429
        # Neither instance alone had spent it: per-instance budgets would have let it pass.
        for px in (a, b):
            assert px.team.spent("user", "alice", emu.clock.now()) < limit
