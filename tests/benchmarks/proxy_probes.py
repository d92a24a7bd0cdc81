"""Hostile clients and hostile upstreams against the real `prefixlock proxy` process, over HTTP
on 127.0.0.1, as a user runs it: `prefixlock serve` (the emulator) behind one proxy that only
observes and one with `--fix`; a bare upstream (tests/proxy/rawupstream.py) that stalls, hangs,
cuts and answers large, behind a third proxy with short timeouts a user can set; a fourth in
front of a port nobody listens on.

Each probe is one named check that holds or fails with a reason; `run_probes()` returns them
all and `bench_reliability --only proxy` prints "held N of M" with every failure named. A probe
holds when the proxy answers as the issue asks (400 for what it cannot read, 413/431 before
reading, 504 naming the upstream, rows for what the upstream billed, connections and memory
bounded) and stays alive; at the end its stderr must hold no traceback.
"""

from __future__ import annotations

import contextlib
import http.client
import json
import os
import resource
import shutil
import socket
import sqlite3
import struct
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tests.proxy.rawupstream import RawUpstream

KEY = "sk-probe-0123456789"
APIS = ("anthropic", "chat", "responses")
PATHS = {"anthropic": "/v1/messages", "chat": "/v1/chat/completions", "responses": "/v1/responses"}
BILLED_IN, BILLED_OUT = 2440, 40_001  # what the bare upstream's answers say they billed


@dataclass
class Probe:
    name: str
    held: bool
    why: str = ""


@dataclass
class Proc:
    """One `prefixlock` process: its port, its stderr file, its store."""

    popen: subprocess.Popen[bytes]
    port: int
    log: Path
    store: Path | None = None

    @property
    def pid(self) -> int:
        return self.popen.pid

    def alive(self) -> bool:
        return self.popen.poll() is None

    def rss_mb(self) -> float:
        return rss_mb(self.pid)

    def fds(self) -> int:
        return len(os.listdir(f"/proc/{self.pid}/fd"))

    def stderr(self) -> str:
        return self.log.read_text(errors="replace")


def rss_mb(pid: int) -> float:
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return 0.0


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _prefixlock() -> list[str]:
    script = Path(sys.executable).parent / "prefixlock"
    return [str(script)] if script.exists() else [shutil.which("prefixlock") or "prefixlock"]


def start(
    args: list[str], log: Path, store: Path | None = None, file_limit: int | None = None
) -> Proc:
    """`prefixlock ARGS --port P`, once it listens. `file_limit`: RLIMIT_FSIZE for it (no file
    it writes grows past that many bytes: a full disk, as an unprivileged user can make one)."""
    port = free_port()
    out = log.open("wb")

    def limit() -> None:
        if file_limit is not None:
            resource.setrlimit(resource.RLIMIT_FSIZE, (file_limit, file_limit))

    popen = subprocess.Popen(
        [*_prefixlock(), *args, "--port", str(port)],
        stdout=out,
        stderr=subprocess.STDOUT,
        stdin=subprocess.DEVNULL,
        preexec_fn=limit,
    )
    out.close()
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if popen.poll() is not None:
            raise RuntimeError(f"{args[0]} exited: {log.read_text()[-500:]}")
        with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), 0.2):
            return Proc(popen, port, log, store)
        time.sleep(0.1)
    popen.kill()
    raise RuntimeError(f"{args[0]} did not listen within 60 s")


def stop(proc: Proc) -> None:
    if proc.alive():
        proc.popen.terminate()
        try:
            proc.popen.wait(20)
        except subprocess.TimeoutExpired:
            proc.popen.kill()
            proc.popen.wait()


# -- requests ---------------------------------------------------------------------------------


def body_of(api: str, text: str = "Say hi.", stream: bool = False, **extra: Any) -> dict[str, Any]:
    if api == "anthropic":
        doc: dict[str, Any] = {
            "model": "claude-sonnet-4-6",
            "max_tokens": 16,
            "messages": [{"role": "user", "content": text}],
        }
    elif api == "chat":
        doc = {"model": "gpt-5.4", "messages": [{"role": "user", "content": text}]}
        if stream:
            doc["stream_options"] = {"include_usage": True}
    else:
        doc = {"model": "gpt-5.4", "input": text}
    if stream:
        doc["stream"] = True
    return doc | extra


def head(api: str, path: str, length: int | None, extra: str = "") -> bytes:
    auth = f"x-api-key: {KEY}" if api == "anthropic" else f"authorization: Bearer {KEY}"
    size = "" if length is None else f"content-length: {length}\r\n"
    return (
        f"POST {path} HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\n"
        f"{auth}\r\nanthropic-version: 2023-06-01\r\n{size}{extra}\r\n"
    ).encode()


def exchange(
    port: int, api: str, data: bytes, extra: str = "", timeout: float = 60.0
) -> tuple[int, bytes, float]:
    """(status, body, seconds) for one POST on a fresh connection; status 0 when the proxy
    closed without an answer."""
    started = time.monotonic()
    with socket.create_connection(("127.0.0.1", port), timeout) as s:
        s.sendall(head(api, PATHS[api], len(data), extra + "connection: close\r\n") + data)
        reply = read_all(s, timeout)
    return status_of(reply), reply.partition(b"\r\n\r\n")[2], time.monotonic() - started


def read_all(s: socket.socket, timeout: float) -> bytes:
    s.settimeout(timeout)
    data = b""
    while True:
        try:
            got = s.recv(1 << 20)
        except (ConnectionResetError, TimeoutError, OSError):
            return data
        if not got:
            return data
        data += got


def status_of(reply: bytes) -> int:
    line = reply.split(b"\r\n", 1)[0].split()
    return (
        int(line[1]) if len(line) > 1 and line[0].startswith(b"HTTP/") and line[1].isdigit() else 0
    )


def keep_alive_pair(port: int, api: str, first: bytes, second: bytes) -> tuple[int, int]:
    """Two requests on one connection: (first status, second status)."""
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    try:
        auth = {"x-api-key": KEY} if api == "anthropic" else {"authorization": f"Bearer {KEY}"}
        hdrs = {"content-type": "application/json", "anthropic-version": "2023-06-01", **auth}
        c.request("POST", PATHS[api], body=first, headers=hdrs)
        r1 = c.getresponse()
        r1.read()
        c.request("POST", PATHS[api], body=second, headers=hdrs)
        r2 = c.getresponse()
        r2.read()
        return r1.status, r2.status
    except (OSError, http.client.HTTPException):
        return -1, -1
    finally:
        c.close()


def rows(store: Path) -> list[tuple[str, str, dict[str, Any]]]:
    """(session, kind, usage) of every request row in a store, oldest first."""
    with contextlib.closing(sqlite3.connect(f"file:{store}?mode=ro", uri=True)) as db:
        got = db.execute("SELECT session_id, kind, usage FROM requests ORDER BY time").fetchall()
    return [(sid, kind, json.loads(usage)) for sid, kind, usage in got]


def new_rows(store: Path, before: int, want: int = 1, wait: float = 10.0) -> list[Any]:
    deadline = time.monotonic() + wait
    while True:
        got = rows(store)[before:]
        if len(got) >= want or time.monotonic() > deadline:
            return got
        time.sleep(0.1)


# -- the bare upstream's answers --------------------------------------------------------------


def _sse(events: Sequence[tuple[str | None, dict[str, Any] | str]]) -> list[bytes]:
    out = []
    for name, doc in events:
        data = doc if isinstance(doc, str) else json.dumps(doc)
        out.append((f"event: {name}\n" if name else "").encode() + f"data: {data}\n\n".encode())
    return out


def stream_events(api: str, text_chunks: int = 20) -> list[bytes]:
    """A streamed answer whose usage says BILLED_IN in, BILLED_OUT out."""
    if api == "anthropic":
        start = {
            "type": "message_start",
            "message": {
                "id": "msg_probe",
                "type": "message",
                "role": "assistant",
                "model": "claude-sonnet-4-6",
                "content": [],
                "usage": {"input_tokens": BILLED_IN, "output_tokens": 1},
            },
        }
        delta = {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta"}}
        end = {"type": "message_delta", "delta": {}, "usage": {"output_tokens": BILLED_OUT}}
        return _sse(
            [("message_start", start)]
            + [("content_block_delta", delta | {"delta": {"type": "text_delta", "text": "w"}})]
            * text_chunks
            + [("message_delta", end), ("message_stop", {"type": "message_stop"})]
        )
    if api == "chat":
        chunk = {"id": "c1", "object": "chat.completion.chunk", "model": "gpt-5.4"}
        text = chunk | {"choices": [{"index": 0, "delta": {"content": "w"}}]}
        last = chunk | {
            "choices": [],
            "usage": {"prompt_tokens": BILLED_IN, "completion_tokens": BILLED_OUT},
        }
        return _sse([(None, text)] * text_chunks + [(None, last), (None, "[DONE]")])
    resp = {"id": "resp_probe", "object": "response", "model": "gpt-5.4"}
    usage = {"input_tokens": BILLED_IN, "output_tokens": BILLED_OUT}
    return _sse(
        [("response.created", {"type": "response.created", "response": resp})]
        + [("response.output_text.delta", {"type": "response.output_text.delta", "delta": "w"})]
        * text_chunks
        + [
            (
                "response.completed",
                {"type": "response.completed", "response": resp | {"usage": usage}},
            )
        ]
    )


def whole_answer(api: str) -> bytes:
    if api == "anthropic":
        doc: dict[str, Any] = {
            "id": "msg_probe",
            "type": "message",
            "role": "assistant",
            "model": "claude-sonnet-4-6",
            "content": [{"type": "text", "text": "ok"}],
            "usage": {"input_tokens": BILLED_IN, "output_tokens": BILLED_OUT},
        }
    elif api == "chat":
        doc = {
            "id": "c1",
            "object": "chat.completion",
            "model": "gpt-5.4",
            "choices": [{"index": 0, "message": {"role": "assistant", "content": "ok"}}],
            "usage": {"prompt_tokens": BILLED_IN, "completion_tokens": BILLED_OUT},
        }
    else:
        doc = {
            "id": "resp_probe",
            "object": "response",
            "model": "gpt-5.4",
            "output": [],
            "usage": {"input_tokens": BILLED_IN, "output_tokens": BILLED_OUT},
        }
    return json.dumps(doc).encode()


def _probe_of(raw_head: bytes) -> tuple[str, str]:
    for line in raw_head.split(b"\r\n")[1:]:
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"x-probe":
            what, _, api = value.strip().decode().partition("/")
            return what, api
    return "", ""


BIG = 40 << 20
BIG_EVENT = b"event: ping\ndata: " + b'"' + b"x" * 65_000 + b'"\n\n'


def big_stream(api: str) -> bytes:
    """The events the bare upstream sends for a `big-stream` probe (BIG bytes, about)."""
    return BIG_EVENT * (BIG // len(BIG_EVENT)) + b"".join(stream_events(api))


def unchunked(body: bytes) -> bytes:
    """An HTTP/1.1 chunked body's content (what a client reads); b"" where it is not one."""
    out: list[bytes] = []
    pos = 0
    while True:
        line_end = body.find(b"\r\n", pos)
        if line_end < 0:
            return b""
        size = int(body[pos:line_end].split(b";")[0] or b"0", 16)
        if size == 0:
            return b"".join(out)
        out.append(body[line_end + 2 : line_end + 2 + size])
        pos = line_end + 2 + size + 2


class Upstream:
    """What the bare upstream does, chosen by the request's `x-probe: WHAT/API` header."""

    def __init__(self) -> None:
        self.stop = threading.Event()

    def __call__(self, conn: socket.socket, raw_head: bytes, body: bytes) -> None:
        what, api = _probe_of(raw_head)
        sse_head = (
            b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\nconnection: close\r\n\r\n"
        )
        if what == "slow-stream":  # each event a moment apart: the client hangs up meanwhile
            conn.sendall(sse_head)
            for event in stream_events(api):
                if self.stop.wait(0.1):
                    return
                conn.sendall(event)
        elif what == "slow-whole":
            self.stop.wait(1.5)
            self._whole(conn, 200, whole_answer(api))
        elif what == "hang":
            self.stop.wait(60)
        elif what == "stall-stream":  # the first events, then nothing
            conn.sendall(sse_head + b"".join(stream_events(api)[:2]))
            self.stop.wait(60)
        elif what == "cut-stream":  # the first events, then the connection drops
            conn.sendall(sse_head + b"".join(stream_events(api)[:3]))
            conn.shutdown(socket.SHUT_RDWR)
        elif what == "cut-whole":  # promises more than it sends
            answer = whole_answer(api)
            conn.sendall(
                b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: "
                + str(len(answer) * 2).encode()
                + b"\r\n\r\n"
                + answer
            )
            conn.shutdown(socket.SHUT_RDWR)
        elif what == "endless":
            conn.sendall(sse_head)
            while not self.stop.wait(0.05):
                conn.sendall(b"event: ping\ndata: {}\n\n")
        elif what == "big-whole":
            self._whole(conn, 200, b'{"content": "' + b"x" * BIG + b'"}')
        elif what == "big-stream":
            conn.sendall(sse_head)
            for _ in range(BIG // len(BIG_EVENT)):
                conn.sendall(BIG_EVENT)
            conn.sendall(b"".join(stream_events(api)))
        elif what == "overloaded":
            refusal = b'{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}'
            self._whole(conn, 529, refusal)
        else:
            self._whole(conn, 200, whole_answer(api))

    @staticmethod
    def _whole(conn: socket.socket, status: int, data: bytes) -> None:
        conn.sendall(
            f"HTTP/1.1 {status} X\r\ncontent-type: application/json\r\ncontent-length: "
            f"{len(data)}\r\nconnection: close\r\n\r\n".encode()
            + data
        )


# -- the probes -------------------------------------------------------------------------------


@dataclass
class Rig:
    """The processes every probe runs against."""

    folder: Path
    observe: Proc  # prefixlock proxy -> prefixlock serve
    fix: Proc  # prefixlock proxy --fix -> prefixlock serve
    raw: Proc  # prefixlock proxy (short timeouts) -> the bare upstream
    dead: Proc  # prefixlock proxy -> a port nobody listens on
    fixraw: Proc  # prefixlock proxy --fix -> the bare upstream (answers at once)
    upstream_url: str
    observe_upstream: int  # prefixlock serve's port
    probes: list[Probe] = field(default_factory=list)

    def check(self, name: str, held: bool, why: str = "") -> None:
        self.probes.append(Probe(name, held, "" if held else why))
        mark = "held" if held else f"FAILED: {why}"
        print(f"  probe {len(self.probes):>3} {name}: {mark}", file=sys.stderr, flush=True)


def _normal(rig: Rig) -> None:
    for proxy, mode in ((rig.observe, "observe"), (rig.fix, "--fix")):
        for api in APIS:
            for stream in (False, True):
                data = json.dumps(body_of(api, f"Normal {mode} {stream}", stream)).encode()
                status, answer, _ = exchange(proxy.port, api, data)
                name = f"{mode}: {api} {'streamed' if stream else 'whole'} answer relayed"
                rig.check(name, status == 200 and len(answer) > 20, f"status {status}")


def _hang_ups(rig: Rig) -> None:
    store = rig.raw.store
    assert store is not None
    for api in APIS:
        cases = [
            ("hang up before the answer (whole)", "slow-whole", False, 0, "close"),
            ("hang up before the first event", "slow-stream", True, 0, "close"),
            ("hang up mid-stream, gracefully", "slow-stream", True, 300, "close"),
            ("hang up mid-stream, with a reset", "slow-stream", True, 300, "reset"),
            ("the upstream cuts its stream", "cut-stream", True, None, "read"),
        ]
        for what, probe, stream, after, how in cases:
            before = len(rows(store))
            data = json.dumps(body_of(api, f"hang {what}", stream)).encode()
            s = socket.create_connection(("127.0.0.1", rig.raw.port), 30)
            s.sendall(head(api, PATHS[api], len(data), f"x-probe: {probe}/{api}\r\n") + data)
            if after is None:
                read_all(s, 30)
            elif after:
                got = b""
                s.settimeout(10)
                while len(got) < after:
                    part = s.recv(4096)
                    if not part:
                        break
                    got += part
            else:
                time.sleep(0.3)
            if how == "reset":
                s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            s.close()
            got_rows = new_rows(store, before)
            ok = len(got_rows) == 1
            why = f"{len(got_rows)} rows for 1 billed request"
            if ok:
                usage = got_rows[0][2]
                seen_in = sum(
                    int(usage.get(k, 0))
                    for k in ("uncached_input", "cache_read", "cache_write_5m", "cache_write_1h")
                )
                # Anthropic says its input at the stream's start: once seen, it is what billed.
                if api == "anthropic" and probe in ("slow-stream", "cut-stream") and after != 0:
                    ok = seen_in == BILLED_IN
                    why = f"row says {seen_in} input tokens, the upstream billed {BILLED_IN}"
            rig.check(f"{api}: {what}: a row for the billed request", ok, why)


def _upstream_faults(rig: Rig) -> None:
    for api in APIS:
        for probe, stream, want, limit in (
            ("hang", False, 504, 8.0),
            ("stall-stream", True, 200, 8.0),
            ("endless", True, 200, 12.0),
            ("cut-whole", False, 200, 8.0),
            ("overloaded", False, 529, 8.0),
        ):
            data = json.dumps(body_of(api, f"fault {probe}", stream)).encode()
            status, answer, took = exchange(rig.raw.port, api, data, f"x-probe: {probe}/{api}\r\n")
            ok = status == want and took < limit
            why = f"status {status} after {took:.1f} s (want {want} within {limit:g} s)"
            if ok and want == 504:
                ok = rig.upstream_url.encode() in answer and b"timeout" in answer
                why = f"504 without the upstream's name or the timeout: {answer[:200]!r}"
            rig.check(f"{api}: upstream '{probe}': answered or cut in time", ok, why)
        status, answer, took = exchange(rig.dead.port, api, json.dumps(body_of(api)).encode())
        rig.check(
            f"{api}: upstream not listening: 502 naming it",
            status == 502 and b"unreachable" in answer and took < 8,
            f"status {status} after {took:.1f} s: {answer[:150]!r}",
        )
        for probe, stream in (("big-whole", False), ("big-stream", True)):
            data = json.dumps(body_of(api, probe, stream)).encode()
            status, answer, took = exchange(
                rig.raw.port, api, data, f"x-probe: {probe}/{api}\r\n", 120
            )
            # A stream is relayed chunked: its content, not its framing, is what was sent.
            got = unchunked(answer) if stream else answer
            rig.check(
                f"{api}: a {BIG >> 20} MB {'stream' if stream else 'answer'} arrives whole",
                status == 200 and (got == big_stream(api) if stream else len(got) >= BIG),
                f"status {status}, {len(got):,} bytes",
            )


def nested(levels: int, kind: str) -> bytes:
    opening, closing = (b"[", b"]") if kind == "arrays" else (b'{"a":', b"}")
    inner = opening * levels + b"1" + closing * levels
    return b'{"model": "claude-sonnet-4-6", "max_tokens": 8, "messages": ' + inner + b"}"


def _unreadable(rig: Rig) -> None:
    bodies: list[tuple[str, bytes]] = []
    for levels in (5_000, 10_000, 50_000, 100_000):
        for kind in ("arrays", "objects"):
            bodies.append((f"{levels:,} levels of nested {kind}", nested(levels, kind)))
    surrogate = json.dumps(body_of("anthropic", "x"))
    bodies += [
        ("a lone high surrogate in the text", surrogate.replace('"x"', '"\\ud800"').encode()),
        ("a lone low surrogate in the text", surrogate.replace('"x"', '"a\\udfff"').encode()),
        ("a lone surrogate in the model", surrogate.replace("claude", "\\ud83dclaude").encode()),
        ("a lone surrogate as a key", surrogate.replace('"role"', '"\\udc00"').encode()),
        ("truncated JSON", surrogate[: len(surrogate) // 2].encode()),
        ("not JSON at all", b"\x00\xff\xfe binary"),
        ("an empty body", b""),
        ("a JSON array at the top", b"[1, 2, 3]"),
    ]
    good = json.dumps(body_of("anthropic", "After the bad one.")).encode()
    for proxy, mode in ((rig.observe, "observe"), (rig.fix, "--fix")):
        for name, data in bodies:
            first, second = keep_alive_pair(proxy.port, "anthropic", data, good)
            rig.check(
                f"{mode}: {name}: 400, the connection still answers",
                400 <= first < 500 and second == 200,
                f"statuses {first}, then {second}",
            )


MALFORMED: list[tuple[str, bytes]] = [
    ("a garbage request line", b"GARBAGE\r\n\r\n"),
    (
        "a negative content length",
        b"POST /v1/messages HTTP/1.1\r\nhost: x\r\ncontent-length: -5\r\n\r\n",
    ),
    (
        "a NaN content length",
        b"POST /v1/messages HTTP/1.1\r\nhost: x\r\ncontent-length: NaN\r\n\r\n",
    ),
    (
        "a content length of 30 digits",
        b"POST /v1/messages HTTP/1.1\r\nhost: x\r\ncontent-length: " + b"9" * 30 + b"\r\n\r\n",
    ),
    (
        "two different content lengths",
        b"POST /v1/messages HTTP/1.1\r\nhost: x\r\ncontent-length: 5\r\ncontent-length: 7\r\n\r\n",
    ),
    (
        "a bad chunk size",
        b"POST /v1/messages HTTP/1.1\r\nhost: x\r\ntransfer-encoding: chunked\r\n\r\nzz\r\n",
    ),
    (
        "a chunk size of 40 hex digits",
        b"POST /v1/messages HTTP/1.1\r\nhost: x\r\ntransfer-encoding: chunked\r\n\r\n"
        + b"f" * 40
        + b"\r\n",
    ),
    (
        "an unknown transfer encoding",
        b"POST /v1/messages HTTP/1.1\r\nhost: x\r\ntransfer-encoding: gzip\r\n\r\n",
    ),
    ("a TLS client hello", bytes.fromhex("160301020001") + b"\x00" * 40 + b"\r\n\r\n"),
    ("an HTTP/2 preface", b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"),
    ("HTTP version 9.9", b"GET /v1/models HTTP/9.9\r\nhost: x\r\n\r\n"),
    ("a header line with no colon", b"GET /v1/models HTTP/1.1\r\nhost: x\r\nnocolon\r\n\r\n"),
    ("a space before a header's colon", b"GET /v1/models HTTP/1.1\r\nhost : x\r\n\r\n"),
    ("a NUL byte in a header", b"GET /v1/models HTTP/1.1\r\nhost: x\r\nx-a: b\x00c\r\n\r\n"),
    ("a method with bad characters", b"P{ST /v1/messages HTTP/1.1\r\nhost: x\r\n\r\n"),
    ("no host header", b"GET /v1/models HTTP/1.1\r\n\r\n"),
]


def _malformed(rig: Rig) -> None:
    for name, data in MALFORMED:
        with socket.create_connection(("127.0.0.1", rig.observe.port), 30) as s:
            s.sendall(data)
            reply = read_all(s, 20)
        status = status_of(reply)
        rig.check(
            f"malformed HTTP, {name}: answered 4xx",
            400 <= status < 506 and status != 408,
            f"reply {reply[:60]!r}",
        )


def _sizes(rig: Rig) -> None:
    p = rig.observe
    base = p.rss_mb()
    with socket.create_connection(("127.0.0.1", p.port), 30) as s:
        s.sendall(head("anthropic", "/v1/messages", 50 << 20))
        started = time.monotonic()
        reply = read_all(s, 20)
        took = time.monotonic() - started
    rig.check(
        "a 50 MB body: 413 with the limit, before it is sent",
        status_of(reply) == 413 and b"33,554,432" in reply and took < 5,
        f"reply {reply[:80]!r} after {took:.1f} s",
    )
    with socket.create_connection(("127.0.0.1", p.port), 60) as s:
        s.sendall(head("anthropic", "/v1/messages", None, "transfer-encoding: chunked\r\n"))
        sent, status = 0, 0
        chunk = b"%x\r\n" % (1 << 20) + b" " * (1 << 20) + b"\r\n"
        with contextlib.suppress(OSError):
            while sent < (50 << 20):
                s.sendall(chunk)
                sent += 1 << 20
        reply = read_all(s, 20)
        status = status_of(reply)
    grew = p.rss_mb() - base
    rig.check(
        "a 50 MB chunked body: 413 as it passes the limit, RSS +< 64 MB",
        status == 413 and grew < 64,
        f"status {status}, RSS +{grew:.0f} MB",
    )
    with socket.create_connection(("127.0.0.1", p.port), 30) as s:
        s.sendall(b"GET /v1/models HTTP/1.1\r\nhost: x\r\nx-big: " + b"a" * 200_000 + b"\r\n\r\n")
        reply = read_all(s, 20)
    rig.check(
        "a 200 KB header: 431 with the limit",
        status_of(reply) == 431 and b"65,536" in reply,
        f"reply {reply[:80]!r}",
    )
    many = b"".join(b"x-h%d: v\r\n" % i for i in range(20_000))
    with socket.create_connection(("127.0.0.1", p.port), 30) as s:
        s.sendall(b"GET /v1/models HTTP/1.1\r\nhost: x\r\n" + many + b"\r\n")
        reply = read_all(s, 20)
    rig.check("20,000 headers: 431", status_of(reply) == 431, f"reply {reply[:80]!r}")
    for proxy, mode in ((rig.observe, "observe"), (rig.fix, "--fix")):
        msgs = [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "ok"}]
        doc = body_of("anthropic") | {"messages": msgs * 200_000 + [msgs[0]]}
        data = json.dumps(doc, separators=(",", ":")).encode()
        before = proxy.rss_mb()
        status, _, took = exchange(proxy.port, "anthropic", data, timeout=180)
        grew = proxy.rss_mb() - before
        rig.check(
            f"{mode}: 400,001 small messages ({len(data) >> 20} MB): answered, RSS +< 400 MB",
            status in (200, 400, 413) and grew < 400,
            f"status {status} after {took:.1f} s, RSS +{grew:.0f} MB",
        )


def _others_wait(rig: Rig) -> None:
    """A large body parsed for --fix must not stall other clients (an upstream that answers at
    once, so that the wait measured is the proxy's)."""
    p = rig.fixraw
    doc = body_of("anthropic") | {"system": "s" * (30 << 20)}
    data = json.dumps(doc).encode()
    small = json.dumps(body_of("anthropic", "Quick one.")).encode()
    worst = 0.0
    done = threading.Event()

    took: list[float] = []
    waits: list[float] = []

    def big() -> None:
        took.append(exchange(p.port, "anthropic", data, timeout=120)[2])
        done.set()

    t = threading.Thread(target=big)
    t.start()
    time.sleep(0.2)
    while not done.is_set():
        waits.append(exchange(p.port, "anthropic", small)[2])
        worst = max(worst, waits[-1])
    t.join()
    print(
        f"  30 MB body: {took[0]:.1f} s; {len(waits)} small requests meanwhile, worst "
        f"{worst:.2f} s (load average {os.getloadavg()[0]:.1f})",
        file=sys.stderr,
    )
    rig.check(
        "--fix: a 30 MB body being parsed: other clients answered within 2 s",
        worst < 2.0,
        f"a small request waited {worst:.1f} s",
    )


def _connections(rig: Rig) -> None:
    p = rig.observe
    fds = p.fds()
    crowd = []
    for _ in range(500):
        s = socket.create_connection(("127.0.0.1", p.port), 30)
        s.sendall(b"POST /v1/messages HTTP/1.1\r\nho")
        crowd.append(s)
    started = time.monotonic()
    open_ = len(crowd)
    while open_ and time.monotonic() - started < 40:
        time.sleep(1)
        with contextlib.suppress(OSError):
            s = crowd[0]
            s.send(b"s")  # a slowloris: a byte now and then
        open_ = p.fds() - fds
    for s in crowd:
        s.close()
    rig.check(
        "500 slowloris connections: all closed by the head deadline (15 s default)",
        open_ <= 5,
        f"{open_} still open after {time.monotonic() - started:.0f} s",
    )
    idle = [socket.create_connection(("127.0.0.1", p.port), 30) for _ in range(200)]
    time.sleep(1)
    started = time.monotonic()
    while time.monotonic() - started < 45 and p.fds() - fds > 5:
        time.sleep(1)
    left = p.fds() - fds
    for s in idle:
        s.close()
    rig.check(
        "200 idle connections: closed by the idle deadline",
        left <= 5,
        f"{left} still open after {time.monotonic() - started:.0f} s",
    )


def _identity(rig: Rig) -> None:
    store = rig.fix.store
    assert store is not None
    before = len(rows(store))
    previous = None
    for turn in range(5):
        doc = body_of("responses", f"Identity turn {turn} " + "z" * 4000)
        if previous:
            doc["previous_response_id"] = previous
        status, answer, _ = exchange(rig.fix.port, "responses", json.dumps(doc).encode())
        previous = json.loads(answer).get("id") if status == 200 else None
    got = new_rows(store, before, 5)
    sessions = {sid for sid, _, _ in got}
    rig.check(
        "--fix: a Responses conversation by previous_response_id stays one session",
        len(got) == 5 and len(sessions) == 1,
        f"{len(got)} rows in {len(sessions)} sessions",
    )
    before = len(rows(store))
    for who in ("alpha", "beta"):
        for turn in range(2):
            msgs = [{"role": "user", "content": "Same opening message. " + "q" * 4000}]
            for t in range(turn):
                msgs += [
                    {"role": "assistant", "content": f"{who} answer {t}"},
                    {"role": "user", "content": f"{who} follow-up {t}"},
                ]
            doc = body_of("anthropic") | {"messages": msgs, "metadata": {"user_id": who}}
            exchange(rig.fix.port, "anthropic", json.dumps(doc).encode())
    got = new_rows(store, before, 4)
    sessions = {sid for sid, _, _ in got}
    rig.check(
        "--fix: two conversations with the same first message stay two sessions",
        len(got) == 4 and len(sessions) == 2,
        f"{len(got)} rows in {len(sessions)} sessions",
    )


def _full_disk(rig: Rig) -> None:
    """A store that cannot grow (RLIMIT_FSIZE on the proxy process): every client still has
    its answer, and each row not written is said in one line and counted on /metrics."""
    store = rig.folder / "full.sqlite"
    url = f"http://127.0.0.1:{rig.observe_upstream}"
    log = rig.folder / "full.log"
    p = start(["proxy", "--upstream", url, "--store", str(store), "-q"], log, store, 1 << 20)
    try:
        answered = 0
        for i in range(10):
            doc = body_of("anthropic", f"Full disk {i}") | {"system": f"{i} " + "d" * 300_000}
            status, _, _ = exchange(p.port, "anthropic", json.dumps(doc).encode())
            answered += status == 200
        time.sleep(2)  # the proxy accounts after the answer
        with socket.create_connection(("127.0.0.1", p.port), 10) as s:
            s.sendall(b"GET /metrics HTTP/1.1\r\nhost: x\r\nconnection: close\r\n\r\n")
            metrics = read_all(s, 10).decode(errors="replace")
        counted = 0
        for line in metrics.splitlines():
            if line.startswith("prefixlock_proxy_accounting_errors_total "):
                counted = int(float(line.split()[1]))
        said = [ln for ln in p.stderr().splitlines() if "could not record" in ln]
        stored = len(rows(store))
    finally:
        stop(p)
    rig.check(
        "a store on a full disk: every client answered",
        answered == 10,
        f"{answered} of 10 answered",
    )
    rig.check(
        "a store on a full disk: each lost row said in one line and counted on /metrics",
        counted > 0 and len(said) == counted and stored + counted == 10,
        f"{stored} stored, {counted} counted, {len(said)} lines said",
    )


def _aftermath(rig: Rig) -> None:
    for p, name in ((rig.observe, "observe"), (rig.fix, "--fix"), (rig.raw, "short timeouts")):
        rig.check(f"the {name} proxy is still running", p.alive(), "it exited")
        text = p.stderr()
        bad = text.count("Traceback") + text.count("RecursionError")
        rig.check(f"the {name} proxy's stderr holds no traceback", bad == 0, f"{bad} seen")
        if p.store is not None:
            with contextlib.closing(sqlite3.connect(f"file:{p.store}?mode=ro", uri=True)) as db:
                (ok,) = db.execute("PRAGMA integrity_check").fetchone()
            rig.check(f"the {name} proxy's store passes integrity_check", ok == "ok", ok)


@contextlib.contextmanager
def rig(folder: Path) -> Iterator[Rig]:
    emu = start(["serve"], folder / "serve.log")
    upstream = Upstream()
    bare = RawUpstream(upstream)
    procs = [emu]
    try:
        url = f"http://127.0.0.1:{emu.port}"
        common = ["proxy", "--upstream"]

        def proxy(name: str, up: str, *more: str) -> Proc:
            store = folder / f"{name}.sqlite"
            p = start([*common, up, "--store", str(store), *more], folder / f"{name}.log", store)
            procs.append(p)
            return p

        observe = proxy("observe", url)
        fix = proxy("fix", url, "--fix")
        short = ("--connect-timeout", "2", "--read-timeout", "2", "--total-timeout", "6")
        raw = proxy("raw", bare.url, *short)
        dead = proxy("dead", f"http://127.0.0.1:{free_port()}", *short)
        fixraw = proxy("fixraw", bare.url, "--fix")
        yield Rig(folder, observe, fix, raw, dead, fixraw, bare.url, emu.port)
    finally:
        upstream.stop.set()
        for p in procs:
            stop(p)
        bare.__exit__()


GROUPS: list[Callable[[Rig], None]] = [
    _normal,
    _hang_ups,
    _upstream_faults,
    _unreadable,
    _malformed,
    _sizes,
    _others_wait,
    _connections,
    _identity,
    _full_disk,
    _aftermath,
]


def run_probes(folder: Path | None = None, only: set[str] | None = None) -> list[Probe]:
    """Every probe (or the groups named in `only`: normal, hang_ups, upstream_faults, ...)."""
    with contextlib.ExitStack() as stack:
        if folder is None:
            folder = Path(stack.enter_context(tempfile.TemporaryDirectory()))
        with rig(folder) as r:
            for group in GROUPS:
                if only and group.__name__.strip("_") not in only:
                    continue
                try:
                    group(r)
                except Exception as exc:  # a probe the harness could not run is a failure
                    r.check(
                        f"{group.__name__} ran to the end", False, f"{type(exc).__name__}: {exc}"
                    )
            return r.probes
    return []


if __name__ == "__main__":
    got = run_probes(only=set(sys.argv[1].split(",")) if len(sys.argv) > 1 else None)
    held = sum(p.held for p in got)
    print(f"held {held} of {len(got)}")
    for p in got:
        if not p.held:
            print(f"  FAILED {p.name}: {p.why}")
    sys.exit(0 if held == len(got) else 1)


# -- the soak: the proxy process's memory over many requests ----------------------------------


def soak(folder: Path, requests: int, long_turns: int = 40, clients: int = 4) -> dict[str, Any]:
    """`requests` requests through the `prefixlock proxy` process (observing, recording to its
    store) in front of `prefixlock serve`, over keep-alive connections from `clients` threads,
    in one-request and in `long_turns`-request sessions. The proxy's RSS (from /proc) after
    1,000 requests and after all of them; every request answered 200."""
    emu = start(["serve"], folder / "soak-serve.log")
    store = folder / "soak.sqlite"
    px = start(
        ["proxy", "--upstream", f"http://127.0.0.1:{emu.port}", "--store", str(store), "-q"],
        folder / "soak-proxy.log",
        store,
    )
    system = "You are a careful coding agent. " * 60
    lock = threading.Lock()
    counter = {"next": 0, "session": 0, "bad": 0, "done": 0}
    marks: dict[int, float] = {}
    started = time.monotonic()

    def one_session() -> list[bytes]:
        with lock:
            s = counter["session"]
            counter["session"] += 1
        turns = 1 if s % 2 == 0 else long_turns
        msgs: list[dict[str, str]] = []
        out = []
        for t in range(turns):
            msgs = [*msgs, {"role": "user", "content": f"s{s} t{t} " + "w" * 300}]
            doc = {"model": "claude-sonnet-4-6", "max_tokens": 16, "system": system}
            out.append(json.dumps(doc | {"messages": msgs}).encode())
            msgs = [*msgs, {"role": "assistant", "content": f"answer {t}"}]
        return out

    def client() -> None:
        c = http.client.HTTPConnection("127.0.0.1", px.port, timeout=120)
        hdrs = {"content-type": "application/json", "x-api-key": KEY}
        while True:
            for data in one_session():
                with lock:
                    if counter["next"] >= requests:
                        c.close()
                        return
                    counter["next"] += 1
                try:
                    c.request("POST", "/v1/messages", body=data, headers=hdrs)
                    r = c.getresponse()
                    r.read()
                    ok = r.status == 200
                except (OSError, http.client.HTTPException):
                    c.close()
                    c = http.client.HTTPConnection("127.0.0.1", px.port, timeout=120)
                    ok = False
                with lock:
                    counter["bad"] += not ok
                    counter["done"] += 1
                    n = counter["done"]
                if n in (1_000, requests // 2, requests) or n % 10_000 == 0:
                    rss = px.rss_mb()
                    marks[n] = rss
                    print(
                        f"  soak: {n:,} requests, proxy RSS {rss:.0f} MB, "
                        f"{time.monotonic() - started:.0f} s",
                        file=sys.stderr,
                        flush=True,
                    )

    try:
        threads = [threading.Thread(target=client) for _ in range(clients)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        wall = time.monotonic() - started
        deadline = time.monotonic() + 120
        while len(rows(store)) < requests - counter["bad"] and time.monotonic() < deadline:
            time.sleep(0.5)
        marks[requests] = px.rss_mb()
        stored = len(rows(store))
        text = px.stderr()
        return {
            "requests": requests,
            "sessions": counter["session"],
            "failed": counter["bad"],
            "stored": stored,
            "rss_1000": marks.get(1_000, 0.0),
            "rss_half": marks.get(requests // 2, 0.0),
            "rss_last": marks[requests],
            "marks": marks,
            "wall_s": wall,
            "tracebacks": text.count("Traceback"),
            "load": os.getloadavg()[0],
        }
    finally:
        stop(px)
        stop(emu)
