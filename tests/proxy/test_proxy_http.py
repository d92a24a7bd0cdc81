"""`prefixlock proxy` over real HTTP: the official SDKs as clients, the emulator (or a slow test
upstream) behind it. Without repairs it changes no byte; streams pass through unchanged; a
client that hangs up cancels the upstream request; the key is forwarded but never recorded."""

from __future__ import annotations

import importlib.util
import json
import socket
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx2
import pytest

from prefixlock.clock import ManualClock
from prefixlock.emulator import Emulator, EmulatorConfig
from prefixlock.proxy import Proxy, ProxyConfig
from prefixlock.proxy.repair import parse_fixes
from prefixlock.store.database import SessionStore
from tests.helpers.sdk import anthropic, openai
from tests.proxy.wiretap import WireTap

KEY = "sk-test-secret-key-0123456789"
SYSTEM = "You are a careful assistant. " * 400  # above every model's cache minimum
TOOLS = [{"name": "read", "description": "read a file", "input_schema": {"type": "object"}}]
# Both upstream clients the proxy runs on: aiohttp (C parser, when installed) and httpx2.
CLIENTS = ["httpx"] + (["aiohttp"] if importlib.util.find_spec("aiohttp") else [])


@pytest.fixture
def emu() -> Iterator[Emulator]:
    with Emulator.start(config=EmulatorConfig(), clock=ManualClock()) as e:
        yield e


def _client_tap() -> tuple[list[bytes], httpx2.Client]:
    seen: list[bytes] = []
    client = httpx2.Client(
        event_hooks={"request": [lambda r: seen.append(r.content)]}, trust_env=False
    )
    return seen, client


@pytest.mark.parametrize("client", CLIENTS)
def test_without_fix_every_upstream_body_is_the_clients_bytes(emu: Emulator, client: str) -> None:
    tap = WireTap(emu.base_url)  # the bytes on the wire between the proxy and the emulator
    upstream = tap.bodies
    config = ProxyConfig(upstream=tap.url, client=client)
    sent, http = _client_tap()
    # the SDKs share the test's HTTP client and do not close it: the test does, or its socket to
    # the proxy outlives the test and is collected (a ResourceWarning) in whichever test runs next
    with tap, Proxy.start(config, clock=emu.clock) as px, http:
        a = anthropic.Anthropic(api_key=KEY, base_url=px.base_url, http_client=http)
        messages: list[Any] = [{"role": "user", "content": "hello"}]
        reply = a.messages.create(
            model="claude-sonnet-4-6",
            max_tokens=64,
            system=SYSTEM,
            tools=TOOLS,  # type: ignore[arg-type]
            messages=messages,
        )
        messages += [
            {"role": "assistant", "content": reply.content},
            {"role": "user", "content": "more"},
        ]
        with a.messages.stream(
            model="claude-sonnet-4-6",
            max_tokens=64,
            system=SYSTEM,
            messages=messages,
        ) as stream:
            stream.get_final_message()
        o = openai.OpenAI(api_key=KEY, base_url=px.openai_base_url, http_client=http)
        chat = [{"role": "system", "content": SYSTEM}, {"role": "user", "content": "hi"}]
        o.chat.completions.create(model="gpt-5.4", messages=chat)  # type: ignore[arg-type]
        for _ in o.chat.completions.create(model="gpt-5.4", messages=chat, stream=True):  # type: ignore[arg-type]
            pass
        o.responses.create(model="gpt-5.4", instructions=SYSTEM, input="another task")
        px.settle()
        assert len(sent) == 5 and upstream == sent
        assert px.errors == []
        figures = {f["api"]: f for f in px.figures()}
        assert set(figures) == {"anthropic", "openai-chat", "openai-responses"}
        assert figures["anthropic"]["requests"] == 2  # one session: the conversation continued


def _raw_stream(url: str, path: str, body: dict[str, Any]) -> bytes:
    with (
        httpx2.Client(trust_env=False) as c,
        c.stream(
            "POST",
            url + path,
            json=body,
            headers={"x-api-key": KEY, "authorization": f"Bearer {KEY}"},
        ) as r,
    ):
        return b"".join(r.iter_raw())


@pytest.mark.parametrize(
    ("path", "body"),
    [
        (
            "/v1/messages",
            {
                "model": "claude-sonnet-4-6",
                "max_tokens": 64,
                "stream": True,
                "system": SYSTEM,
                "messages": [{"role": "user", "content": "hi"}],
            },
        ),
        (
            "/v1/chat/completions",
            {
                "model": "gpt-5.4",
                "stream": True,
                "stream_options": {"include_usage": True},
                "messages": [{"role": "user", "content": "hi"}],
            },
        ),
        ("/v1/responses", {"model": "gpt-5.4", "stream": True, "input": "hi"}),
    ],
)
@pytest.mark.parametrize("client", CLIENTS)
def test_a_stream_arrives_byte_for_byte_as_the_upstream_sent_it(
    path: str, body: dict[str, Any], client: str
) -> None:
    # Two identical emulators: one asked directly, one through the proxy, the same requests.
    with (
        Emulator.start(clock=ManualClock(1000.0)) as direct,
        Emulator.start(clock=ManualClock(1000.0)) as behind,
        Proxy.start(ProxyConfig(upstream=behind.base_url, client=client), clock=behind.clock) as px,
    ):
        for _ in range(2):  # the second one reads the cache the first wrote
            want = _raw_stream(direct.base_url, path, body)
            got = _raw_stream(px.base_url, path, body)
            assert got == want
            assert want.count(b"\n\n") > 3  # many events
        px.settle()
        (fig,) = px.figures()
        assert fig["requests"] == 2 and fig["input_tokens"] > 0  # usage read from the stream


class _SlowUpstream:
    """A real TCP server that answers with the start of an SSE stream and then waits, noting
    when its client (the proxy) closes the connection."""

    def __init__(self) -> None:
        self.sock = socket.create_server(("127.0.0.1", 0))
        self.closed = threading.Event()
        self.got_request = threading.Event()
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.sock.getsockname()[1]}"

    def _serve(self) -> None:
        conn, _ = self.sock.accept()
        with conn:
            data = b""
            while b"\r\n\r\n" not in data:
                data += conn.recv(65536)
            self.got_request.set()
            event = b'event: message_start\ndata: {"type":"message_start"}\n\n'
            conn.sendall(
                b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\n"
                b"transfer-encoding: chunked\r\n\r\n"
                + f"{len(event):x}\r\n".encode()
                + event
                + b"\r\n"
            )
            conn.settimeout(20)
            try:
                while conn.recv(65536):
                    pass
            except OSError:
                pass
            self.closed.set()

    def close(self) -> None:
        self.sock.close()


def test_a_client_that_hangs_up_cancels_the_upstream_request() -> None:
    upstream = _SlowUpstream()
    try:
        with Proxy.start(ProxyConfig(upstream=upstream.url), clock=ManualClock()) as px:
            body = json.dumps(
                {
                    "model": "claude-sonnet-4-6",
                    "max_tokens": 8,
                    "stream": True,
                    "messages": [{"role": "user", "content": "hi"}],
                }
            ).encode()
            with socket.create_connection(("127.0.0.1", px.port)) as client:
                client.sendall(
                    b"POST /v1/messages HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\n"
                    + f"x-api-key: {KEY}\r\ncontent-length: {len(body)}\r\n\r\n".encode()
                    + body
                )
                got = b""
                while b"message_start" not in got:
                    got += client.recv(65536)
            # The client is gone mid-stream: the proxy closes its upstream connection.
            assert upstream.closed.wait(10)
            px.settle()
            (exchange,) = px.exchanges
            assert exchange.cancelled
    finally:
        upstream.close()


def test_concurrent_clients_each_get_their_answer(emu: Emulator) -> None:
    with Proxy.start(ProxyConfig(upstream=emu.base_url), clock=emu.clock) as px:
        answers: dict[int, str] = {}

        def one(i: int) -> None:
            o = openai.OpenAI(api_key=f"{KEY}-{i}", base_url=px.openai_base_url)
            r = o.chat.completions.create(
                model="gpt-5.4", messages=[{"role": "user", "content": f"question {i}"}]
            )
            answers[i] = r.id
            o.close()

        threads = [threading.Thread(target=one, args=(i,)) for i in range(8)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(30)
        assert len(answers) == 8
        assert len(px.figures()) == 8  # eight keys: eight sessions


def test_the_key_reaches_the_upstream_but_never_the_store_or_trace(
    emu: Emulator, tmp_path: Path
) -> None:
    trace = tmp_path / "proxy.jsonl"
    with SessionStore(tmp_path / "s.sqlite") as store:
        config = ProxyConfig(upstream=emu.base_url, trace=trace, fixes=parse_fixes(""))
        with Proxy.start(config, clock=emu.clock, store=store) as px:
            o = openai.OpenAI(api_key=KEY, base_url=px.openai_base_url)
            o.chat.completions.create(model="gpt-5.4", messages=[{"role": "user", "content": "q"}])
            px.settle()
        assert emu.requests[-1].status == 200
        (record,) = store.sessions()
        assert record.meta["source"] == "proxy"
    data = (tmp_path / "s.sqlite").read_bytes() + trace.read_bytes()
    assert KEY.encode() not in data
    line = json.loads(trace.read_text().splitlines()[0])
    assert line["cache_key"].startswith("pl-")  # the prefix family's key
