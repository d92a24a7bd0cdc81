"""The proxy's bookkeeping stays bounded however many requests and sessions pass (the guards
kept each session's last parsed body, the store's refs cache grew with every write, the maps
per session were never evicted), and session identity holds: a Responses id is linked while
its stream is still running, and two conversations of one key that open with the same message
are two sessions."""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path

from prefixlock.billing.prices import PriceTable
from prefixlock.proxy.observe import Observer, StreamUsage, wire_request
from prefixlock.proxy.sessions import SessionTracker
from prefixlock.store.database import SessionStore
from prefixlock.store.records import NewRequest


def _body(i: int, turns: int = 1) -> dict[str, object]:
    msgs: list[dict[str, str]] = []
    for t in range(turns):
        msgs.append({"role": "user", "content": f"session {i} turn {t} " + "x" * 400})
        if t < turns - 1:
            msgs.append({"role": "assistant", "content": f"answer {t}"})
    return {"model": "claude-sonnet-4-6", "max_tokens": 10, "messages": msgs}


def test_guards_figures_and_sessions_are_bounded() -> None:
    tracker = SessionTracker(max_prefixes=500, max_sessions=300)
    observer = Observer(PriceTable.default(), max_sessions=100)
    for i in range(2_000):
        body = _body(i)
        m = tracker.identify("anthropic", body, "c")
        tracker.remember(m, "anthropic", body, "c")
        req = wire_request("anthropic", "/v1/messages", body)
        pred = observer.predict(m.session_id, req, float(i))
        observer.observe(m.session_id, "c", req, pred, {"input_tokens": 120}, float(i))
    assert len(observer._guards) == 100 and len(observer.sessions) == 100
    assert len(tracker._last) == 300 and len(tracker._prefixes) == 500
    # The most recent sessions are the ones kept.
    assert list(observer.sessions)[-1] == m.session_id


def test_the_store_refs_cache_stays_small_over_many_sessions(tmp_path: Path) -> None:
    from prefixlock.billing.usage import Usage

    with SessionStore(tmp_path / "s.sqlite") as store:
        for i in range(400):
            sid = f"s{i}"
            store.create_session(
                sid,
                model="m",
                api="anthropic",
                provider="anthropic",
                prefix={"system": [], "tools": []},
                prefix_fingerprint="proxy",
                created=0.0,
            )
            for t in range(3):
                store.record_request(
                    sid,
                    NewRequest(
                        kind="turn",
                        time=float(t),
                        provider="anthropic",
                        api="anthropic",
                        model="m",
                        path="/v1/messages",
                        body=_body(i, t + 1),
                        usage=Usage(uncached_input=10),
                        cost=Decimal(0),
                        cost_without_cache=Decimal(0),
                    ),
                )
        assert len(store._refs_cache) <= 256
        # Bodies still come back exactly (the cache is only a shortcut).
        assert [r.body for r in store.requests("s7")][-1] == _body(7, 3)


def test_a_response_id_is_linked_while_its_stream_runs() -> None:
    tracker = SessionTracker()
    body = {"model": "gpt-5.4", "input": [{"role": "user", "content": "hello"}]}
    m = tracker.identify("openai-responses", body, "c")
    tracker.remember(m, "openai-responses", body, "c")
    reading = StreamUsage(
        "openai-responses", on_response_id=lambda rid: tracker.link_response(rid, m.session_id)
    )
    reading.feed(b'event: response.created\ndata: {"type":"response.created","response":')
    reading.feed(b'{"id":"resp_1","status":"in_progress"}}\n\n')
    # The answer has not ended (no usage yet): the next turn already finds its session.
    nxt = {"model": "gpt-5.4", "previous_response_id": "resp_1", "input": "and then?"}
    assert reading.raw is None
    assert tracker.identify("openai-responses", nxt, "c").session_id == m.session_id


def test_two_conversations_opening_with_one_message_are_two_sessions() -> None:
    tracker = SessionTracker()
    first = {"model": "m", "messages": [{"role": "user", "content": "Fix the tests."}]}
    a = tracker.identify("anthropic", first, "c")
    tracker.remember(a, "anthropic", first, "c")
    longer = {
        "model": "m",
        "messages": [
            *first["messages"],
            {"role": "assistant", "content": "Done."},
            {"role": "user", "content": "Thanks."},
        ],
    }
    a2 = tracker.identify("anthropic", longer, "c")
    assert a2.session_id == a.session_id
    tracker.remember(a2, "anthropic", longer, "c")
    b = tracker.identify("anthropic", first, "c")  # another conversation, same opening
    assert b.new and b.session_id != a.session_id
    tracker.remember(b, "anthropic", first, "c")
    retry = tracker.identify("anthropic", first, "c")  # that one's retry stays in it
    assert retry.session_id == b.session_id


def test_the_conversations_own_ids_keep_sessions_apart() -> None:
    tracker = SessionTracker()
    for user in ("alice", "bob"):
        body = {
            "model": "m",
            "metadata": {"user_id": user},
            "messages": [{"role": "user", "content": "Same opening."}],
        }
        m = tracker.identify("anthropic", body, "c")
        assert m.new, user
        tracker.remember(m, "anthropic", body, "c")
    headers = {"x-session-id": "one"}
    body = {"model": "m", "messages": [{"role": "user", "content": "Hi."}]}
    m1 = tracker.identify("anthropic", body, "c", headers)
    tracker.remember(m1, "anthropic", body, "c", headers)
    m2 = tracker.identify("anthropic", body, "c", {"x-session-id": "two"})
    assert m2.new and m2.session_id != m1.session_id
