"""`prefixlock proxy --otel`, run as a user runs it: its spans reach an OTLP/HTTP receiver on
127.0.0.1 that the standard OTEL_EXPORTER_OTLP_ENDPOINT names, one `chat <model>` span per
request with the GenAI and cache attributes, under the service name OTEL_SERVICE_NAME gives."""

from __future__ import annotations

import http.server
import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from typing import Any

import httpx2
import pytest

from prefixlock.clock import ManualClock
from prefixlock.emulator import Emulator

pytest.importorskip("opentelemetry.exporter.otlp.proto.http")
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
    ExportTraceServiceRequest,
)


class Receiver(http.server.ThreadingHTTPServer):
    """An OTLP/HTTP trace receiver: keeps every span it is sent, with its resource."""

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.spans: list[tuple[dict[str, Any], Any]] = []
        self.paths: list[str] = []
        self.got = threading.Event()


class _Handler(http.server.BaseHTTPRequestHandler):
    server: Receiver

    def do_POST(self) -> None:
        data = self.rfile.read(int(self.headers["content-length"]))
        self.server.paths.append(self.path)
        request = ExportTraceServiceRequest.FromString(data)
        for rs in request.resource_spans:
            resource = {a.key: a.value.string_value for a in rs.resource.attributes}
            for ss in rs.scope_spans:
                for span in ss.spans:
                    self.server.spans.append((resource, span))
        self.send_response(200)
        self.send_header("content-type", "application/x-protobuf")
        self.send_header("content-length", "0")
        self.end_headers()
        self.server.got.set()

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    server = Receiver()
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server
    server.shutdown()
    server.server_close()


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _attr(span: Any, key: str) -> Any:
    for a in span.attributes:
        if a.key == key:
            value = a.value
            return getattr(value, value.WhichOneof("value"))
    raise KeyError(key)


@pytest.mark.slow
def test_proxy_otel_exports_a_span_per_request_to_the_otlp_endpoint(receiver: Receiver) -> None:
    port = _free_port()
    env = {
        **os.environ,
        "OTEL_EXPORTER_OTLP_ENDPOINT": f"http://127.0.0.1:{receiver.server_address[1]}",
        "OTEL_SERVICE_NAME": "team-proxy",
    }
    with Emulator.start(clock=ManualClock(1000.0)) as emu:
        command = [sys.executable, "-m", "prefixlock.cli.main", "proxy", "--port", str(port)]
        command += ["--upstream", emu.base_url, "--fix", "--no-store", "--otel"]
        proc = subprocess.Popen(command, env=env, stderr=subprocess.PIPE, text=True)
        try:
            assert proc.stderr is not None
            assert "prefixlock proxy on" in proc.stderr.readline()  # listening
            messages: list[dict[str, Any]] = []
            for turn in range(2):
                messages.append({"role": "user", "content": f"question {turn} " + "x " * 2000})
                body = {"model": "claude-sonnet-4-6", "max_tokens": 8, "messages": messages}
                r = httpx2.post(
                    f"http://127.0.0.1:{port}/v1/messages",
                    json=body,
                    headers={"x-api-key": "sk-secret-key"},
                    trust_env=False,
                )
                assert r.status_code == 200
                messages.append({"role": "assistant", "content": r.json()["content"]})
            # A line per request once accounted (its span ended): both before the Ctrl-C.
            accounted = 0
            while accounted < 2:
                line = proc.stderr.readline()
                assert line, "the proxy stopped"
                accounted += " #" in line
        finally:
            proc.send_signal(signal.SIGINT)  # Ctrl-C: the batched spans go out as it stops
            assert proc.wait(60) == 0
    deadline = time.monotonic() + 30
    while len(receiver.spans) < 2 and time.monotonic() < deadline:
        receiver.got.clear()
        receiver.got.wait(1)
    assert receiver.paths and set(receiver.paths) == {"/v1/traces"}
    assert [span.name for _, span in receiver.spans] == ["chat claude-sonnet-4-6"] * 2
    resource, second = receiver.spans[1]
    assert resource["service.name"] == "team-proxy"
    assert _attr(second, "gen_ai.provider.name") == "anthropic"
    assert _attr(second, "gen_ai.usage.cache_read.input_tokens") > 0
    assert _attr(second, "gen_ai.conversation.id") == _attr(
        receiver.spans[0][1], "gen_ai.conversation.id"
    )
    assert "sk-secret-key" not in json.dumps([str(s) for _, s in receiver.spans])
