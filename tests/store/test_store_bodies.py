"""The store keeps exact bodies without quadratic growth, exports traces, never keeps keys."""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

from prefixlock.canonical import canonical_bytes
from prefixlock.store.database import SessionStore
from prefixlock.store.errors import StoreError, UnknownSessionError
from tests.helpers.guardkit import advance, agent, start_emulator
from tests.helpers.storekit import bare_request, bare_session, newer_store


async def _session(
    tmp_path: Path, turns: int, key: str = "test-key"
) -> tuple[str, list[Mapping[str, Any]]]:
    db = str(tmp_path / "s.sqlite")
    with start_emulator() as emu:
        a = agent(emu, store=SessionStore(db))
        a._api_key = key  # a distinctive key, to look for it in the file
        async with a.session("s1") as s:
            for i in range(turns):
                async for _ in s.send(f"Turn {i}: what does f{i} do?"):
                    pass
                advance(emu, 10)
            bodies = [r.body for r in s.requests]
    return db, bodies


async def test_bodies_round_trip_exactly_and_storage_grows_linearly(tmp_path: Path) -> None:
    db, bodies = await _session(tmp_path, 40)
    with SessionStore(db, read_only=True) as store:
        stored = [r.body for r in store.requests("s1")]
        stats = store.stats()
    assert [canonical_bytes(b) for b in stored] == [canonical_bytes(b) for b in bodies]
    sent = sum(len(canonical_bytes(b)) for b in bodies)
    last = len(canonical_bytes(bodies[-1]))
    kept = stats["blob_bytes"] + stats["skeleton_bytes"]
    # 80 requests re-send the context each time (quadratic); the store keeps each part ~once.
    assert sent > 30 * last
    assert kept < 3 * last, (kept, last, sent)


async def test_export_writes_the_trace_format(tmp_path: Path) -> None:
    db, bodies = await _session(tmp_path, 3)
    out = tmp_path / "trace.jsonl"
    with SessionStore(db, read_only=True) as store, out.open("w") as fh:
        n = store.export_jsonl("s1", fh)
    lines = [json.loads(x) for x in out.read_text().splitlines()]
    assert n == len(lines) == len(bodies) == 6
    keys = {
        "session_id",
        "seq",
        "time",
        "provider",
        "api",
        "model",
        "path",
        "body",
        "usage",
        "raw_usage",
        "cost",
        "cache_key",
    }
    for i, (line, body) in enumerate(zip(lines, bodies, strict=True)):
        assert set(line) == keys and line["seq"] == i and line["session_id"] == "s1"
        assert canonical_bytes(line["body"]) == canonical_bytes(body)
        assert line["provider"] == "anthropic" and line["path"] == "/v1/messages"
        assert float(line["cost"]) > 0 and set(line["usage"]) >= {"cache_read", "output"}


async def test_api_keys_never_reach_the_store(tmp_path: Path) -> None:
    key = "sk-ant-very-secret-0123456789"
    await _session(tmp_path, 2, key=key)
    for f in tmp_path.iterdir():
        assert key.encode() not in f.read_bytes(), f.name


def test_newer_schema_and_garbage_are_refused_untouched(tmp_path: Path) -> None:
    db = tmp_path / "new.sqlite"
    newer_store(db)
    before = db.read_bytes()
    with pytest.raises(StoreError, match="newer prefixlock"):
        SessionStore(db)
    assert db.read_bytes() == before
    junk = tmp_path / "junk.sqlite"
    junk.write_bytes(b"this is not a database at all" * 100)
    with pytest.raises(StoreError, match="not a readable"):
        SessionStore(junk)
    assert junk.read_bytes() == b"this is not a database at all" * 100
    with pytest.raises(UnknownSessionError), SessionStore(tmp_path / "ok.sqlite") as store:
        store.load("nope")


async def test_the_cause_of_each_miss_is_stored(tmp_path: Path) -> None:
    from tests.helpers.guardkit import grep

    db = str(tmp_path / "s.sqlite")
    with start_emulator() as emu:
        async with agent(emu, store=SessionStore(db)).session("c") as s:
            for i in range(2):
                async for _ in s.send(f"Turn {i}"):
                    pass
            s.change_tools(add=[grep], policy="allow")
            async for _ in s.send("with grep"):
                pass
            advance(emu, 400)
            async for _ in s.send("after a pause"):
                pass
    with SessionStore(db, read_only=True) as store:
        causes = [(r.turn, r.cause) for r in store.requests("c") if r.cause]
        rec = store.session("c")
    assert causes == [(3, "tools"), (4, "ttl")]
    assert rec.epoch == 1  # the tool change moved the session to a new prefix


async def test_a_store_path_is_enough(tmp_path: Path) -> None:
    path = tmp_path / "by-path.sqlite"
    with start_emulator() as emu:
        a = agent(emu, store=str(path))
        async with a.session("p") as s:
            async for _ in s.send("hello"):
                pass
        async with a.session(resume="p") as again:
            assert again.turn == 1 and again.resume_verified
    with SessionStore(path, read_only=True) as store:
        assert store.session("p").turns == 1


def test_the_store_can_be_used_from_another_thread(tmp_path: Path) -> None:
    import threading

    from prefixlock.billing.usage import Usage

    store = SessionStore(tmp_path / "t.sqlite")
    bare_session(store, "t")
    errors: list[BaseException] = []

    def write(n: int) -> None:
        try:
            for i in range(5):
                req = bare_request(
                    {"messages": [{"role": "user", "content": f"{n}-{i}"}]},
                    float(i),
                    Usage(1, 0, 0, 0, 1),
                )
                store.record_turn(
                    "t", requests=[req], messages=[], first_index=0, model="m", time=float(i)
                )
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=write, args=(n,)) for n in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    assert store.session("t").turns == 15 and len(list(store.requests("t"))) == 15
    store.close()


async def test_resume_after_a_switch_continues_on_the_new_model(tmp_path: Path) -> None:
    db = tmp_path / "sw.sqlite"
    with start_emulator() as emu:
        a = agent(emu, store=SessionStore(db))
        async with a.session("sw") as s:
            async for _ in s.send("one"):
                pass
            s.switch_model("claude-sonnet-4-6", policy="allow")
            async for _ in s.send("two"):
                pass
        async with a.resume("sw") as again:
            assert again.model == "claude-sonnet-4-6" and again.resume_verified
            reports = [e async for e in again.send("three") if hasattr(e, "usage")]
    assert reports[0].usage.cache_read > 0


def _long_body_store(path: Path) -> list[dict[str, Any]]:
    from prefixlock.billing.usage import Usage

    # More messages than one blob query asks for, with repeats (the same short answer).
    messages = [
        {"role": "user" if i % 2 == 0 else "assistant", "content": "ok" if i % 7 == 0 else f"m{i}"}
        for i in range(1_203)
    ]
    with SessionStore(path) as store:
        bare_session(store, "long")
        body = {"model": "m", "max_tokens": 5, "messages": messages}
        req = bare_request(body, 0.0, Usage(1, 2, 3, 0, 4))
        store.record_turn(
            "long", requests=[req], messages=messages, first_index=0, model="m", time=0.0
        )
    return messages


def test_long_bodies_and_transcripts_are_read_back_whole(tmp_path: Path) -> None:
    messages = _long_body_store(tmp_path / "s.sqlite")
    with SessionStore(tmp_path / "s.sqlite", read_only=True) as store:
        loaded = store.load("long")
        assert loaded.messages == messages
        assert loaded.last_request is not None
        body = loaded.last_request.body
        assert body["messages"] == messages
        # A repeated blob comes back as separate values: changing one leaves the other.
        body["messages"][0]["content"] = "changed"
        assert body["messages"][7]["content"] == "ok"


def test_a_missing_blob_is_a_clear_error(tmp_path: Path) -> None:
    import sqlite3

    db = tmp_path / "s.sqlite"
    _long_body_store(db)
    with sqlite3.connect(db) as con:
        con.execute("DELETE FROM blobs WHERE rowid = (SELECT MAX(rowid) FROM blobs)")
    with SessionStore(db, read_only=True) as store, pytest.raises(StoreError) as err:
        store.load("long")
    assert "missing content blob" in str(err.value) and err.value.where == str(db)


async def test_what_a_writing_store_keeps_between_requests_is_bounded(
    tmp_path: Path,
) -> None:
    """A long session's newest request names every message it sends; the store kept those
    names between writes (each body is a delta on the one before) as SHA-256 digests, 32 bytes
    a message for the chat's life. It keeps the digests of the newest `TAIL` only (the older
    items are the previous request's own, known by the recipe), however long the session
    grows; every body still comes back exact, and each row adds only the turn's items."""
    import sqlite3

    from prefixlock.store.bodies import TAIL

    db = str(tmp_path / "s.sqlite")
    turns = TAIL  # 2 messages a turn: the list outgrows the kept digests
    with start_emulator() as emu:
        store = SessionStore(db)
        a = agent(emu, store=store)
        async with a.session("s1") as s:
            sent_bodies = []
            for i in range(turns):
                before = len(s.ledger)
                async for _ in s.send(f"Turn {i}: what does f{i} do?"):
                    pass
                for r in s.requests[before - len(s.ledger) :]:  # the turn's requests
                    sent_bodies.append(canonical_bytes(r.body))
                assert not dict(store._refs_cache)  # no request's whole lists
                ((_, key, recipe, first, tail, others),) = store._refs_cache.sent.values()
                assert key == "messages" and len(tail) == 32 * (len(recipe) - first)
                assert len(tail) <= 32 * TAIL and set(others) <= {"tools", "system"}
            assert len(s.requests[-1].body["messages"]) > TAIL
    with SessionStore(db, read_only=True) as reader:
        stored = [canonical_bytes(r.body) for r in reader.requests("s1")]
    assert stored == sent_bodies
    con = sqlite3.connect(db)
    rows = [json.loads(k) for (k,) in con.execute("SELECT skeleton FROM requests ORDER BY seq")]
    con.close()
    # Past the first two (whose tools and system differ), each adds the turn's two messages
    # and the two before them whose marks moved, as the whole list compared did.
    deltas = [row["lists"]["messages"] for row in rows[2:]]
    assert [d["keep"] for d in deltas] == list(range(1, 2 * len(deltas), 2))
    assert {len(d["add"]) for d in deltas} == {4}


def test_writing_a_long_request_passes_through_no_text_for_each_message(tmp_path: Path) -> None:
    """A long session's request names every message it sends: the write compares its lists
    with the previous request's as packed digests and writes out only the new hashes as text.
    Its passing peak was 438 bytes a message (a hex string for each hash, this request's and
    the previous one's, and a bytes object each to pack them): it grew with the conversation
    at every request, in objects small enough for the allocator's arenas."""
    import tracemalloc

    from prefixlock.store.records import NewRequest

    n = 3000
    messages = [
        {"role": "user", "content": [{"type": "text", "text": f"turn {i}"}]} for i in range(n)
    ]

    def request(count: int) -> NewRequest:
        body = {"model": "m", "messages": messages[:count]}
        return bare_request(body)

    with SessionStore(tmp_path / "s.sqlite") as store:
        bare_session(store, "p")
        store.record_request("p", request(n - 1))
        tracemalloc.start()
        try:
            before = tracemalloc.get_traced_memory()[0]
            store.record_request("p", request(n))
            peak = tracemalloc.get_traced_memory()[1] - before
        finally:
            tracemalloc.stop()
        (row,) = store._db.execute("SELECT skeleton FROM requests WHERE seq=1").fetchall()
    written = json.loads(row[0])["lists"]["messages"]
    assert written["keep"] == n - 1 and len(written["add"]) == 1
    assert peak < 100 * n, peak / n


def test_a_body_message_held_as_its_bytes_is_stored_as_the_dict_it_stands_for() -> None:
    from prefixlock.providers.wire_message import WireMessage
    from prefixlock.store import blobs
    from prefixlock.transcript import Message, tool_use_block

    m = Message.assistant(
        [{"type": "text", "text": 'h\u00e9 "q"'}, tool_use_block("t1", "f", {"z": 1, "a": [2]})]
    )
    wire = WireMessage(m)
    assert blobs.ordered_bytes(wire) == blobs.ordered_bytes(dict(wire))
    assert blobs.ordered_bytes([wire]) == blobs.ordered_bytes([dict(wire)])


def test_a_body_message_that_is_not_plain_json_is_stored_as_before() -> None:
    # A set in a tool's input: the message holds its blocks as given (its JSON would not give
    # them back), the wire encoder refuses it, and the store's encoder writes it as a list.
    from prefixlock.providers.wire_message import WireMessage
    from prefixlock.store import blobs
    from prefixlock.transcript import Message, tool_use_block

    m = Message.assistant([tool_use_block("t1", "f", {"tags": {"b", "a"}})])
    wire = WireMessage(m)
    assert blobs.ordered_bytes(wire) == blobs.ordered_bytes(dict(wire))
    assert b'"tags":["a","b"]' in blobs.ordered_bytes(wire)
    # What neither encoder takes fails as it did (a NaN).
    nan = WireMessage(Message.user([{"type": "text", "text": "x", "score": float("nan")}]))
    with pytest.raises(ValueError):
        blobs.ordered_bytes(nan)


async def test_a_session_given_back_leaves_nothing_for_its_next_write(tmp_path: Path) -> None:
    """What the store keeps between writes is for the session's next request: once the session
    is closed (its lease given back: a finished subagent's, a chat's previous session) it goes,
    rather than staying until 256 other sessions have written. A session resumed afterwards
    reads its last request back and its bodies still come back exact."""
    db = str(tmp_path / "s.sqlite")
    with start_emulator() as emu:
        store = SessionStore(db)
        a = agent(emu, store=store)
        for sid in ("s1", "s2"):
            async with a.session(sid) as s:
                for i in range(3):
                    async for _ in s.send(f"Turn {i}: what does f{i} do?"):
                        pass
                assert sid in store._refs_cache.sent  # kept while the session writes
            assert sid not in store._refs_cache.sent
            assert not [k for k in store._refs_cache if k[0] == sid]
        async with a.session(resume="s1") as s:
            async for _ in s.send("And f9?"):
                pass
            sent = [canonical_bytes(r.body) for r in s.requests]
    with SessionStore(db, read_only=True) as reader:
        stored = [canonical_bytes(r.body) for r in reader.requests("s1")]
    assert stored[-len(sent) :] == sent
