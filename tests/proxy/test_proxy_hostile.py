"""Probes of tests/benchmarks/proxy_probes.py that failed against the `prefixlock proxy` process,
pinned here against a real socket: another HTTP major version is answered 505, a body refused
413 closes the connection at once (the client need not send the rest), a client that hangs up
mid-stream leaves a row with the input the stream had already shown, a Responses id in a whole
(not streamed) answer is linked before the client has it, and an accounting failure is counted,
logged in one line and shown on /metrics."""

from __future__ import annotations

import json
import socket
import threading
import time
from pathlib import Path

import httpx2

from prefixlock.clock import ManualClock
from prefixlock.proxy import Proxy, ProxyConfig
from prefixlock.proxy.repair import parse_fixes
from prefixlock.store.database import SessionStore
from tests.proxy.exchange import BODY, KEY, OK
from tests.proxy.rawupstream import RawUpstream, whole


def _read_until_closed(sock: socket.socket, timeout: float) -> tuple[bytes, bool]:
    """(what came, whether the proxy closed the connection within `timeout`)."""
    sock.settimeout(timeout)
    data = b""
    while True:
        try:
            got = sock.recv(65536)
        except TimeoutError:
            return data, False
        except ConnectionResetError:
            return data, True
        if not got:
            return data, True
        data += got


def test_another_http_major_version_is_answered_505() -> None:
    with (
        RawUpstream(whole(200, OK)) as up,
        Proxy.start(ProxyConfig(upstream=up.url), clock=ManualClock()) as px,
        socket.create_connection(("127.0.0.1", px.port)) as s,
    ):
        s.sendall(b"GET /v1/models HTTP/9.9\r\nhost: x\r\n\r\n")
        reply, closed = _read_until_closed(s, 5)
        assert reply.startswith(b"HTTP/1.1 505 ") and closed
        assert up.requests == []


def test_a_body_refused_413_closes_the_connection_at_once() -> None:
    with (
        RawUpstream(whole(200, OK)) as up,
        Proxy.start(ProxyConfig(upstream=up.url), clock=ManualClock()) as px,
        socket.create_connection(("127.0.0.1", px.port)) as s,
    ):
        s.sendall(
            b"POST /v1/messages HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\n"
            b"content-length: 50000000\r\n\r\n"
        )
        start = time.monotonic()
        reply, closed = _read_until_closed(s, 5)
        assert reply.startswith(b"HTTP/1.1 413 ") and b"connection: close" in reply
        assert closed and time.monotonic() - start < 5


def test_a_hang_up_mid_stream_records_the_input_the_stream_showed(tmp_path: Path) -> None:
    start = {
        "type": "message_start",
        "message": {
            "id": "msg_1",
            "model": "claude-sonnet-4-6",
            "usage": {"input_tokens": 2440, "output_tokens": 1},
        },
    }
    gone = threading.Event()

    def slow(conn: socket.socket, head: bytes, body: bytes) -> None:
        conn.sendall(b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\n\r\n")
        conn.sendall(b"event: message_start\ndata: " + json.dumps(start).encode() + b"\n\n")
        while not gone.wait(0.05):
            conn.sendall(b'event: ping\ndata: {"type": "ping"}\n\n')

    store = SessionStore(tmp_path / "s.sqlite")
    try:
        with (
            RawUpstream(slow) as up,
            Proxy.start(ProxyConfig(upstream=up.url), clock=ManualClock(), store=store) as px,
        ):
            body = json.dumps(json.loads(BODY) | {"stream": True}).encode()
            with socket.create_connection(("127.0.0.1", px.port)) as client:
                client.sendall(
                    b"POST /v1/messages HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\n"
                    + f"x-api-key: {KEY}\r\ncontent-length: {len(body)}\r\n\r\n".encode()
                    + body
                )
                got = b""
                while b"ping" not in got:
                    got += client.recv(65536)
            px.settle()  # the exchange ends as the proxy sees the hang-up, and is accounted
            gone.set()
            (session,) = store.sessions()
            (row,) = store.usage_rows(session.id)
        assert row.kind == "abandoned" and row.usage.input_total == 2440
    finally:
        store.close()


def test_a_responses_id_in_a_whole_answer_is_linked_before_the_client_has_it() -> None:
    answers = iter(range(100))

    def answer(conn: socket.socket, head: bytes, body: bytes) -> None:
        doc = {
            "id": f"resp_{next(answers)}",
            "object": "response",
            "model": "gpt-5.4",
            "output": [],
            "usage": {"input_tokens": 2000, "output_tokens": 3},
        }
        whole(200, json.dumps(doc).encode())(conn, head, body)

    blocked = threading.Event()
    with (
        RawUpstream(answer) as up,
        Proxy.start(ProxyConfig(upstream=up.url, fixes=parse_fixes("")), clock=ManualClock()) as px,
        httpx2.Client(trust_env=False) as c,
    ):
        # The accounting worker is held back: the link must not wait for it.
        px._worker.submit(blocked.wait, 30)
        previous = None
        for turn in range(3):
            doc: dict[str, object] = {"model": "gpt-5.4", "input": f"turn {turn} " + "y" * 3000}
            if previous is not None:
                doc["previous_response_id"] = previous
            r = c.post(
                px.openai_base_url + "/responses",
                json=doc,
                headers={"authorization": f"Bearer {KEY}"},
            )
            previous = r.json()["id"]
        blocked.set()
        px.settle()
        assert len({e.session_id for e in px.exchanges}) == 1


def test_a_store_that_cannot_be_written_is_counted_and_said_in_one_line(tmp_path: Path) -> None:
    said: list[str] = []
    store = SessionStore(tmp_path / "s.sqlite")
    try:
        with (
            RawUpstream(whole(200, OK)) as up,
            Proxy.start(
                ProxyConfig(upstream=up.url), clock=ManualClock(), store=store, on_error=said.append
            ) as px,
            httpx2.Client(trust_env=False) as c,
        ):
            (pages,) = store._db.execute("PRAGMA page_count").fetchone()
            store._db.execute(f"PRAGMA max_page_count = {pages}")  # the disk is full
            for i in range(5):
                doc = json.loads(BODY) | {"system": f"conversation {i} " + "z" * 20_000}
                r = c.post(px.base_url + "/v1/messages", json=doc, headers={"x-api-key": KEY})
                assert r.status_code == 200 and r.content == OK  # the client has its answer
            px.settle()
            assert px.error_count == 5 and len(px.errors) == 5
            assert len(said) == 5 and all("\n" not in line for line in said)
            assert "could not record a request" in said[0] and "full" in said[0]
            metrics = c.get(px.base_url + "/metrics").text
            assert "prefixlock_proxy_accounting_errors_total 5.0" in metrics
            # The figures go on without the store.
            assert sum(f["requests"] for f in px.figures()) == 5
    finally:
        store.close()
