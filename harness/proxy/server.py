"""The proxy's HTTP side: accepts clients on 127.0.0.1, forwards each request to the upstream
(a provider or the emulator) with httpx2, passes the answer back byte for byte (a stream chunk by
chunk, as it arrives), and hands what it saw to the observer.

An asyncio server, so concurrent clients and long streams cost no thread each, and a client
that disconnects cancels its upstream request at once: a watcher on the client's socket sees the
end of file and cancels the task that forwards (httpx2 then closes the upstream connection). The
client's key travels in the forwarded headers only: the proxy keeps a one-way hash of it
(`sessions.client_hash`), never the key, and never logs headers. Accounting (the guard, the
store, the trace) runs on one worker thread after the answer went out, off the request's path.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import json
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from decimal import Decimal
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any
from urllib.parse import urlsplit

from ..billing.prices import PriceTable
from ..clock import Clock, SystemClock
from ..errors import ConfigError
from ..guard.keepalive import KeepAlive, plan_ping
from ..wire import WireRequest
from .observe import Observed, Observer, StreamUsage, api_of, reply_usage, trace_line, wire_request
from .repair import repair
from .sessions import Match, SessionTracker, client_hash

if TYPE_CHECKING:
    import httpx2

    from ..store.database import SessionStore

UPSTREAMS = {"anthropic": "https://api.anthropic.com", "openai": "https://api.openai.com"}
# Hop-by-hop headers (RFC 9110 7.6.1) and those the proxy sets itself.
_DROP_REQUEST = {
    "host",
    "connection",
    "keep-alive",
    "proxy-connection",
    "transfer-encoding",
    "te",
    "trailer",
    "upgrade",
    "content-length",
    "accept-encoding",
    "proxy-authorization",
}
_DROP_RESPONSE = {
    "connection",
    "keep-alive",
    "transfer-encoding",
    "trailer",
    "upgrade",
    "content-length",
}
_MAX_HEAD = 64 * 1024


def upstream_url(value: str) -> str:
    """`anthropic`, `openai` or an http(s) URL, as the base URL requests are forwarded to."""
    if value in UPSTREAMS:
        return UPSTREAMS[value]
    parts = urlsplit(value)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise ConfigError(f"not anthropic, openai or an http(s) URL: {value!r}", where="--upstream")
    return value.rstrip("/")


@dataclass
class ProxyConfig:
    upstream: str = "anthropic"  # anthropic | openai | a base URL (the emulator's, say)
    fixes: frozenset[str] = frozenset()  # repair names (prefixlock.proxy.repair.FIXES)
    host: str = "127.0.0.1"
    port: int = 0  # 0: any free port
    trace: str | Path | None = None  # append every request as a JSONL trace line here
    timeout: float = 600.0
    observe: bool = True  # False: a plain forwarder (the benchmark's baseline for the guard)
    keepalive_every: float = 10.0  # seconds between keep-alive checks (with the keepalive fix)
    keepalive_spend: str = "0.50"  # dollars of pings per session at most


class _ClientGone(Exception):
    """The client closed its connection while its request was in flight."""


@dataclass
class _Request:
    method: str
    target: str
    headers: list[tuple[str, str]]
    body: bytes
    keep_alive: bool


@dataclass
class _Conn:
    reader: asyncio.StreamReader
    writer: asyncio.StreamWriter
    buf: bytearray = field(default_factory=bytearray)

    async def _fill(self) -> bool:
        data = await self.reader.read(1 << 16)
        self.buf += data
        return bool(data)

    async def read_request(self) -> _Request | None:
        while (end := self.buf.find(b"\r\n\r\n")) < 0:
            if len(self.buf) > _MAX_HEAD:
                raise ValueError("request head too large")
            if not await self._fill():
                return None
        head = bytes(self.buf[:end]).decode("latin-1")
        del self.buf[: end + 4]
        line, *rest = head.split("\r\n")
        method, target, version = line.split(" ", 2)
        headers = []
        for h in rest:
            name, _, value = h.partition(":")
            headers.append((name.strip(), value.strip()))
        low = {k.lower(): v for k, v in headers}
        if low.get("transfer-encoding", "").lower() == "chunked":
            body = await self._chunked()
        else:
            length = int(low.get("content-length") or 0)
            while len(self.buf) < length:
                if not await self._fill():
                    raise asyncio.IncompleteReadError(bytes(self.buf), length)
            body = bytes(self.buf[:length])
            del self.buf[:length]
        conn = low.get("connection", "").lower()
        keep = conn != "close" and (version != "HTTP/1.0" or conn == "keep-alive")
        return _Request(method, target, headers, body, keep)

    async def _chunked(self) -> bytes:
        out = bytearray()
        while True:
            while (end := self.buf.find(b"\r\n")) < 0:
                if not await self._fill():
                    raise asyncio.IncompleteReadError(bytes(out), None)
            size = int(bytes(self.buf[:end]).split(b";")[0], 16)
            del self.buf[: end + 2]
            while len(self.buf) < size + 2:
                if not await self._fill():
                    raise asyncio.IncompleteReadError(bytes(out), None)
            out += self.buf[:size]
            del self.buf[: size + 2]
            if size == 0:
                return bytes(out)

    async def until_gone(self) -> None:
        """Return when the client closes its end (bytes it sends meanwhile are kept)."""
        while await self._fill():
            pass


@dataclass
class _Warm:
    """A session the keepalive repair watches: its last request and, in memory only while it
    may be pinged, the headers (the client's key among them) a ping is sent with."""

    last: WireRequest
    client: str
    headers: dict[str, str]
    ka: KeepAlive


@dataclass
class Exchange:
    """One request through the proxy, as the server saw it (for figures and tests)."""

    api: str | None
    path: str
    status: int = 0
    cancelled: bool = False
    session_id: str | None = None
    repairs: tuple[str, ...] = ()


class Proxy:
    """A local prompt-cache proxy. `Proxy.start(config)` serves from a background thread."""

    def __init__(
        self,
        config: ProxyConfig | None = None,
        *,
        clock: Clock | None = None,
        prices: PriceTable | None = None,
        store: SessionStore | None = None,
        http_client: Callable[[], httpx2.AsyncClient] | None = None,
        on_observed: Callable[[str], None] | None = None,
    ) -> None:
        self.config = config or ProxyConfig()
        self.upstream = upstream_url(self.config.upstream)
        self.clock: Clock = clock or SystemClock()
        self.prices = prices or PriceTable.default()
        self.store = store
        self.tracker = SessionTracker()
        self.observer = Observer(self.prices)
        self.exchanges: list[Exchange] = []
        self.errors: list[str] = []  # accounting failures (never the request's): shown by tests
        self._make_client = http_client
        self._on_observed = on_observed
        self._client: httpx2.AsyncClient | None = None
        self._lock = threading.Lock()
        self._idle = threading.Condition(self._lock)
        self._in_flight = 0
        self._worker = concurrent.futures.ThreadPoolExecutor(1, thread_name_prefix="proxy-obs")
        self._trace: IO[str] | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._server: asyncio.Server | None = None
        self._thread: threading.Thread | None = None
        self._ready = threading.Event()
        self._stop: asyncio.Event | None = None
        self._startup_error: BaseException | None = None
        self._port = 0
        self._connections: dict[asyncio.Task[None], asyncio.StreamWriter] = {}
        self._warm: dict[str, _Warm] = {}  # the worker thread's
        self.pings: list[str] = []  # session ids, one per keep-alive ping sent

    # ---- lifecycle -------------------------------------------------------------------------

    @classmethod
    def start(cls, config: ProxyConfig | None = None, **kwargs: Any) -> Proxy:
        proxy = cls(config, **kwargs)
        proxy._thread = threading.Thread(target=proxy.serve_forever, daemon=True)
        proxy._thread.start()
        proxy._ready.wait(30)
        if proxy._startup_error is not None:
            raise proxy._startup_error
        return proxy

    def serve_forever(self) -> None:
        asyncio.run(self._main())

    async def _main(self) -> None:
        import httpx2

        self._loop = asyncio.get_running_loop()
        self._stop = asyncio.Event()
        try:
            if self.config.trace is not None:
                self._trace = open(self.config.trace, "a", encoding="utf-8")  # noqa: SIM115
            self._client = (
                self._make_client()
                if self._make_client is not None
                else httpx2.AsyncClient(timeout=self.config.timeout, trust_env=False)
            )
            self._server = await asyncio.start_server(
                self._connection, self.config.host, self.config.port, limit=1 << 20
            )
            self._port = int(self._server.sockets[0].getsockname()[1])
        except BaseException as exc:
            self._startup_error = exc
            self._ready.set()
            raise
        self._ready.set()
        ticker = None
        if "keepalive" in self.config.fixes and self.config.keepalive_every > 0:
            ticker = asyncio.create_task(self._keepalive_loop())
        try:
            await self._stop.wait()
        finally:
            if ticker is not None:
                ticker.cancel()
            self._server.close()
            # Idle keep-alive connections would outlive the server: end them first.
            for writer in list(self._connections.values()):
                writer.transport.abort()
            await asyncio.gather(*self._connections, return_exceptions=True)
            await self._client.aclose()
            self._worker.shutdown(wait=True)
            if self._trace is not None:
                self._trace.close()

    def wait(self) -> None:
        """Block until the proxy stops (`close()` from another thread, or Ctrl-C)."""
        while self._thread is not None and self._thread.is_alive():
            self._thread.join(0.5)

    def close(self) -> None:
        if self._loop is not None and self._stop is not None:
            self._loop.call_soon_threadsafe(self._stop.set)
        if self._thread is not None:
            self._thread.join(timeout=10)
            self._thread = None

    def __enter__(self) -> Proxy:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def port(self) -> int:
        return self._port

    @property
    def base_url(self) -> str:
        """For the Anthropic SDK; the OpenAI SDK takes `openai_base_url`."""
        return f"http://{self.config.host}:{self._port}"

    @property
    def openai_base_url(self) -> str:
        return self.base_url + "/v1"

    def settle(self, timeout: float = 30.0) -> None:
        """Wait until every request answered so far has been accounted (figures, store, trace):
        a client has its answer a moment before the proxy hands the exchange to the worker."""
        with self._idle:
            self._idle.wait_for(lambda: self._in_flight == 0, timeout)
        self._worker.submit(lambda: None).result()

    # ---- connections -----------------------------------------------------------------------

    async def _connection(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        sock = writer.get_extra_info("socket")
        if sock is not None:
            import socket

            with contextlib.suppress(OSError):
                sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        conn = _Conn(reader, writer)
        task = asyncio.current_task()
        if task is not None:
            self._connections[task] = writer
            task.add_done_callback(lambda t: self._connections.pop(t, None))
        try:
            while True:
                request = await conn.read_request()
                if request is None:
                    break
                if not await self._exchange(conn, request) or not request.keep_alive:
                    break
        except (ConnectionError, asyncio.IncompleteReadError, ValueError, _ClientGone):
            pass
        finally:
            writer.close()

    async def _exchange(self, conn: _Conn, request: _Request) -> bool:
        """Forward one request; False when the connection cannot be used again."""
        with self._lock:
            self._in_flight += 1
        try:
            return await self._exchange_counted(conn, request)
        finally:
            with self._idle:
                self._in_flight -= 1
                self._idle.notify_all()

    async def _exchange_counted(self, conn: _Conn, request: _Request) -> bool:
        path = request.target
        api = api_of(path) if request.method == "POST" and self.config.observe else None
        exchange = Exchange(api, path)
        with self._lock:
            self.exchanges.append(exchange)
        headers = {k.lower(): v for k, v in request.headers}
        send = request.body
        body: dict[str, Any] | None = None
        match: Match | None = None
        client = ""
        repairs: tuple[str, ...] = ()
        now = self.clock.now()
        if api is not None:
            with contextlib.suppress(ValueError):
                parsed = json.loads(request.body)
                body = parsed if isinstance(parsed, dict) else None
        if api is not None and body is not None:
            client = client_hash(_key_of(headers))
            with self._lock:
                match = self.tracker.identify(api, body, client)
                if self.config.fixes:
                    fixed = repair(api, body, request.body, match, self.config.fixes)
                    send, repairs = fixed.raw, fixed.applied
                self.tracker.remember(match, api, body, client)
            exchange.session_id, exchange.repairs = match.session_id, repairs
        forward = asyncio.create_task(self._forward(conn, request, headers, send, api, exchange))
        gone = asyncio.create_task(conn.until_gone())
        done, _ = await asyncio.wait({forward, gone}, return_when=asyncio.FIRST_COMPLETED)
        if forward not in done:
            # The client hung up first: stop the upstream request now.
            forward.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await forward
            exchange.cancelled = True
        else:
            gone.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await gone
        stream_usage: tuple[dict[str, Any] | None, str | None] = (None, None)
        if forward.done() and not forward.cancelled() and forward.exception() is None:
            stream_usage = forward.result()
        if match is not None and body is not None and (exchange.status or exchange.cancelled):
            sent = body if send is request.body else json.loads(send)
            keep = None
            if "keepalive" in self.config.fixes:
                keep = {k: v for k, v in headers.items() if k not in _DROP_REQUEST}
            self._worker.submit(
                self._account,
                match,
                client,
                api or "",
                path,
                sent,
                stream_usage,
                now,
                repairs,
                exchange,
                keep,
            )
        if exchange.cancelled:
            return False
        exc = forward.exception() if forward.done() and not forward.cancelled() else None
        if isinstance(exc, _ClientGone | ConnectionError):
            return False
        return exc is None

    async def _forward(
        self,
        conn: _Conn,
        request: _Request,
        headers: Mapping[str, str],
        send: bytes,
        api: str | None,
        exchange: Exchange,
    ) -> tuple[dict[str, Any] | None, str | None]:
        """Send upstream, write the answer to the client; return (usage, response id)."""
        import httpx2

        assert self._client is not None
        out_headers = {k: v for k, v in headers.items() if k not in _DROP_REQUEST}
        out_headers["accept-encoding"] = "identity"  # usage is read from the bytes passing by
        url = self.upstream + request.target
        upstream = self._client.build_request(
            request.method, url, headers=out_headers, content=send
        )
        writer = conn.writer
        try:
            response = await self._client.send(upstream, stream=True)
        except httpx2.HTTPError as exc:
            exchange.status = 502
            await self._write_error(writer, api, f"upstream unreachable ({type(exc).__name__})")
            return None, None
        try:
            exchange.status = response.status_code
            head = [f"HTTP/1.1 {response.status_code} {response.reason_phrase}\r\n"]
            for name, value in response.headers.multi_items():
                if name.lower() not in _DROP_RESPONSE:
                    head.append(f"{name}: {value}\r\n")
            streaming = response.headers.get("content-type", "").startswith("text/event-stream")
            if not streaming:
                data = await response.aread()
                head.append(f"content-length: {len(data)}\r\n\r\n")
                writer.write("".join(head).encode("latin-1") + data)
                await writer.drain()
                return (
                    reply_usage(api, data) if api and response.status_code == 200 else (None, None)
                )
            head.append("transfer-encoding: chunked\r\n\r\n")
            writer.write("".join(head).encode("latin-1"))
            await writer.drain()
            reading = StreamUsage(api or "")
            async for chunk in response.aiter_raw():
                if not chunk:
                    continue
                writer.write(f"{len(chunk):x}\r\n".encode() + chunk + b"\r\n")
                await writer.drain()
                if api is not None:
                    reading.feed(chunk)
            writer.write(b"0\r\n\r\n")
            await writer.drain()
            return reading.raw, reading.response_id
        except httpx2.HTTPError:
            # The upstream cut its answer: the client sees a cut answer too.
            writer.transport.abort()
            raise ConnectionError("upstream cut the response") from None
        finally:
            await response.aclose()

    async def _write_error(
        self, writer: asyncio.StreamWriter, api: str | None, message: str
    ) -> None:
        text = f"prefixlock proxy: {message}"
        if api == "anthropic":
            doc: dict[str, Any] = {"type": "error", "error": {"type": "api_error", "message": text}}
        else:
            doc = {"error": {"message": text, "type": "api_error", "code": None}}
        data = json.dumps(doc).encode()
        writer.write(
            b"HTTP/1.1 502 Bad Gateway\r\ncontent-type: application/json\r\n"
            + f"content-length: {len(data)}\r\n\r\n".encode()
            + data
        )
        await writer.drain()

    # ---- accounting (the worker thread) ----------------------------------------------------

    def _account(
        self,
        match: Match,
        client: str,
        api: str,
        path: str,
        body: dict[str, Any],
        reply: tuple[dict[str, Any] | None, str | None],
        now: float,
        repairs: tuple[str, ...],
        exchange: Exchange,
        keep: dict[str, str] | None = None,
    ) -> None:
        try:
            raw_usage, response_id = reply
            if response_id is not None:
                with self._lock:
                    self.tracker.link_response(response_id, match.session_id)
            if exchange.status not in (0, 200) and not exchange.cancelled:
                return  # an error answer: nothing was billed or cached
            req = wire_request(api, path.split("?", 1)[0], body)
            pred = self.observer.predict(match.session_id, req, now)
            seen = self.observer.observe(
                match.session_id,
                client,
                req,
                pred,
                raw_usage,
                now,
                repairs=repairs,
                status=exchange.status,
            )
            self._record(seen, client, "abandoned" if exchange.cancelled else "turn")
            if keep is not None and not exchange.cancelled:
                warm = self._warm.get(match.session_id)
                ka = warm.ka if warm else KeepAlive(max_spend=Decimal(self.config.keepalive_spend))
                ka.active_again(now)
                self._warm[match.session_id] = _Warm(req, client, keep, ka)
            if self._on_observed is not None:
                self._on_observed(self._summary(seen, exchange.cancelled))
        except Exception as exc:  # accounting must never take the proxy down
            self.errors.append(f"{type(exc).__name__}: {exc}")

    def _record(self, seen: Observed, client: str, kind: str) -> None:
        if self._trace is not None:
            self._trace.write(json.dumps(trace_line(seen), sort_keys=True) + "\n")
            self._trace.flush()
        if self.store is None:
            return
        from ..store.records import NewRequest

        provider = "anthropic" if seen.api == "anthropic" else "openai"
        if seen.seq == 0:
            self.store.create_session(
                seen.session_id,
                model=seen.model,
                api=seen.api,
                provider=provider,
                prefix={"system": [], "tools": []},
                prefix_fingerprint="proxy",
                created=seen.time,
                meta={"source": "proxy", "client": client, "upstream": self.upstream},
            )
        meta = {"repairs": list(seen.repairs), "estimated": seen.estimated}
        self.store.record_request(
            seen.session_id,
            NewRequest(
                kind=kind,
                time=seen.time,
                provider=provider,
                api=seen.api,
                model=seen.model,
                path=seen.path,
                body=seen.body,
                usage=seen.usage,
                cost=seen.cost,
                cost_without_cache=seen.cost_without_cache,
                cache_key=seen.body.get("prompt_cache_key"),
                predicted_read=seen.predicted_read,
                cause=seen.cause,
                rebilled=seen.rebilled,
                detail=json.dumps(meta, sort_keys=True) if not seen.detail else seen.detail,
            ),
        )

    # ---- keep-alive (the keepalive repair) -------------------------------------------------

    async def _keepalive_loop(self) -> None:
        while True:
            await asyncio.sleep(self.config.keepalive_every)
            await asyncio.to_thread(self.keepalive_tick)

    def keepalive_tick(self) -> list[str]:
        """Ping every watched session whose cache is about to expire, while a ping costs less
        than the re-write it saves (`prefixlock.guard.keepalive.plan_ping`). Returns the
        sessions pinged. Call from any thread but the proxy's own (it runs itself every
        `keepalive_every` seconds when the keepalive repair is on)."""
        if self._loop is None:
            return []
        now = self.clock.now()
        due = self._worker.submit(self._due_pings, now).result()
        pinged = []
        for sid, ping, headers in due:
            sent = asyncio.run_coroutine_threadsafe(self._send_ping(ping, headers), self._loop)
            status, raw_usage = sent.result(self.config.timeout)
            self._worker.submit(self._account_ping, sid, ping, status, raw_usage, now).result()
            pinged.append(sid)
        return pinged

    def _due_pings(self, now: float) -> list[tuple[str, WireRequest, dict[str, str]]]:
        due = []
        for sid, warm in list(self._warm.items()):
            guard = self.observer.guard(sid)
            plan = plan_ping(guard, warm.last, warm.ka, now)
            if plan.send and plan.request is not None:
                body = {k: v for k, v in plan.request.body.items() if k not in ("stream",)}
                due.append((sid, replace(plan.request, body=body), warm.headers))
            elif warm.ka.stopped is not None or plan.due_at is None:
                # No ping will pay again before the client's next request: forget its key.
                del self._warm[sid]
        return due

    async def _send_ping(
        self, ping: WireRequest, headers: Mapping[str, str]
    ) -> tuple[int, dict[str, Any] | None]:
        import httpx2

        assert self._client is not None
        data = json.dumps(dict(ping.body)).encode()
        try:
            r = await self._client.post(self.upstream + ping.path, content=data, headers=headers)
        except httpx2.HTTPError:
            return 0, None
        usage, _ = reply_usage(ping.api, r.content) if r.status_code == 200 else (None, None)
        return r.status_code, usage

    def _account_ping(
        self,
        sid: str,
        ping: WireRequest,
        status: int,
        raw_usage: dict[str, Any] | None,
        now: float,
    ) -> None:
        warm = self._warm.get(sid)
        if warm is None:
            return
        if status != 200 or raw_usage is None:
            warm.ka.stopped = "failed"
            return
        pred = self.observer.predict(sid, ping, now)
        seen = self.observer.observe(
            sid, warm.client, ping, pred, raw_usage, now, repairs=("keepalive",)
        )
        warm.ka.record(now, seen.usage.cache_read, seen.cost or Decimal(0))
        self.pings.append(sid)
        self._record(seen, warm.client, "ping")
        if self._on_observed is not None:
            self._on_observed(self._summary(seen, False))

    def _summary(self, seen: Observed, cancelled: bool) -> str:
        """One live line per request: the request, then its session's running figures."""
        figs = self.observer.sessions[seen.session_id]
        u = seen.usage
        cost = "unpriced" if seen.cost is None else f"${seen.cost:.4f}"
        parts = [
            f"{seen.session_id} #{seen.seq} {seen.model}: read {u.cache_read:,}/"
            f"{u.input_total:,} {cost}" + (" (cancelled by client)" if cancelled else ""),
            f"session {figs.hit_rate:.1%} hit, ${figs.cost:.4f}, saved ${figs.saved:.4f}",
        ]
        if seen.cause is not None:
            parts.append(f"break: {seen.cause} ({seen.rebilled:,} tokens)")
        if seen.repairs:
            parts.append("repairs: " + ",".join(seen.repairs))
        return "; ".join(parts)

    # ---- figures ---------------------------------------------------------------------------

    def figures(self) -> list[dict[str, Any]]:
        """Every detected session's figures so far (after `settle()` for the latest)."""
        self.settle()
        return [f.to_dict() for f in self.observer.sessions.values()]


def _key_of(headers: Mapping[str, str]) -> str | None:
    key = headers.get("x-api-key")
    if key:
        return key
    auth = headers.get("authorization", "")
    return auth[7:] if auth.lower().startswith("bearer ") else (auth or None)
