"""The proxy's HTTP edges, each against a real socket: `Expect: 100-continue` answered at once,
streams with CRLF line ends read for usage, limits applied before the body is read (413, 431),
malformed HTTP and unreadable JSON answered 400, an upstream that stalls answered 504 naming it,
slow and idle clients timed out, and an answer larger than any buffer relayed whole."""

from __future__ import annotations

import json
import socket
import threading
from collections.abc import Iterator
from typing import Any

import httpx2
import pytest

from prefixlock.clock import ManualClock
from prefixlock.proxy import Proxy, ProxyConfig
from prefixlock.proxy.httpserver import _httptools_protocol
from prefixlock.proxy.repair import parse_fixes
from tests.proxy.exchange import BODY, KEY, OK
from tests.proxy.looptime import Loops
from tests.proxy.rawupstream import RawUpstream, whole

# Both request parsers the server runs on: httptools (C, when installed) and h11 (the fallback).
PARSERS = ["h11"] + (["httptools"] if _httptools_protocol() is not None else [])


@pytest.fixture
def upstream() -> Iterator[RawUpstream]:
    with RawUpstream(whole(200, OK)) as u:
        yield u


def _proxy(url: str, **config: Any) -> Proxy:
    return Proxy.start(ProxyConfig(upstream=url, **config), clock=ManualClock(1000.0))


def _read_reply(sock: socket.socket, timeout: float = 10.0) -> bytes:
    """Everything the proxy sends until it closes the connection."""
    sock.settimeout(timeout)
    data = b""
    while True:
        try:
            got = sock.recv(65536)
        except (ConnectionResetError, TimeoutError):
            return data
        if not got:
            return data
        data += got


def _head(path: str, body_len: int, extra: str = "") -> bytes:
    return (
        f"POST {path} HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\n"
        f"x-api-key: {KEY}\r\ncontent-length: {body_len}\r\n{extra}\r\n"
    ).encode()


@pytest.mark.parametrize("parser", PARSERS)
def test_expect_100_continue_is_answered_before_the_body_is_sent(
    upstream: RawUpstream, parser: str
) -> None:
    # curl sends `Expect: 100-continue` with a large body and waits up to 1 s for the go-ahead.
    with (
        _proxy(upstream.url, http=parser) as px,
        socket.create_connection(("127.0.0.1", px.port)) as s,
    ):
        s.sendall(_head("/v1/messages", len(BODY), "expect: 100-continue\r\nconnection: close\r\n"))
        s.settimeout(0.9)
        assert s.recv(65536).startswith(b"HTTP/1.1 100 Continue\r\n")
        s.sendall(BODY)
        reply = _read_reply(s)
        assert reply.startswith(b"HTTP/1.1 200 ")
        assert reply.endswith(OK)
        assert upstream.requests == [BODY]


def _sse(events: list[tuple[str, dict[str, Any]]], ending: bytes) -> bytes:
    out = b""
    for name, doc in events:
        out += b"event: " + name.encode() + ending + b"data: " + json.dumps(doc).encode()
        out += ending + ending
    return out


STREAM: list[tuple[str, dict[str, Any]]] = [
    (
        "message_start",
        {
            "type": "message_start",
            "message": {
                "id": "msg_1",
                "model": "claude-sonnet-4-6",
                "usage": {
                    "input_tokens": 12,
                    "cache_read_input_tokens": 3000,
                    "cache_creation_input_tokens": 0,
                    "output_tokens": 1,
                },
            },
        },
    ),
    ("ping", {"type": "ping"}),
    ("message_delta", {"type": "message_delta", "usage": {"output_tokens": 7}}),
    ("message_stop", {"type": "message_stop"}),
]


@pytest.mark.parametrize("ending", [b"\r\n", b"\n", b"\r"])
def test_a_stream_with_any_line_ending_is_read_for_usage(ending: bytes) -> None:
    stream = _sse(STREAM, ending)

    def answer(conn: socket.socket, head: bytes, body: bytes) -> None:
        conn.sendall(
            b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\nconnection: close\r\n\r\n"
        )
        for i in range(0, len(stream), 50):  # lines cut across chunks, CRLFs among them
            conn.sendall(stream[i : i + 50])

    with RawUpstream(answer) as up, _proxy(up.url) as px:
        body = json.loads(BODY) | {"stream": True}
        with httpx2.Client(trust_env=False) as c:
            r = c.post(px.base_url + "/v1/messages", json=body, headers={"x-api-key": KEY})
        assert r.content == stream  # relayed unchanged
        (fig,) = px.figures()
        assert (fig["input_tokens"], fig["cache_read"]) == (3012, 3000)


@pytest.mark.slow  # seconds of work: CI runs it in its slow step
def test_a_body_over_the_limit_is_refused_before_it_is_read(upstream: RawUpstream) -> None:
    with _proxy(upstream.url) as px, socket.create_connection(("127.0.0.1", px.port)) as s:
        # 100 MB declared, none sent: the answer comes without waiting for it.
        s.sendall(_head("/v1/messages", 100_000_000))
        reply = _read_reply(s)
        assert reply.startswith(b"HTTP/1.1 413 ")
        doc = json.loads(reply.partition(b"\r\n\r\n")[2])
        assert doc["error"]["type"] == "request_too_large"
        assert "33,554,432 bytes" in doc["error"]["message"]
        assert upstream.requests == []


def test_a_chunked_body_is_refused_as_it_passes_the_limit(upstream: RawUpstream) -> None:
    with _proxy(upstream.url, max_body=1000) as px:
        chunks = iter([b"{" + b" " * 600, b" " * 600 + b"}"])
        with httpx2.Client(trust_env=False) as c:
            r = c.post(px.base_url + "/v1/messages", content=chunks, headers={"x-api-key": KEY})
        assert r.status_code == 413 and "1,000 bytes" in r.json()["error"]["message"]
        assert upstream.requests == []


@pytest.mark.parametrize("parser", PARSERS)
def test_a_head_over_the_limit_is_431_with_the_limit(upstream: RawUpstream, parser: str) -> None:
    with (
        _proxy(upstream.url, http=parser) as px,
        socket.create_connection(("127.0.0.1", px.port)) as s,
    ):
        s.sendall(b"GET /v1/models HTTP/1.1\r\nhost: x\r\nx-big: " + b"a" * 100_000 + b"\r\n\r\n")
        reply = _read_reply(s)
        assert reply.startswith(b"HTTP/1.1 431 ")
        assert b"65,536 bytes" in reply


@pytest.mark.parametrize(
    "request_bytes",
    [
        b"GARBAGE\r\n\r\n",
        b"POST /v1/messages HTTP/1.1\r\nhost: x\r\ncontent-length: -5\r\n\r\n",
        b"POST /v1/messages HTTP/1.1\r\nhost: x\r\ncontent-length: NaN\r\n\r\n",
        b"POST /v1/messages HTTP/1.1\r\nhost: x\r\ntransfer-encoding: chunked\r\n\r\nzz\r\n",
        bytes.fromhex("160301020001") + b"\x00" * 40 + b"\r\n\r\n",  # a TLS client hello
        b"GET /v1/models HTTP/1.1\r\n\r\n",  # HTTP/1.1 without the Host it requires
    ],
    ids=["request-line", "negative-length", "nan-length", "chunk-size", "tls-hello", "no-host"],
)
@pytest.mark.parametrize("parser", PARSERS)
def test_malformed_http_is_answered_400(
    upstream: RawUpstream, request_bytes: bytes, parser: str
) -> None:
    with (
        _proxy(upstream.url, http=parser) as px,
        socket.create_connection(("127.0.0.1", px.port)) as s,
    ):
        s.sendall(request_bytes)
        assert _read_reply(s).startswith(b"HTTP/1.1 400 ")
        assert upstream.requests == []


@pytest.mark.parametrize(
    ("body", "why"),
    [
        (b'{"messages": ' + b"[" * 100_000 + b"]" * 100_000 + b"}", "nests too deeply"),
        (b'{"model": "x", "messages": [{"role": "user", "content": "\\ud800"}]}', "surrogate"),
        (b'{"model": "x", "messages": [', "not valid JSON"),
    ],
    ids=["nested", "lone-surrogate", "truncated"],
)
def test_an_unreadable_body_is_answered_400_in_the_providers_shape(
    upstream: RawUpstream, body: bytes, why: str
) -> None:
    # With repairs the proxy must read the body; it answers as the provider would.
    with _proxy(upstream.url, fixes=parse_fixes("")) as px, httpx2.Client(trust_env=False) as c:
        r = c.post(px.base_url + "/v1/messages", content=body, headers={"x-api-key": KEY})
        assert r.status_code == 400
        assert r.json()["type"] == "error" and why in r.json()["error"]["message"]
        # The connection stays usable: the next request is answered.
        ok = c.post(px.base_url + "/v1/messages", content=BODY, headers={"x-api-key": KEY})
        assert ok.status_code == 200
        (forwarded,) = upstream.requests  # the refused body never reached the upstream
        assert json.loads(forwarded)["model"] == "claude-sonnet-4-6"


def test_observing_forwards_an_unreadable_body_for_the_upstream_to_answer() -> None:
    refusal = b'{"type":"error","error":{"type":"invalid_request_error","message":"bad"}}'
    nested = b'{"messages": ' + b"[" * 100_000 + b"]" * 100_000 + b"}"
    with RawUpstream(whole(400, refusal)) as up, _proxy(up.url) as px:
        with httpx2.Client(trust_env=False) as c:
            r = c.post(px.base_url + "/v1/messages", content=nested, headers={"x-api-key": KEY})
        assert (r.status_code, r.content) == (400, refusal)
        assert up.requests == [nested]
        px.settle()
        assert px.errors == []


def test_an_upstream_that_stalls_is_a_504_naming_it() -> None:
    stop, asked = threading.Event(), threading.Event()

    def stall(conn: socket.socket, head: bytes, body: bytes) -> None:
        asked.set()
        stop.wait(30)

    loops = Loops()
    with (
        RawUpstream(stall) as up,
        Proxy.start(
            ProxyConfig(upstream=up.url, read_timeout=60.0),
            clock=ManualClock(1000.0),
            loop_factory=loops,
        ) as px,
        socket.create_connection(("127.0.0.1", px.port)) as s,
    ):
        assert loops.loop is not None
        s.sendall(_head("/v1/messages", len(BODY), "connection: close\r\n") + BODY)
        assert asked.wait(10)
        loops.loop.skip(61.0)  # the read timeout passes on the proxy's loop, not in real time
        reply = _read_reply(s)
        stop.set()
        assert reply.startswith(b"HTTP/1.1 504 ")
        message = json.loads(reply.partition(b"\r\n\r\n")[2])["error"]["message"]
        assert up.url in message and "read timeout (60 s" in message


def test_a_stream_past_the_total_timeout_is_cut() -> None:
    stop, streaming = threading.Event(), threading.Event()

    def endless(conn: socket.socket, head: bytes, body: bytes) -> None:
        conn.sendall(b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\n\r\n")
        conn.sendall(b"event: ping\ndata: {}\n\n")
        streaming.set()
        stop.wait(30)  # and more to come, for all the proxy knows

    loops = Loops()
    with (
        RawUpstream(endless) as up,
        Proxy.start(
            ProxyConfig(upstream=up.url, total_timeout=100.0),
            clock=ManualClock(1000.0),
            loop_factory=loops,
        ) as px,
        socket.create_connection(("127.0.0.1", px.port)) as s,
    ):
        assert loops.loop is not None
        body = json.dumps(json.loads(BODY) | {"stream": True}).encode()
        s.sendall(_head("/v1/messages", len(body)) + body)
        assert streaming.wait(10)
        s.settimeout(10)
        first = s.recv(65536)
        assert first.startswith(b"HTTP/1.1 200 ")
        loops.loop.skip(101.0)  # past the total timeout, on the proxy's loop
        reply = first + _read_reply(s)
        stop.set()
        assert b"event: ping" in reply
        assert not reply.endswith(b"0\r\n\r\n")  # cut, not ended: the client sees it broken


@pytest.mark.parametrize("parser", PARSERS)
def test_slow_and_idle_clients_are_timed_out(upstream: RawUpstream, parser: str) -> None:
    # The deadlines are timers on the proxy's event loop, whose time the test moves on: they
    # pass at once, and the test waits for no real second.
    loops = Loops()
    config = ProxyConfig(
        upstream=upstream.url, http=parser, header_timeout=5.0, body_timeout=5.0, idle_timeout=8.0
    )
    with Proxy.start(config, clock=ManualClock(1000.0), loop_factory=loops) as px:
        loop = loops.loop
        assert loop is not None
        idle = socket.create_connection(("127.0.0.1", px.port))
        slow_head = socket.create_connection(("127.0.0.1", px.port))
        slow_body = socket.create_connection(("127.0.0.1", px.port))
        slow_body.sendall(_head("/v1/messages", len(BODY)) + BODY[:10])
        loop.settle()
        # A slowloris: a byte of its head a second; the deadline is for the whole head.
        for byte in b"POST":
            slow_head.sendall(bytes([byte]))
            loop.settle()
            loop.skip(1.0)
        slow_head.setblocking(False)
        with pytest.raises(BlockingIOError):  # 4 s in: not cut before its deadline
            slow_head.recv(1)
        slow_head.setblocking(True)
        loop.skip(1.5)  # 5.5 s in: past the head's deadline and the body's
        assert _read_reply(slow_head, 5).startswith(b"HTTP/1.1 408 ")
        assert _read_reply(slow_body, 5).startswith(b"HTTP/1.1 408 ")
        loop.skip(3.0)
        assert _read_reply(idle, 5) == b""  # closed without a word
        for s in (idle, slow_head, slow_body):
            s.close()
        assert upstream.requests == []


def test_an_answer_larger_than_any_buffer_arrives_whole() -> None:
    big = b'{"content": "' + b"x" * (40 << 20) + b'"}'
    with RawUpstream(whole(200, big)) as up, _proxy(up.url) as px:
        with httpx2.Client(trust_env=False, timeout=60) as c:
            r = c.post(px.base_url + "/v1/messages", content=BODY, headers={"x-api-key": KEY})
        assert r.status_code == 200 and r.content == big
