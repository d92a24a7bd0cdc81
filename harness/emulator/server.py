"""The emulator's HTTP server: reads requests, writes JSON and SSE responses, keeps the state.

A stdlib HTTPServer on 127.0.0.1 (port 0 picks a free port), HTTP/1.1 with keep-alive, each
connection served by a capped pool of worker threads (`workers`: a connection beyond the cap
waits in the listen backlog until one is free); streams are chunked so that a cut stream is
visible to the client as an incomplete body. Every
decision is made by the pure modules: `intake` checks a request, `faults` says what an injected
fault does, `core` plans the response (cache lookup, usage, body, events) and `answers` makes it
bytes. This one reads and writes the bytes, reads the clock, waits out latency faults, keeps the
shared state under one lock, and records every request for tests to inspect.
"""

from __future__ import annotations

import contextlib
import functools
import os
import selectors
import socket
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, HTTPServer
from typing import Any

from ..billing.prices import PriceTable
from ..clock import Clock, ManualClock, SystemClock
from . import intake
from .answers import Answer, error_answer, json_answer, response_answer
from .apierror import ApiError
from .config import EmulatorConfig, FaultKind, FaultSpec
from .core import EmulatorCore, Plan
from .diagnostics import DiagnosticsMemory
from .faults import Delivery, plan_fault
from .intake import RecordedRequest
from .model import Script, ScriptedModel
from .promptcache import AnthropicPromptCache, DeepSeekPromptCache, OpenAIPromptCache
from .workers import WorkerPool

__all__ = ["PROXY_VARS", "Emulator", "RecordedRequest", "bypass_proxies"]

# Real time a latency fault waits at most for a ManualClock to be advanced: tests that forget
# to advance the clock stay fast instead of hanging.
MANUAL_LATENCY_CAP_S = 10.0


class Emulator:
    """A local Anthropic/OpenAI look-alike with real prompt-cache rules and a scripted model."""

    def __init__(
        self,
        config: EmulatorConfig | None = None,
        clock: Clock | None = None,
        *,
        prices: PriceTable | None = None,
        script: Script | None = None,
    ) -> None:
        config = config or EmulatorConfig()
        self.clock: Clock = clock if clock is not None else SystemClock()
        if prices is None:
            prices = PriceTable.default(config.prices)
        if script is None and config.script:
            script = Script.load(config.script)
        # The caches, the scripted model, the faults and the ids: used only under `_lock`.
        core = EmulatorCore(config, prices, script)
        self.core: EmulatorCore = core
        # The core's own objects, under the names tests and tools read (not to be replaced).
        self.config: EmulatorConfig = core.config
        self.prices: PriceTable = core.prices
        self.model: ScriptedModel = core.model
        self.anthropic_cache: AnthropicPromptCache = core.anthropic_cache
        self.openai_cache: OpenAIPromptCache = core.openai_cache
        self.deepseek_cache: DeepSeekPromptCache = core.deepseek_cache
        self.diagnostics: DiagnosticsMemory = core.diagnostics
        self.requests: list[RecordedRequest] = []
        self._lock = threading.RLock()
        # Signalled whenever `_in_flight` changes (for `wait_in_flight`).
        self._in_flight_changed = threading.Condition(self._lock)
        self._in_flight = 0
        self._server: _Server | None = None
        self._thread: threading.Thread | None = None

    # ---- lifecycle -------------------------------------------------------------------------

    @classmethod
    def start(
        cls,
        config: EmulatorConfig | None = None,
        clock: Clock | None = None,
        *,
        prices: PriceTable | None = None,
        script: Script | None = None,
    ) -> Emulator:
        """Start serving on a background thread; use as a context manager to stop it."""
        emu = cls(config, clock, prices=prices, script=script)
        emu.serve_in_background()
        return emu

    def serve_in_background(self) -> None:
        """Start serving on a background thread (OSError when the address cannot be bound)."""
        self._server = _make_server(self)
        bypass_proxies(self.config.host)
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )
        self._thread.start()

    def serve_forever(self) -> None:
        """Serve on this thread until interrupted (`prefixlock serve`)."""
        self._server = _make_server(self)
        bypass_proxies(self.config.host)
        try:
            self._server.serve_forever(poll_interval=0.2)
        finally:
            self._server.server_close()

    def close(self) -> None:
        """Stop serving and close the listening socket."""
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None
        if self._thread is not None:
            self._thread.join(timeout=5)
            self._thread = None

    def __enter__(self) -> Emulator:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def port(self) -> int:
        """The port it listens on."""
        if self._server is None:
            raise RuntimeError("the emulator is not serving")
        return int(self._server.server_address[1])

    @property
    def base_url(self) -> str:
        """For the Anthropic SDK; the OpenAI SDK takes `base_url + "/v1"` (`openai_base_url`)."""
        return f"http://{self.config.host}:{self.port}"

    @property
    def openai_base_url(self) -> str:
        """The base URL for the OpenAI SDK (`.../v1`)."""
        return self.base_url + "/v1"

    # ---- test controls ---------------------------------------------------------------------

    def inject(
        self,
        kind: FaultKind,
        count: int = 1,
        *,
        after: int = 0,
        path: str = "",
        retry_after: float | None = None,
        seconds: float = 0.0,
    ) -> None:
        """Make the next `count` matching requests fail (429, 529, 500), cut, or wait."""
        spec = FaultSpec(
            kind=kind, count=count, after=after, path=path, retry_after=retry_after, seconds=seconds
        )
        with self._lock:
            self.core.faults.add(spec)

    def clear_faults(self) -> None:
        """Drop every fault injected and not yet served."""
        with self._lock:
            self.core.faults.clear()

    def evict(self, model: str | None = None, api_key: str | None = None) -> int:
        """Drop cached prefixes, as a provider does under memory pressure. Returns entries dropped.

        `model` (an alias or provider prefix names the model it resolves to) limits the drop to
        that model's entries, other models' survive; `api_key` to that key's (every cache is
        scoped by key, as each provider's is by organization or user).
        """
        with self._lock:
            return self.core.evict(model, api_key)

    def flush(self) -> int:
        """Drop every cached entry of every provider."""
        return self.evict()

    @property
    def in_flight(self) -> int:
        """Requests accepted and not yet answered (for tests of parallel cold requests)."""
        with self._lock:
            return self._in_flight

    def wait_in_flight(self, count: int, timeout: float = 5.0) -> bool:
        """Block until at least `count` requests are in flight (accepted, not yet answered), at
        most `timeout` seconds of real time: tests start slow requests on other threads and
        wait here for the server to hold them, instead of polling. False on timeout."""
        with self._in_flight_changed:
            return self._in_flight_changed.wait_for(lambda: self._in_flight >= count, timeout)

    @property
    def worker_threads(self) -> int:
        """Worker threads the server has made so far (at most `config.workers`)."""
        return self._server.pool.threads if self._server is not None else 0

    def served(self, api: str | None = None) -> list[RecordedRequest]:
        """Requests answered in full (not cut short by a fault), optionally of one API."""
        with self._lock:
            return [r for r in self.requests if intake.served_in_full(r, api)]

    # ---- request handling (called from server threads) -----------------------------------

    def _next_id(self, prefix: str) -> str:
        with self._lock:
            return self.core.next_id(prefix)

    def _wait(self, seconds: float) -> None:
        """Added latency on the emulator's clock (a ManualClock waits for the test to advance)."""
        if seconds <= 0:
            return
        if isinstance(self.clock, ManualClock):
            target = self.clock.now() + seconds
            deadline = time.monotonic() + MANUAL_LATENCY_CAP_S
            while self.clock.now() < target and time.monotonic() < deadline:
                time.sleep(0.002)
        else:
            time.sleep(seconds)


PROXY_VARS = ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy")


def bypass_proxies(host: str) -> None:
    """Add `host` to NO_PROXY (both spellings) when a proxy variable is set.

    The SDKs' HTTP clients honour HTTP_PROXY and friends, so on a machine with a proxy set a
    client of the local emulator would send its requests to the proxy, which cannot reach this
    process's 127.0.0.1 (a connection error, or the proxy's own answer). Clients made after the
    emulator starts read the updated variable.
    """
    if not any(os.environ.get(var) for var in PROXY_VARS):
        return
    for var in ("NO_PROXY", "no_proxy"):
        hosts = [h.strip() for h in os.environ.get(var, "").split(",") if h.strip()]
        if host not in hosts and "*" not in hosts:
            os.environ[var] = ",".join([*hosts, host])


class _Server(HTTPServer):
    """Serves each connection on a worker of a capped pool (instead of a new thread each).

    The accept loop takes a worker before it accepts: while all are busy, new connections wait
    in the listen backlog (sized by `request_queue_size`; the standard library's 5 reset a burst
    of 210 clients), and the thread count stays at most `workers` however many clients come.
    """

    # Hundreds of clients connecting at once wait in the backlog instead of being reset. Set per
    # server from the config before it listens.
    request_queue_size = 1024

    def __init__(self, address: tuple[str, int], handler: type[_Handler], workers: int) -> None:
        # Made first: a failed bind (a busy port) closes the server from inside `__init__`.
        self.pool = WorkerPool(workers, name="emulator-worker")
        super().__init__(address, handler)
        self._stopping = threading.Event()
        self._stopped = threading.Event()
        self._stopped.set()  # not serving yet: `shutdown` has nothing to wait for

    def serve_forever(self, poll_interval: float = 0.5) -> None:
        """Accept connections until `shutdown`; `poll_interval` is how often it checks."""
        self._stopped.clear()
        try:
            with selectors.DefaultSelector() as selector:
                selector.register(self, selectors.EVENT_READ)
                while not self._stopping.is_set():
                    if not self.pool.reserve(timeout=poll_interval):
                        continue  # every worker busy: the connection waits in the backlog
                    if not selector.select(poll_interval) or self._stopping.is_set():
                        self.pool.cancel()
                        continue
                    try:
                        request, address = self.get_request()
                    except OSError:
                        self.pool.cancel()
                        continue
                    self.pool.run(functools.partial(self._connection, request, address))
        finally:
            self._stopped.set()

    def _connection(self, request: Any, address: Any) -> None:
        """One connection, on a worker, for as long as the client keeps it alive."""
        try:
            if self.verify_request(request, address):
                self.finish_request(request, address)
        except Exception:
            self.handle_error(request, address)
        finally:
            self.shutdown_request(request)

    def shutdown(self) -> None:
        """Stop the accept loop and wait for it to end (call from another thread)."""
        self._stopping.set()
        self._stopped.wait()

    def server_close(self) -> None:
        super().server_close()
        self.pool.close()

    def handle_error(self, request: Any, client_address: Any) -> None:
        """A client that went away between requests on a keep-alive connection (a stream it
        stopped reading, a process that ended) is not an error to print a traceback for."""
        if isinstance(sys.exc_info()[1], (ConnectionResetError, BrokenPipeError, TimeoutError)):
            return
        super().handle_error(request, client_address)


def _make_server(emu: Emulator) -> _Server:
    class Handler(_Handler):
        emulator = emu
        # A socket timeout: a client that stops sending its body (or reading its response) for
        # this long is dropped, and its worker freed.
        timeout = emu.config.read_timeout_s
        keepalive_timeout = emu.config.keepalive_timeout_s

    class Server(_Server):
        request_queue_size = emu.config.backlog

    return Server((emu.config.host, emu.config.port), Handler, emu.config.workers)


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    # Headers and body go out in separate writes; without this, Nagle plus delayed ACKs add
    # ~40 ms to every response.
    disable_nagle_algorithm = True
    emulator: Emulator
    server_version = "prefixlock-emulator/0.1"

    def log_message(self, format: str, *args: Any) -> None:
        """Quiet: tests and the demo read `emulator.requests` instead."""

    # Per request (a keep-alive connection reuses the handler): has the status line gone out?
    _started = False
    # Seconds a kept-alive connection may sit idle between requests (it holds a worker
    # meanwhile), and whether this connection has had a request yet.
    keepalive_timeout: float = 5.0
    _had_request = False

    def handle_one_request(self) -> None:
        if self._had_request:
            # Waiting for the next request on a kept-alive connection: an idle client gives its
            # worker back after `keepalive_timeout` (the client's pool opens a new connection).
            self.connection.settimeout(self.keepalive_timeout)
        super().handle_one_request()

    def parse_request(self) -> bool:
        # The request line is in: from here on, the read timeout applies (a slow body).
        self._had_request = True
        self.connection.settimeout(self.timeout)
        return super().parse_request()

    def send_response(self, code: int, message: str | None = None) -> None:
        self._started = True
        super().send_response(code, message)

    # -- writing ------------------------------------------------------------------------------

    def _write(self, answer: Answer) -> None:
        self.send_response(answer.status)
        for name, value in answer.headers:
            self.send_header(name, value)
        if answer.frames is None:
            if self.close_connection and not answer.abort:
                self.send_header("connection", "close")
            self.end_headers()
            self.wfile.write(answer.body)
        else:
            self.end_headers()
            for frame in answer.frames:
                self.wfile.write(f"{len(frame):x}\r\n".encode("ascii") + frame + b"\r\n")
                self.wfile.flush()
            if not answer.abort:
                self.wfile.write(b"0\r\n\r\n")
        if answer.abort:
            self._abort()
        else:
            self.wfile.flush()

    def _abort(self) -> None:
        """Drop the connection mid-body: the client sees an incomplete response."""
        self.close_connection = True
        self.wfile.flush()
        with contextlib.suppress(OSError):
            self.connection.shutdown(socket.SHUT_RDWR)

    # -- reading ------------------------------------------------------------------------------

    def _key(self) -> str:
        return intake.api_key({k.lower(): v for k, v in self.headers.items()})

    def do_GET(self) -> None:
        emu = self.emulator
        with emu._lock:
            answer = emu.core.get(self.path, self._key())
        self._write(answer)

    def do_DELETE(self) -> None:
        """DELETE of a stored response or conversation."""
        emu = self.emulator
        with emu._lock:
            answer = emu.core.state("DELETE", self.path, self._key())
            if answer is None:
                answer = emu.core.get("/no-such-route")
        self._write(answer)

    def _read_body(self, limit: int) -> bytes:
        """The request's body; a body over `limit` is drained (in pieces, never held) so that
        the client gets to read the 413 instead of a reset connection, then refused."""
        try:
            length = int(self.headers.get("content-length") or 0)
        except ValueError:
            length = -1
        error = intake.length_error(length, limit)
        if error is not None:
            self.close_connection = True
            left = length
            while left > 0:
                got = self.rfile.read(min(left, 1 << 20))
                if not got:
                    break
                left -= len(got)
            raise error
        return self.rfile.read(length) if length else b""

    def do_POST(self) -> None:
        self._started = False
        emu = self.emulator
        path = intake.post_path(self.path)
        flavor = intake.flavor_of(path)
        rid = emu._next_id("req_emu_")
        now = emu.clock.now()
        rec = intake.arrival(path, now)
        # On record from arrival (status 0 until answered), and every field is set before the
        # first response byte: a client never sees a reply the record does not show yet.
        with emu._lock:
            emu.requests.append(rec)
        try:
            raw = self._read_body(emu.config.max_body_bytes)
            key = self._key()
            content_type = self.headers.get("content-type") or ""
            request = intake.parse(path, key, content_type, raw, rec)
            if request.route.api == "anthropic-count":
                counted = emu.core.count_tokens(request.body)
                rec.status = 200
                self._write(json_answer(200, counted, {"request-id": rid}))
                return
            if request.route.api == "openai-conversations":
                with emu._lock:
                    created = emu.core.create_conversation(request.body, key, now)
                rec.status = 200
                self._write(json_answer(200, created, {"x-request-id": rid}))
                return
            with emu._lock:
                fault = plan_fault(emu.core.faults.take(path), stream=request.stream)
            rec.fault = fault.kind
            if fault.error is not None:
                raise fault.error
            with emu._lock:
                plan = emu.core.plan(request.route.api, request.body, request.api_key, now)
                emu._in_flight += 1
                emu._in_flight_changed.notify_all()
            try:
                emu._wait(fault.delay)
                with emu._lock:
                    # The response starts now: from here on its cache writes are readable.
                    emu.core.commit(plan, now)
                self._serve(rec, plan, rid, fault.delivery)
            finally:
                with emu._lock:
                    emu._in_flight -= 1
                    emu._in_flight_changed.notify_all()
        except ApiError as err:
            rec.error = err.message
            rec.status = err.status
            self._write(error_answer(flavor, err, rid))
        except (BrokenPipeError, ConnectionResetError):
            self.close_connection = True
        except TimeoutError:
            # The body did not arrive within the read timeout: the client is dropped.
            rec.status = 408
            rec.error = "request timed out while reading the body"
            self.close_connection = True
        except Exception as exc:
            # A bug of the emulator's, not the client's: answer a provider-shaped 500 that says
            # what broke (a client retries it like any 500) instead of dropping the connection.
            rec.status = 500
            rec.error = f"emulator error: {type(exc).__name__}: {exc}"
            self.close_connection = True
            if self._started:
                self._abort()  # mid-response: all the client can see is a cut response
            else:
                with contextlib.suppress(OSError):
                    self._write(error_answer(flavor, ApiError(500, rec.error), rid))
        finally:
            with emu._lock:
                keep = emu.config.keep_requests
                if keep is not None and len(emu.requests) > keep:
                    del emu.requests[: len(emu.requests) - keep]

    def _serve(self, rec: RecordedRequest, plan: Plan, rid: str, delivery: Delivery) -> None:
        rec.usage = plan.usage
        rec.machine = plan.machine
        first = (plan.body.get("output") or [None])[0] if plan.api == "openai-responses" else None
        if isinstance(first, dict) and first.get("type") == "compaction":
            rec.compaction = first
        rec.status = 200
        answer = response_answer(
            plan.body,
            plan.events,
            api=plan.api,
            done_marker=plan.done_marker,
            rid=rid,
            delivery=delivery,
        )
        self._write(answer)
