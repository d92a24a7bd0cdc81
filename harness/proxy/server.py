"""The proxy: an ASGI app on uvicorn (`httpserver`) that forwards each request to the upstream (a
provider or the emulator) with `upstream.client` (aiohttp, else httpx2), relays the answer byte
for byte (a stream as it arrives, all that has arrived in one write), and hands what it saw to
the observer.

Limits come before work: a body whose declared length is over `max_body` is answered 413 before
a byte of it is read (a chunked one when it passes the limit), a body that stops arriving for
`body_timeout` seconds 408, and the upstream has connect, read and total timeouts (504 naming the
upstream and the timeout). Without repairs the body is not parsed on the request's path at all:
it goes out as it came, and session detection, pricing and recording run on one worker thread
after the answer, in arrival order. With repairs it is parsed before forwarding (off the event
loop when large, so one huge body does not stall other clients), and a body that is not a JSON
object the proxy can read is answered 400 in the client's API's error shape, as the provider
would answer it. A client that hangs up cancels its upstream request at once (`_hung_up`). The
client's key travels in the forwarded headers only: the proxy keeps a one-way hash of it
(`sessions.client_hash`), never the key, and never logs headers.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import json
import threading
import time
from collections import OrderedDict, deque
from collections.abc import Awaitable, Callable, Mapping, MutableMapping
from dataclasses import asdict, dataclass, replace
from decimal import Decimal
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any
from urllib.parse import urlsplit

import msgspec

from ..billing.prices import PriceTable
from ..cache.keys import KeyShards, family_key
from ..clock import Clock, SystemClock
from ..errors import ConfigError
from ..guard.keepalive import KeepAlive, plan_ping
from ..wire import WireRequest
from .intake import TOO_DEEP, error_body, parse_body
from .jsonspan import JsonSpanError
from .layout import Layout
from .observe import (
    TIMELINE,
    Observed,
    Observer,
    StreamUsage,
    api_of,
    reply_usage,
    stored_timeline,
    trace_line,
    wire_request,
)
from .repair import prefix_family, repair
from .sessions import Match, SessionTracker, client_hash
from .team import DAY, Budgets, TeamLedger, Who, budget_error, lost_dollars, who
from .upstream import Upstream, UpstreamError, UpstreamTimeout, client

if TYPE_CHECKING:
    from opentelemetry.trace import Tracer
    from uvicorn.server import Server

    from ..store.database import SessionStore
    from ..store.postgres import PostgresStore

Scope = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[MutableMapping[str, Any]]]
Send = Callable[[MutableMapping[str, Any]], Awaitable[None]]

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
    "expect",
    "x-prefixlock-user",  # addressed to the proxy (team.who), not the provider
    "x-prefixlock-agent",
}
_DROP_RESPONSE = {b"connection", b"keep-alive", b"transfer-encoding", b"trailer", b"upgrade"}
_OFF_LOOP = 1 << 20  # bodies over 1 MiB are parsed and repaired on a thread
MAX_EXCHANGES = 4_096  # the newest exchanges kept in Proxy.exchanges
MAX_ERRORS = 100  # the newest accounting failures kept in Proxy.errors (all are counted)
_REPLY_CAP = 16 << 20  # a whole (not streamed) answer is read for usage up to this size
_DRAWN = 10  # /dashboard draws the timelines of the sessions that re-billed most, this many
# The last body's layout of each of the clients that sent last is kept for its next body
# (Layout(previous=)): this many clients, this much memory in all (as Layout.footprint estimates
# it), one at most a quarter of it. A client past them is read afresh: slower, not wrong.
_LAYOUTS_KEPT = 32
_LAYOUT_MEMORY = 32 << 20


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
    observe: bool = True  # False: a plain forwarder (the benchmark's baseline for the guard)
    keepalive_every: float = 10.0  # seconds between keep-alive checks (with the keepalive fix)
    keepalive_spend: str = "0.50"  # dollars of pings per session at most
    # The upstream: seconds to connect, to wait for its next bytes (the SDKs' own default is
    # 600), and for a whole exchange, streamed answer included.
    connect_timeout: float = 10.0
    read_timeout: float = 600.0
    total_timeout: float = 1800.0
    # The clients: the largest body (the Messages API's own request limit is 32 MB) and request
    # head, seconds to send a head, between two parts of a body, and idle between requests.
    max_body: int = 32 * 1024 * 1024
    max_head: int = 64 * 1024
    header_timeout: float = 15.0
    body_timeout: float = 30.0
    idle_timeout: float = 30.0
    # The request parser: httptools when installed, else h11 (httpserver.protocol).
    http: str = "auto"
    # The upstream client: aiohttp when installed, else httpx2 (upstream.client).
    client: str = "auto"


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
    answered: bool = False  # the whole answer went to the client
    # The answer while it is relayed: on a hang-up, what it had passed (Anthropic's input
    # tokens come first) is what the row records; dropped once handed to the worker.
    answer: _Answer | None = None


@dataclass
class _Job:
    """What the worker thread accounts for one request."""

    api: str
    path: str
    raw: bytes  # the body as sent upstream
    body: dict[str, Any] | None  # `raw` parsed, when the request's path parsed it
    match: Match | None
    client: str
    now: float
    repairs: tuple[str, ...]
    exchange: Exchange
    reply: _Answer | None  # what the upstream answered, read for usage by the worker
    keep: dict[str, str] | None  # headers to ping with (the keepalive repair)
    whom: Who
    started_ns: int  # wall clock, for the span
    ended_ns: int


class _Answer:
    """An upstream's 200 answer as it passed, read for usage on the worker thread after it went
    to the client, not on the request's path: its chunks up to `_REPLY_CAP` bytes (a stream
    over that is read as it passes from then on), or `live`, a stream read as it passed."""

    def __init__(self, api: str, streamed: bool, live: StreamUsage | None = None) -> None:
        self.api = api
        self.streamed = streamed
        self.live = live
        self.chunks: list[bytes] | None = []
        self.size = 0

    def add(self, chunk: bytes) -> None:
        if self.live is not None:
            self.live.feed(chunk)
            return
        if self.chunks is None:
            return
        self.size += len(chunk)
        if self.size <= _REPLY_CAP:
            self.chunks.append(chunk)
        elif self.streamed:
            self.live = StreamUsage(self.api)
            for kept in (*self.chunks, chunk):
                self.live.feed(kept)
            self.chunks = []
        else:
            self.chunks = None  # a whole answer too large to read for usage

    def usage(self) -> tuple[dict[str, Any] | None, str | None]:
        """(usage as the provider reported it, Responses API response id)."""
        if self.live is not None:
            return self.live.raw, self.live.response_id
        if self.chunks is None:
            return None, None
        if self.streamed:
            reading = StreamUsage(self.api)
            for chunk in self.chunks:
                reading.feed(chunk)
            return reading.raw, reading.response_id
        return reply_usage(self.api, b"".join(self.chunks))


class Proxy:
    """A local prompt-cache proxy. `Proxy.start(config)` serves from a background thread."""

    def __init__(
        self,
        config: ProxyConfig | None = None,
        *,
        clock: Clock | None = None,
        prices: PriceTable | None = None,
        store: SessionStore | PostgresStore | None = None,
        on_observed: Callable[[str], None] | None = None,
        budgets: Budgets | None = None,
        tracer: Tracer | None = None,
        on_error: Callable[[str], None] | None = None,
        loop_factory: Callable[[], asyncio.AbstractEventLoop] | None = None,
    ) -> None:
        self.config: ProxyConfig = config or ProxyConfig()
        self.upstream: str = upstream_url(self.config.upstream)
        self.clock: Clock = clock or SystemClock()
        self.prices: PriceTable = prices or PriceTable.default()
        self.store = store
        self.tracker: SessionTracker = SessionTracker()
        self.key_shards: KeyShards = KeyShards()  # OpenAI keys by prefix family (cache/keys.py)
        if store is not None and type(store).__name__ == "PostgresStore":
            from ..store.postgres import PostgresStore
            from .shared import SharedTracker

            assert isinstance(store, PostgresStore)
            self.tracker = SharedTracker(store)  # sessions shared with the other instances
        self.observer: Observer = Observer(self.prices)
        # The newest exchanges (tests and the dashboard read them); bounded, so a long-running
        # proxy does not keep one per request it ever served.
        self.exchanges: deque[Exchange] = deque(maxlen=MAX_EXCHANGES)
        self.team: TeamLedger = TeamLedger(self.prices)  # under self._lock
        self.budgets: Budgets = budgets or Budgets()
        self.tracer = tracer
        from .metrics import Metrics

        self.metrics: Metrics = Metrics()
        # Accounting failures (never the request's: the client has its answer): the newest
        # MAX_ERRORS, each also counted on /metrics and said in one line (`on_error`).
        self.errors: list[str] = []
        self.error_count: int = 0
        self._on_error = on_error
        # The event loop to serve on (default: uvloop's where installed): a test passes one
        # whose time it moves, so that deadlines pass without waiting for them.
        self._loop_factory = loop_factory
        self._on_observed = on_observed
        self._client: Upstream | None = None
        self._lock = threading.Lock()
        self._idle = threading.Condition(self._lock)
        self._in_flight = 0
        self._worker = concurrent.futures.ThreadPoolExecutor(1, thread_name_prefix="proxy-obs")
        self._trace: IO[str] | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._server: Server | None = None
        self._thread: threading.Thread | None = None
        self._ready = threading.Event()
        self._stop: asyncio.Event | None = None
        self._startup_error: BaseException | None = None
        self._port = 0
        self._warm: dict[str, _Warm] = {}  # the worker thread's
        self._layouts: OrderedDict[str, tuple[Layout, int]] = OrderedDict()  # under _lock
        self._layout_memory = 0
        self.pings: list[str] = []  # session ids, one per keep-alive ping sent

    # ---- lifecycle -------------------------------------------------------------------------

    @classmethod
    def start(cls, config: ProxyConfig | None = None, **kwargs: Any) -> Proxy:
        """Listen now (a busy port raises OSError here) and serve from a background thread."""
        from .httpserver import listen

        proxy = cls(config, **kwargs)
        sock = listen(proxy.config.host, proxy.config.port)
        proxy._port = int(sock.getsockname()[1])
        proxy._thread = threading.Thread(target=proxy._serve, args=(sock,), daemon=True)
        proxy._thread.start()
        proxy._ready.wait(30)
        if proxy._startup_error is not None:
            raise proxy._startup_error
        return proxy

    def _serve(self, sock: Any) -> None:
        from .httpserver import loop_factory

        with asyncio.Runner(loop_factory=self._loop_factory or loop_factory()) as runner:
            runner.run(self._main(sock))

    async def _main(self, sock: Any) -> None:
        from .httpserver import server

        self._loop = asyncio.get_running_loop()
        self._stop = asyncio.Event()
        c = self.config
        try:
            if c.trace is not None:
                self._trace = open(c.trace, "a", encoding="utf-8")  # noqa: SIM115
            self._client = client(c.client, c.connect_timeout, c.read_timeout)
            self._server = server(
                self,
                header_timeout=c.header_timeout,
                idle_timeout=c.idle_timeout,
                max_head=c.max_head,
                parser=c.http,
            )
            serving = asyncio.create_task(self._server.serve(sockets=[sock]))
            while not self._server.started and not serving.done():
                await asyncio.sleep(0.005)
            if serving.done():
                serving.result()
        except BaseException as exc:
            self._startup_error = exc
            self._ready.set()
            sock.close()
            raise
        self._ready.set()
        ticker = None
        if "keepalive" in c.fixes and c.keepalive_every > 0:
            ticker = asyncio.create_task(self._keepalive_loop())
        try:
            await self._stop.wait()
        finally:
            if ticker is not None:
                ticker.cancel()
            self._server.should_exit = True
            await serving
            sock.close()
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
            # No timeout: the serving thread's shutdown is bounded (uvicorn's graceful timeout,
            # then the accounting already queued), and the caller closes the store and the trace
            # right after this returns; a thread still writing to them would race that close.
            self._thread.join()
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
        host = f"[{self.config.host}]" if ":" in self.config.host else self.config.host
        return f"http://{host}:{self._port}"

    @property
    def openai_base_url(self) -> str:
        return self.base_url + "/v1"

    def settle(self, timeout: float = 30.0) -> None:
        """Wait until every request answered so far has been accounted (figures, store, trace):
        a client has its answer a moment before the proxy hands the exchange to the worker."""
        with self._idle:
            self._idle.wait_for(lambda: self._in_flight == 0, timeout)
        self._worker.submit(lambda: None).result()

    # ---- the ASGI app ----------------------------------------------------------------------

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            return
        if scope["method"] == "GET" and scope["path"] in ("/metrics", "/dashboard"):
            await self._page(scope["path"], send)  # served, not forwarded nor counted
            return
        with self._lock:
            self._in_flight += 1
        try:
            await self._exchange(scope, receive, send)
        finally:
            with self._idle:
                self._in_flight -= 1
                self._idle.notify_all()

    async def _exchange(self, scope: Scope, receive: Receive, send: Send) -> None:
        c = self.config
        target = scope["raw_path"].decode("latin-1")
        if scope["query_string"]:
            target += "?" + scope["query_string"].decode("latin-1")
        method = scope["method"]
        started_ns = time.time_ns()
        api = api_of(target) if method == "POST" and c.observe else None
        headers: dict[str, str] = {}
        for name, value in scope["headers"]:
            headers[name.decode("latin-1")] = value.decode("latin-1")
        length = headers.get("content-length")
        if length is not None and length.isdigit() and int(length) > c.max_body:
            await self._refuse(
                send,
                413,
                api,
                "request_too_large",
                f"the request body is {int(length):,} bytes, over the proxy's limit of "
                f"{c.max_body:,} bytes (--max-body)",
            )
            return
        raw = await self._read_body(receive, send, api)
        if raw is None:
            return
        exchange = Exchange(api, target)
        with self._lock:
            self.exchanges.append(exchange)
        now = self.clock.now()
        client = client_hash(_key_of(headers)) if api is not None else ""
        whom = who(headers, client)
        warning = None
        if api is not None and (self.budgets.per_key or self.budgets.per_user):
            warning = await asyncio.to_thread(self._over_budget, whom, now)
            if warning is not None and self.budgets.refuse:
                kind, code = budget_error(api)
                exchange.status = 429
                await self._refuse(send, 429, api, kind, warning, code)
                return
        body: dict[str, Any] | None = None
        match: Match | None = None
        send_raw = raw
        if api is not None and c.fixes:
            prepared = (
                await asyncio.to_thread(self._prepare, api, raw, headers)
                if len(raw) > _OFF_LOOP or self._lock.locked()  # never block the loop on it
                else self._prepare(api, raw, headers)
            )
            if isinstance(prepared, str):
                exchange.status = 400
                await self._refuse(send, 400, api, "invalid_request_error", prepared)
                return
            body, match, client, send_raw, exchange.repairs = prepared
            exchange.session_id = match.session_id
        forward = asyncio.create_task(
            self._forward(method, target, headers, send_raw, api, send, exchange, warning)
        )
        gone = asyncio.create_task(_until_disconnect(receive))
        await asyncio.wait({forward, gone}, return_when=asyncio.FIRST_COMPLETED)
        if not forward.done() and not exchange.answered:
            forward.cancel()
            await asyncio.gather(forward, return_exceptions=True)
            self._hung_up(exchange)
        else:
            await asyncio.gather(forward, return_exceptions=True)
        gone.cancel()
        await asyncio.gather(gone, return_exceptions=True)
        reply: _Answer | None = None
        if forward.done() and not forward.cancelled() and forward.exception() is None:
            reply = forward.result()
        elif exchange.cancelled:
            reply = exchange.answer  # what passed before the hang-up (Anthropic's input first)
        exchange.answer = None
        if api is not None and (exchange.status or exchange.cancelled):
            keep = None
            if "keepalive" in c.fixes:
                keep = {k: v for k, v in headers.items() if k not in _DROP_REQUEST}
            job = _Job(
                api,
                target,
                send_raw,
                body if send_raw is raw else None,
                match,
                client,
                now,
                exchange.repairs,
                exchange,
                reply,
                keep,
                whom,
                started_ns,
                time.time_ns(),
            )
            self._worker.submit(self._account, job)

    async def _refuse(
        self, send: Send, status: int, api: str | None, kind: str, message: str, code: str = ""
    ) -> None:
        self.metrics.refused.labels(str(status)).inc()
        await _reply(send, status, api, kind, message, code)

    async def _page(self, target: str, send: Send) -> None:
        """/metrics (Prometheus text) or /dashboard (HTML)."""
        if target == "/metrics":
            self.metrics.in_flight.set(self._in_flight)
            self.metrics.loop_cpu.set(time.thread_time())  # this is the serving thread
            data = self.metrics.render()
            kind = b"text/plain; version=0.0.4; charset=utf-8"
        else:
            data = (await asyncio.to_thread(self.dashboard)).encode()
            kind = b"text/html; charset=utf-8"
        headers = [(b"content-type", kind), (b"content-length", str(len(data)).encode())]
        await send({"type": "http.response.start", "status": 200, "headers": headers})
        await send({"type": "http.response.body", "body": data, "more_body": False})

    def dashboard(self) -> str:
        """The /dashboard page. Sessions and the timelines come from the shared store when
        there is one (every instance's), else from this proxy's figures; spend by key, user and
        agent and the dollars lost by cause are this instance's."""
        from ..store.postgres import PostgresStore
        from .dashboard import render

        self._worker.submit(lambda: None).result()  # what was answered so far, accounted
        if isinstance(self.store, PostgresStore):  # every instance's requests
            sessions = self.store.stats()
            stored = self.store.timelines(_DRAWN, TIMELINE + 1)
            timelines = {sid: stored_timeline(rows) for sid, rows in stored.items() if rows}
        else:
            sessions = [f.to_dict() for f in self.observer.sessions.values()]
            timelines = self._worker.submit(self._timelines).result()
        with self._lock:
            team = self.team.rows()
            lost = dict(self.team.total.lost)
        return render(sessions, team, lost, self.upstream, timelines)

    def _timelines(self, most: int = _DRAWN) -> dict[str, list[dict[str, Any]]]:
        """The timelines of the `most` sessions that re-billed most tokens (the worker's)."""
        ranked = sorted(
            self.observer.sessions.values(),
            key=lambda f: (sum(f.breaks.values()), f.cost, f.requests),
            reverse=True,
        )
        return {f.session_id: list(f.timeline) for f in ranked[:most] if f.timeline}

    def _over_budget(self, whom: Who, now: float) -> str | None:
        from ..store.postgres import PostgresStore

        store = self.store
        if isinstance(store, PostgresStore):  # every instance's spend
            since = now - now % DAY
            return self.budgets.over(lambda kind, name: store.spent(kind, name, since), whom)
        with self._lock:
            return self.budgets.over(lambda kind, name: self.team.spent(kind, name, now), whom)

    def _link_early(self, exchange: Exchange) -> Callable[[str], None] | None:
        """With --fix the session is known before the answer: a Responses id is linked to it
        as soon as the stream names it (not when the worker accounts the request), so a client
        that continues at once with `previous_response_id` finds its session."""
        sid = exchange.session_id
        if not sid:
            return None

        def link(response_id: str) -> None:
            with self._lock:
                self.tracker.link_response(response_id, sid)

        return link

    def _hung_up(self, exchange: Exchange) -> None:
        """The client hung up before its whole answer went out, and the upstream request was
        cancelled. The upstream may have billed it: the worker records a row for it all the
        same (kind "abandoned", usage as far as the stream showed it, else the guard's
        estimate), so the store and --stats see the request."""
        exchange.cancelled = True

    async def _read_body(self, receive: Receive, send: Send, api: str | None) -> bytes | None:
        """The request body, or None when it was refused (413, 408) or the client left."""
        c = self.config
        parts: list[bytes] = []
        size = 0
        while True:
            try:
                message = await asyncio.wait_for(receive(), c.body_timeout)
            except TimeoutError:
                await _reply(
                    send,
                    408,
                    api,
                    "request_timeout",
                    f"the request body stopped arriving for {c.body_timeout:g} s (--body-timeout)",
                )
                return None
            if message["type"] != "http.request":
                return None  # the client left before sending it all
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > c.max_body:
                await _reply(
                    send,
                    413,
                    api,
                    "request_too_large",
                    f"the request body is over the proxy's limit of {c.max_body:,} bytes "
                    "(--max-body)",
                )
                return None
            parts.append(chunk)
            if not message.get("more_body", False):
                return parts[0] if len(parts) == 1 else b"".join(parts)

    def _prepare(
        self, api: str, raw: bytes, headers: Mapping[str, str]
    ) -> tuple[dict[str, Any], Match, str, bytes, tuple[str, ...]] | str:
        """Parse, identify and repair a body (for --fix); a string says why it is refused."""
        client = client_hash(_key_of(headers))
        body, layout, why = self._read(client, raw)
        if body is None:
            return why or "the request body cannot be read"
        try:
            with self._lock:
                match = self.tracker.identify(api, body, client, layout=layout)
                key = None
                if api != "anthropic":  # OpenAI: the key of the prefix family's shard
                    family, now = prefix_family(match, client), self.clock.now()
                    key = family_key(family, self.key_shards.take(family, match.session_id, now))
                    self.key_shards.sent(family, match.session_id, now)
                fixed = repair(api, body, raw, match, self.config.fixes, key, layout)
                self.tracker.remember(match, api, body, client)
                self._keep(client, layout)
        except RecursionError:
            return TOO_DEEP
        return body, match, client, fixed.raw, fixed.applied

    def _read(
        self, client: str, raw: bytes
    ) -> tuple[dict[str, Any] | None, Layout | None, str | None]:
        """(the body, its layout, None) or (None, None, why it is refused). The body is read
        with what the client's previous body's layout read (`Layout.document`), or by a full
        parse (`intake.parse_body`) where the layout cannot explain the bytes or a value."""
        with self._lock:
            kept = self._layouts.get(client)
        layout = None
        with contextlib.suppress(JsonSpanError):  # not even a document: the parse refuses it
            layout = Layout(raw, previous=kept[0] if kept is not None else None)
        if layout is not None:
            try:
                return layout.document(), layout, None
            except (JsonSpanError, msgspec.MsgspecError, RecursionError):
                pass  # a duplicate key, a lone surrogate, a deep nest: the full parse judges
        body, why = parse_body(raw)
        if body is None:
            return None, None, why
        return body, layout, None

    def _keep(self, client: str, layout: Layout | None) -> None:
        """Keep `layout`, its work done, for the client's next body. Under _lock."""
        old = self._layouts.pop(client, None)
        if old is not None:
            self._layout_memory -= old[1]
        if layout is None:
            return
        cost = layout.footprint()
        if cost > _LAYOUT_MEMORY // 4:
            return  # a body this large is read afresh next time
        self._layouts[client] = (layout, cost)
        self._layout_memory += cost
        while self._layout_memory > _LAYOUT_MEMORY or len(self._layouts) > _LAYOUTS_KEPT:
            self._layout_memory -= self._layouts.popitem(last=False)[1][1]

    async def _forward(
        self,
        method: str,
        target: str,
        headers: Mapping[str, str],
        data: bytes,
        api: str | None,
        send: Send,
        exchange: Exchange,
        warning: str | None = None,
    ) -> _Answer | None:
        """Send upstream, relay the answer to the client; return it, for the worker to read
        (None: not one the upstream billed)."""
        assert self._client is not None
        c = self.config
        out = {k: v for k, v in headers.items() if k not in _DROP_REQUEST}
        out["accept-encoding"] = "identity"  # usage is read from the bytes passing by
        started = False
        try:
            async with asyncio.timeout(c.total_timeout):
                response = await self._client.send(method, self.upstream + target, out, data)
                try:
                    exchange.status = response.status
                    head = [(k, v) for k, v in response.headers if k.lower() not in _DROP_RESPONSE]
                    if warning is not None:  # a budget in warn mode: forwarded, and said so
                        head.append((b"x-prefixlock-budget", warning.encode("ascii", "replace")))
                    await send(
                        {"type": "http.response.start", "status": response.status, "headers": head}
                    )
                    started = True
                    streaming = response.header(b"content-type").startswith("text/event-stream")
                    answer = None
                    if api is not None:
                        # A Responses stream is read as it passes, to link its id at once;
                        # any other answer is kept for the worker to read after it.
                        live = api == "openai-responses" and streaming
                        answer = _Answer(
                            api,
                            streaming,
                            StreamUsage(api, on_response_id=self._link_early(exchange))
                            if live
                            else None,
                        )
                    exchange.answer = answer  # a client that hangs up: read what passed
                    # With --fix, a whole Responses answer's last part waits until its id is
                    # linked, so a client that continues at once finds its session.
                    link = (
                        self._link_early(exchange)
                        if api == "openai-responses" and not streaming
                        else None
                    )
                    held: bytes | None = None
                    async for chunk in response.chunks():
                        if not chunk:
                            continue
                        part = chunk
                        if link is not None:
                            part, held = held or b"", chunk
                        if part:
                            await send(
                                {"type": "http.response.body", "body": part, "more_body": True}
                            )
                        if answer is not None:
                            answer.add(chunk)
                    if link is not None and answer is not None and response.status == 200:
                        response_id = answer.usage()[1]
                        if response_id is not None:
                            link(response_id)
                    await send(
                        {"type": "http.response.body", "body": held or b"", "more_body": False}
                    )
                    exchange.answered = True
                finally:
                    await response.close()
        except (UpstreamTimeout, TimeoutError) as exc:
            which = (
                _which(exc.which, c)
                if isinstance(exc, UpstreamTimeout)
                else f"total timeout ({c.total_timeout:g} s, --total-timeout)"
            )
            if not started:
                exchange.status = 504
                await self._refuse(
                    send,
                    504,
                    api,
                    "timeout_error",
                    f"the upstream {self.upstream} did not answer within the {which}",
                )
            return None  # mid-answer: returning unfinished cuts the client's answer too
        except UpstreamError as exc:
            if not started:
                exchange.status = 502
                await self._refuse(
                    send, 502, api, "api_error", f"upstream unreachable: {self.upstream} ({exc})"
                )
            return None
        if api is None or response.status != 200:
            return None
        return answer

    # ---- accounting (the worker thread) ----------------------------------------------------

    def _account(self, job: _Job) -> None:
        try:
            self._account_job(job)
        except Exception as exc:  # accounting must never take the proxy down
            self._failed("could not account a request", exc)

    def _failed(self, what: str, exc: Exception) -> None:
        why = " ".join(f"{type(exc).__name__}: {exc}".split())  # one line
        self.errors.append(why)
        del self.errors[:-MAX_ERRORS]
        self.error_count += 1
        self.metrics.accounting_errors.inc()
        if self._on_error is not None:
            self._on_error(f"prefixlock proxy: {what} ({why}); the client had its answer")

    def _account_job(self, job: _Job) -> None:
        exchange = job.exchange
        body, match = job.body, job.match
        layout = None
        if match is None:  # observing: the body was forwarded unread
            body, layout, _ = self._read(job.client, job.raw)
        elif body is None:  # repaired: what went upstream
            body, _ = parse_body(job.raw)
        if body is None:
            return  # not JSON the proxy can read: the upstream answered it (400)
        if match is None:
            # Observing only: detect the body's session now, in arrival order.
            try:
                with self._lock:
                    match = self.tracker.identify(job.api, body, job.client, layout=layout)
                    self.tracker.remember(match, job.api, body, job.client)
                    self._keep(job.client, layout)
            except RecursionError:
                return
            exchange.session_id = match.session_id
        raw_usage, response_id = job.reply.usage() if job.reply is not None else (None, None)
        if response_id is not None:
            with self._lock:
                self.tracker.link_response(response_id, match.session_id)
        if exchange.status not in (0, 200) and not exchange.cancelled:
            return  # an error answer: nothing was billed or cached
        req = wire_request(job.api, job.path.split("?", 1)[0], body)
        pred = self.observer.predict(match.session_id, req, job.now)
        seen = self.observer.observe(
            match.session_id,
            job.client,
            req,
            pred,
            raw_usage,
            job.now,
            repairs=job.repairs,
            status=exchange.status,
        )
        try:
            self._record(seen, job.client, "abandoned" if exchange.cancelled else "turn", job.whom)
        except Exception as exc:  # a full disk, a read-only store: the figures go on
            self._failed(f"could not record a request of session {seen.session_id}", exc)
        lost = lost_dollars(self.prices, seen.model, seen.rebilled) if seen.cause else Decimal(0)
        with self._lock:
            self.team.add(job.whom, seen)
        self.metrics.observed(seen, job.whom, lost)
        if self.tracer is not None:
            self._span(job, seen)
        if job.keep is not None and not exchange.cancelled:
            warm = self._warm.get(match.session_id)
            ka = warm.ka if warm else KeepAlive(max_spend=Decimal(self.config.keepalive_spend))
            ka.active_again(job.now)
            self._warm[match.session_id] = _Warm(req, job.client, job.keep, ka)
        if self._on_observed is not None:
            self._on_observed(self._summary(seen, exchange.cancelled))

    def _span(self, job: _Job, seen: Observed) -> None:
        """One `chat <model>` span per request (GenAI conventions plus the cache's figures, as
        prefixlock's own sessions emit them: prefixlock.telemetry)."""
        from ..telemetry import PROVIDER_NAMES

        assert self.tracer is not None
        u = seen.usage
        attributes: dict[str, Any] = {
            "gen_ai.operation.name": "chat",
            "gen_ai.provider.name": PROVIDER_NAMES.get(seen.api, seen.api),
            "gen_ai.request.model": seen.model,
            "gen_ai.conversation.id": seen.session_id,
            "gen_ai.usage.input_tokens": u.input_total,
            "gen_ai.usage.output_tokens": u.output,
            "gen_ai.usage.cache_read.input_tokens": u.cache_read,
            "gen_ai.usage.cache_creation.input_tokens": u.cache_write,
            "prefixlock.cache.read": u.cache_read,
            "prefixlock.cache.written": u.cache_write,
            "prefixlock.cache.predicted": seen.predicted_read,
            "prefixlock.cache.rebilled": seen.rebilled,
            "prefixlock.proxy.key": job.whom.key,
            "prefixlock.proxy.user": job.whom.user,
            "prefixlock.proxy.agent": job.whom.agent,
            "http.response.status_code": seen.status,
        }
        if seen.cause is not None:
            attributes["prefixlock.cache.cause"] = seen.cause
        if seen.cost is not None:
            attributes["prefixlock.cost.dollars"] = float(seen.cost)
        span = self.tracer.start_span(
            f"chat {seen.model}", attributes=attributes, start_time=job.started_ns
        )
        span.end(end_time=job.ended_ns)

    def _record(self, seen: Observed, client: str, kind: str, whom: Who | None = None) -> None:
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
        record = NewRequest(
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
        )
        from ..store.postgres import PostgresStore

        if isinstance(self.store, PostgresStore):
            attributed = {} if whom is None else asdict(whom)
            self.store.record_request(seen.session_id, record, attributed)
        else:
            self.store.record_request(seen.session_id, record)

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
            status, raw_usage = sent.result(self.config.total_timeout)
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
        assert self._client is not None
        data = json.dumps(dict(ping.body)).encode()
        try:
            out = {**headers, "accept-encoding": "identity"}  # nothing is decompressed
            reply = await self._client.send("POST", self.upstream + ping.path, out, data)
            content = await reply.read()
        except (UpstreamError, UpstreamTimeout):
            return 0, None
        usage, _ = reply_usage(ping.api, content) if reply.status == 200 else (None, None)
        return reply.status, usage

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


async def _until_disconnect(receive: Receive) -> None:
    """Return when the client hangs up (uvicorn also says so once the answer is complete)."""
    while (await receive())["type"] != "http.disconnect":
        pass


async def _reply(
    send: Send, status: int, api: str | None, kind: str, message: str, code: str = ""
) -> None:
    """An error answer of the proxy's own, in the shape of the client's API."""
    data = error_body(api, kind, message, code)
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(data)).encode())]
    if status in (408, 413):  # the body was not read: close rather than read the rest of it
        headers.append((b"connection", b"close"))
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": data, "more_body": False})


def _which(which: str, c: ProxyConfig) -> str:
    """The timeout `which` (upstream.UpstreamTimeout) as the flag that sets it."""
    if which == "connect":
        return f"connect timeout ({c.connect_timeout:g} s, --connect-timeout)"
    return f"{which} timeout ({c.read_timeout:g} s, --read-timeout)"
