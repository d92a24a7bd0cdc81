"""The emulator's HTTP server: parses requests, applies faults, writes JSON and SSE responses.

A stdlib ThreadingHTTPServer on 127.0.0.1 (port 0 picks a free port), HTTP/1.1 with keep-alive;
streams are chunked so that a cut stream is visible to the client as an incomplete body. The
decisions (validation, cache, model, usage) live in the pure modules; this one only moves bytes,
keeps the shared state under one lock, and records every request for tests to inspect.
"""

from __future__ import annotations

import contextlib
import itertools
import json
import os
import socket
import sys
import threading
import time
import urllib.parse
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from ..cache.units import (
    anthropic_units,
    openai_cache_options,
    openai_explicit_cache,
    openai_reply_chain,
    openai_tokens,
    openai_units,
)
from ..clock import Clock, ManualClock, SystemClock
from ..prices import Price, PriceTable
from . import anthropic_api, openai_api
from .apierror import ApiError, anthropic_error_body, openai_error_body, retry_headers
from .config import EmulatorConfig, FaultKind, FaultSpec
from .diagnostics import (
    ANTHROPIC_FIELD,
    ANTHROPIC_REF,
    OPENAI_FIELD,
    OPENAI_REF,
    DiagnosticsMemory,
    anthropic_diagnostics,
    openai_diagnostics,
    requested_ref,
)
from .model import Reply, Script, ScriptedModel
from .promptcache import (
    AnthropicPromptCache,
    DeepSeekPromptCache,
    OpenAIPromptCache,
    key_id,
)

# Real time a latency fault waits at most for a ManualClock to be advanced: tests that forget
# to advance the clock stay fast instead of hanging.
MANUAL_LATENCY_CAP_S = 10.0
DEFAULT_RETRY_AFTER_S = 0.01


@dataclass
class RecordedRequest:
    """One request as the emulator saw it, and what it reported."""

    path: str
    body: Any
    status: int
    time: float  # the emulator clock at arrival
    api: str  # anthropic | openai-chat | openai-responses | anthropic-count | other
    model: str | None = None
    stream: bool = False
    usage: dict[str, Any] | None = None  # exactly as reported to the client
    machine: int | None = None  # OpenAI-style routing: which simulated machine served it
    key_id: str | None = None  # one-way id of the API key (never the key)
    fault: str | None = None
    error: str | None = None


@dataclass
class Plan:
    """A successful response, decided but not yet written."""

    body: dict[str, Any]
    events: list[tuple[str | None, dict[str, Any]]] | None
    done_marker: bool
    commit: Callable[[float], None]
    usage: dict[str, Any]
    machine: int | None = None
    api: str = "anthropic"  # anthropic | openai-chat | openai-responses: the stream's error shape


@dataclass
class _ActiveFault:
    spec: FaultSpec
    remaining: int
    skip: int


@dataclass
class _Route:
    api: str
    flavor: str  # error shape: anthropic | openai


_ROUTES = {
    "/v1/messages": _Route("anthropic", "anthropic"),
    "/v1/messages/count_tokens": _Route("anthropic-count", "anthropic"),
    "/v1/chat/completions": _Route("openai-chat", "openai"),
    "/v1/responses": _Route("openai-responses", "openai"),
}


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
        self.config = config or EmulatorConfig()
        self.clock: Clock = clock if clock is not None else SystemClock()
        if prices is None:
            prices = PriceTable.default(self.config.prices)
        self.prices = prices
        if script is None and self.config.script:
            script = Script.load(self.config.script)
        self.model = ScriptedModel(script)
        self.anthropic_cache = AnthropicPromptCache(self.config.anthropic, self.config.seed)
        # Every response's model and unit hashes, for clients that ask why they missed.
        self.diagnostics = DiagnosticsMemory()
        self.openai_cache = OpenAIPromptCache(self.config.openai, self.config.seed)
        self.deepseek_cache = DeepSeekPromptCache(self.config.openai.capacity_blocks)
        self.requests: list[RecordedRequest] = []
        self._lock = threading.RLock()
        # `count` requests get each fault: a count of 0 is a fault that never fires.
        self._faults = [_ActiveFault(f, f.count, f.after) for f in self.config.faults if f.count]
        self._ids = itertools.count(1)
        self._in_flight = 0
        self._server: ThreadingHTTPServer | None = None
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
        if self._server is None:
            raise RuntimeError("the emulator is not serving")
        return int(self._server.server_address[1])

    @property
    def base_url(self) -> str:
        """For the Anthropic SDK; the OpenAI SDK takes `base_url + "/v1"` (`openai_base_url`)."""
        return f"http://{self.config.host}:{self.port}"

    @property
    def openai_base_url(self) -> str:
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
        if spec.count == 0:
            return
        with self._lock:
            self._faults.append(_ActiveFault(spec, spec.count, spec.after))

    def clear_faults(self) -> None:
        with self._lock:
            self._faults.clear()

    def evict(self, model: str | None = None, api_key: str | None = None) -> int:
        """Drop cached prefixes, as a provider does under memory pressure. Returns entries dropped.

        `model` (an alias or provider prefix names the model it resolves to) limits the drop to
        that model's entries, other models' survive; `api_key` to that key's, on Anthropic's
        cache only: OpenAI-style and DeepSeek-style caches are not scoped by key, so an eviction
        by key leaves them.
        """
        if model is not None:
            price = self.prices.lookup(model)
            model = price.model if price is not None else model
        with self._lock:
            scope = key_id(api_key) if api_key is not None else None
            dropped = self.anthropic_cache.evict(model, scope)
            if api_key is None:
                dropped += self.openai_cache.evict(model) + self.deepseek_cache.evict(model)
            return dropped

    def _drop_expired(self, now: float) -> None:
        """Every cache forgets what expired by `now`, whichever API the request used: a
        long-running server (`prefixlock serve`) holds only what is still within its TTL."""
        self.anthropic_cache.drop_expired(now)
        self.openai_cache.drop_expired(now)
        self.deepseek_cache.drop_expired(now)

    def flush(self) -> int:
        """Drop every cached entry of every provider."""
        return self.evict()

    @property
    def in_flight(self) -> int:
        """Requests accepted and not yet answered (for tests of parallel cold requests)."""
        with self._lock:
            return self._in_flight

    def served(self, api: str | None = None) -> list[RecordedRequest]:
        """Requests answered in full (not cut short by a fault), optionally of one API."""
        with self._lock:
            return [
                r
                for r in self.requests
                if r.status == 200
                and r.fault not in ("cut", "sse-error")
                and (api is None or r.api == api)
            ]

    # ---- request handling (called from server threads) -----------------------------------

    def _take_fault(self, path: str) -> FaultSpec | None:
        with self._lock:
            for active in self._faults:
                if active.spec.path and not path.startswith(active.spec.path):
                    continue
                if active.skip > 0:
                    active.skip -= 1
                    continue
                active.remaining -= 1
                if active.remaining <= 0:
                    self._faults.remove(active)
                return active.spec
            return None

    def _next_id(self, prefix: str) -> str:
        with self._lock:
            return f"{prefix}{next(self._ids):06d}"

    def _price(self, model: str, flavor: str) -> Price:
        price = self.prices.lookup(model)
        family_ok = price is not None and (
            (flavor == "anthropic") == (price.provider == "anthropic")
        )
        if price is None or not family_ok:
            if flavor == "anthropic":
                raise ApiError(404, f"model: {model}", param="model")
            raise ApiError(
                404,
                f"The model `{model}` does not exist or you do not have access to it.",
                param="model",
            )
        return price

    def _plan(self, route: _Route, body: Any, api_key: str, now: float) -> Plan:
        if route.api == "anthropic":
            return self._plan_anthropic(body, api_key, now)
        if route.api == "openai-chat":
            return self._plan_openai(body, now, responses=False)
        return self._plan_openai(body, now, responses=True)

    def _plan_anthropic(self, body: Any, api_key: str, now: float) -> Plan:
        anthropic_api.validate(body)
        price = self._price(body["model"], "anthropic")
        units = anthropic_units(body)
        anthropic_api.check_breakpoints(units, self.config.anthropic.max_breakpoints, body)
        outcome = self.anthropic_cache.lookup(
            key_id(api_key), price.model, units, price.min_cacheable_tokens, now
        )
        warmup = body["max_tokens"] == 0
        reply = None if warmup else self.model.reply(anthropic_api.conversation(body))
        msg = anthropic_api.message(body, reply, outcome, self._next_id("msg_emu_"))
        asked, ref = requested_ref(body, ANTHROPIC_FIELD, ANTHROPIC_REF)
        if asked:
            reason = self.diagnostics.verdict(
                ref, price.model, units, outcome.cache_read, price.min_cacheable_tokens
            )
            msg["diagnostics"] = anthropic_diagnostics(ref, reason)
            self.diagnostics.remember(msg["id"], price.model, units)
        events: list[tuple[str | None, dict[str, Any]]] | None = None
        if body.get("stream"):
            events = list(anthropic_api.sse_events(msg, self.config.stream_chunk_chars))
        pending = outcome.pending

        def commit(at: float) -> None:
            self.anthropic_cache.commit(pending, at)

        machine = outcome.machine if len(self.anthropic_cache.machines) > 1 else None
        return Plan(msg, events, False, commit, dict(msg["usage"]), machine)

    def _plan_openai(self, body: Any, now: float, *, responses: bool) -> Plan:
        mod = openai_api
        if responses:
            mod.validate_responses(body)
        else:
            mod.validate_chat(body)
        price = self._price(body["model"], "openai")
        explicit_model = price.provider == "openai" and openai_explicit_cache(price.model)
        mod.check_prompt_cache(body, responses=responses, explicit_model=explicit_model)
        ttl = float(price.cache_ttl_seconds)
        if body.get("prompt_cache_retention") == "24h":
            ttl = 24 * 3600.0  # extended retention keeps prefixes for a day
        conv = mod.conversation_responses(body) if responses else mod.conversation_chat(body)
        # Responses' prompt_cache_options.prewarm: "Prepares the prompt cache without generating
        # output" (the SDK's docs): the cache is read and written as for any request, the
        # model is not asked (its script does not move) and no output is billed.
        opts = body.get("prompt_cache_options")
        prewarm = responses and isinstance(opts, Mapping) and opts.get("prewarm") is True
        reply = Reply("") if prewarm else self.model.reply(conv)
        # The cap bills as the real API does: a keep-alive ping is billed its cap (1 token on
        # Chat, 16 on Responses), and a DeepSeek unit stores the reply as cut (what the client
        # sends back).
        limit = mod.responses_output_limit(body) if responses else mod.chat_output_limit(body)
        reply, output_tokens, cut = mod.cap_reply(reply, None if prewarm else limit)
        if prewarm:
            output_tokens = 0
        rid = self._next_id("resp_emu_" if responses else "chatcmpl-emu")
        created = int(now)
        if price.provider == "deepseek" and not responses:
            units = openai_units(body)
            ds = self.deepseek_cache.lookup(
                price.model,
                units,
                price.min_cacheable_tokens,
                ttl,
                now,
                openai_reply_chain(units, mod.chat_echo(reply)),
            )
            usage = mod.deepseek_usage(ds.prompt_tokens, ds.hit_tokens, output_tokens)
            pending = ds.pending
            machine: int | None = None

            def commit(at: float) -> None:
                self.deepseek_cache.commit(pending, at)
        else:
            if explicit_model:
                # gpt-5.6 and later: breakpoints, exact matches, 30-minute entries.
                mode, request_ttl = openai_cache_options(body)
                oc = self.openai_cache.lookup_breakpoints(
                    price.model,
                    openai_units(body),
                    openai_tokens(body),
                    body.get("prompt_cache_key"),
                    mode,
                    request_ttl,
                    price.min_cacheable_tokens,
                    now,
                )
            else:
                oc = self.openai_cache.lookup(
                    price.model,
                    openai_tokens(body),
                    body.get("prompt_cache_key"),
                    price.min_cacheable_tokens,
                    ttl,
                    now,
                )
            # Models with a write price (gpt-5.6 and later) report what they stored.
            written = oc.written_tokens if price.cache_write_5m is not None else None
            if responses:
                usage = mod.responses_usage(
                    oc.prompt_tokens,
                    oc.cached_tokens,
                    output_tokens,
                    written,
                    oc.written_12h if explicit_model else None,
                )
            else:
                usage = mod.chat_usage(oc.prompt_tokens, oc.cached_tokens, output_tokens, written)
            pending = oc.pending
            machine = oc.machine

            def commit(at: float) -> None:
                self.openai_cache.commit(pending, at)

        diagnostics: dict[str, Any] | None = None
        asked, ref = requested_ref(body, OPENAI_FIELD, OPENAI_REF)
        if asked:
            units = openai_units(body)
            cached = int(usage.get("prompt_cache_hit_tokens", 0)) or _cached_of(usage)
            reason = self.diagnostics.verdict(
                ref, price.model, units, cached, price.min_cacheable_tokens
            )
            diagnostics = openai_diagnostics(ref, reason)
            self.diagnostics.remember(rid, price.model, units)
        chunk = self.config.stream_chunk_chars
        if responses:
            resp = mod.response_object(body, reply, usage, rid, created, cut=cut)
            if diagnostics is not None:
                resp[OPENAI_FIELD] = diagnostics
            events = mod.responses_events(resp, chunk) if body.get("stream") else None
            return Plan(resp, events, False, commit, usage, machine, "openai-responses")
        completion = mod.chat_completion(body, reply, usage, rid, created, cut=cut)
        if diagnostics is not None:
            completion[OPENAI_FIELD] = diagnostics
        events = None
        if body.get("stream"):
            include = bool((body.get("stream_options") or {}).get("include_usage"))
            events = mod.chat_chunks(completion, chunk, include_usage=include)
            if diagnostics is not None and events:
                # Carried by the last chunk (the usage chunk when usage is streamed).
                kind, data = events[-1]
                events[-1] = (kind, {**data, OPENAI_FIELD: diagnostics})
        return Plan(completion, events, True, commit, usage, machine, "openai-chat")

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

    @staticmethod
    def _model_object(price: Price) -> dict[str, Any]:
        """One model as both SDKs' model types read it."""
        return {
            "id": price.model,
            "object": "model",
            "type": "model",
            "display_name": price.model,
            "owned_by": price.provider,
            "created": 0,
            "created_at": "2026-01-01T00:00:00Z",
        }

    def _models(self) -> dict[str, Any]:
        data = [self._model_object(p) for p in self.prices]
        return {
            "object": "list",
            "data": data,
            "has_more": False,
            "first_id": data[0]["id"] if data else None,
            "last_id": data[-1]["id"] if data else None,
        }


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


def _cached_of(usage: Mapping[str, Any]) -> int:
    """Cached tokens from an OpenAI usage dict (Chat or Responses shape)."""
    for key in ("prompt_tokens_details", "input_tokens_details"):
        details = usage.get(key)
        if isinstance(details, Mapping):
            return int(details.get("cached_tokens") or 0)
    return 0


def _api_key(headers: Mapping[str, str]) -> str:
    key = headers.get("x-api-key") or ""
    if not key:
        auth = headers.get("authorization") or ""
        if auth.lower().startswith("bearer "):
            key = auth[7:].strip()
    return key.strip()


class _Server(ThreadingHTTPServer):
    def handle_error(self, request: Any, client_address: Any) -> None:
        """A client that went away between requests on a keep-alive connection (a stream it
        stopped reading, a process that ended) is not an error to print a traceback for."""
        if isinstance(sys.exc_info()[1], (ConnectionResetError, BrokenPipeError)):
            return
        super().handle_error(request, client_address)


def _make_server(emu: Emulator) -> ThreadingHTTPServer:
    class Handler(_Handler):
        emulator = emu

    server = _Server((emu.config.host, emu.config.port), Handler)
    server.daemon_threads = True
    return server


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

    def send_response(self, code: int, message: str | None = None) -> None:
        self._started = True
        super().send_response(code, message)

    # -- writing ------------------------------------------------------------------------------

    def _send_json(
        self, status: int, payload: Mapping[str, Any], headers: Mapping[str, str] | None = None
    ) -> None:
        headers = headers or {}
        data = json.dumps(payload).encode("utf-8")
        self.send_response(status)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        for k, v in headers.items():
            self.send_header(k, v)
        if self.close_connection:
            self.send_header("connection", "close")
        self.end_headers()
        self.wfile.write(data)
        self.wfile.flush()

    def _send_error(self, flavor: str, err: ApiError, rid: str) -> None:
        body = anthropic_error_body(err, rid) if flavor == "anthropic" else openai_error_body(err)
        headers = {"request-id": rid, "x-request-id": rid, **err.headers}
        self._send_json(err.status, body, headers)

    def _chunk(self, data: bytes) -> None:
        self.wfile.write(f"{len(data):x}\r\n".encode("ascii") + data + b"\r\n")

    def _send_stream(self, plan: Plan, rid: str, cut: bool, sse_error: bool = False) -> None:
        assert plan.events is not None
        self.send_response(200)
        self.send_header("content-type", "text/event-stream; charset=utf-8")
        self.send_header("cache-control", "no-cache")
        self.send_header("transfer-encoding", "chunked")
        self.send_header("request-id", rid)
        self.send_header("x-request-id", rid)
        self.end_headers()
        events = plan.events
        if cut or sse_error:
            events = events[: max(1, len(events) // 2)]
        for name, data in events:
            text = json.dumps(data, separators=(",", ":"))
            frame = (f"event: {name}\n" if name else "") + f"data: {text}\n\n"
            self._chunk(frame.encode("utf-8"))
            self.wfile.flush()
        if cut:
            self._abort()
            return
        if sse_error:
            err = ApiError(529, "Overloaded")
            if plan.api == "openai-chat":  # chat streams carry errors as a data line
                frame = "data: " + json.dumps(openai_error_body(err)) + "\n\n"
            elif plan.api == "openai-responses":
                data = {
                    "type": "error",
                    "code": "server_error",
                    "message": err.message,
                    "param": None,
                    "sequence_number": len(events),
                }
                frame = "event: error\ndata: " + json.dumps(data) + "\n\n"
            else:
                frame = "event: error\ndata: " + json.dumps(anthropic_error_body(err, rid)) + "\n\n"
            self._chunk(frame.encode("utf-8"))
            self.wfile.write(b"0\r\n\r\n")
            self.wfile.flush()
            return
        if plan.done_marker:
            self._chunk(b"data: [DONE]\n\n")
        self.wfile.write(b"0\r\n\r\n")
        self.wfile.flush()

    def _abort(self) -> None:
        """Drop the connection mid-body: the client sees an incomplete response."""
        self.close_connection = True
        self.wfile.flush()
        with contextlib.suppress(OSError):
            self.connection.shutdown(socket.SHUT_RDWR)

    # -- reading ------------------------------------------------------------------------------

    def do_GET(self) -> None:
        path = self.path.split("?", 1)[0]
        if path.rstrip("/") == "/v1/models":
            self._send_json(200, self.emulator._models())
            return
        if path.startswith("/v1/models/"):
            # models.retrieve(id): a client checking its model before the first request.
            model = urllib.parse.unquote(path.removeprefix("/v1/models/").rstrip("/"))
            price = self.emulator.prices.lookup(model)
            if price is not None:
                self._send_json(200, self.emulator._model_object(price))
                return
            flavor = "anthropic" if model.startswith("claude") else "openai"
            rid = self.emulator._next_id("req_emu_")
            err = ApiError(404, f"model: {model}", param="model")
            if flavor == "openai":
                err = ApiError(404, f"The model `{model}` does not exist", param="model")
            self._send_error(flavor, err, rid)
            return
        self._send_json(
            404,
            {"type": "error", "error": {"type": "not_found_error", "message": f"no route {path}"}},
        )

    def do_POST(self) -> None:
        self._started = False
        emu = self.emulator
        path = self.path.split("?", 1)[0].rstrip("/")
        route = _ROUTES.get(path)
        flavor = route.flavor if route else ("openai" if "chat" in path else "anthropic")
        rid = emu._next_id("req_emu_")
        now = emu.clock.now()
        rec = RecordedRequest(path, None, 0, now, route.api if route else "other")
        # On record from arrival (status 0 until answered), and every field is set before the
        # first response byte: a client never sees a reply the record does not show yet.
        with emu._lock:
            emu.requests.append(rec)
        try:
            length = int(self.headers.get("content-length") or 0)
        except ValueError:
            length = -1
        try:
            if length < 0:
                self.close_connection = True
                raise ApiError(400, "invalid content-length")
            if length > emu.config.max_body_bytes:
                # Drain the body (in pieces, never held) so the client gets to read the 413
                # instead of a reset connection; then close.
                self.close_connection = True
                left = length
                while left > 0:
                    got = self.rfile.read(min(left, 1 << 20))
                    if not got:
                        break
                    left -= len(got)
                limit = emu.config.max_body_bytes
                raise ApiError(413, f"Request exceeds the maximum allowed size of {limit} bytes")
            raw = self.rfile.read(length) if length else b""
            if route is None:
                raise ApiError(404, f"Not found: POST {path}")
            api_key = _api_key({k.lower(): v for k, v in self.headers.items()})
            if not api_key:
                raise ApiError(
                    401,
                    "x-api-key header is required"
                    if flavor == "anthropic"
                    else "You didn't provide an API key.",
                )
            rec.key_id = key_id(api_key)
            ctype = (self.headers.get("content-type") or "").lower()
            if "application/json" not in ctype:
                raise ApiError(
                    400, f"unsupported content type {ctype or '(none)'}: send application/json"
                )
            try:
                body = json.loads(raw)
            except (json.JSONDecodeError, UnicodeDecodeError) as exc:
                raise ApiError(400, f"There was an error parsing the body: {exc}") from None
            rec.body = body
            if isinstance(body, dict):
                rec.model = body.get("model") if isinstance(body.get("model"), str) else None
                rec.stream = bool(body.get("stream"))
            if route.api == "anthropic-count":
                anthropic_api.validate(body, count_tokens=True)
                emu._price(body["model"], "anthropic")
                units = anthropic_units(body)
                anthropic_api.check_breakpoints(units, emu.config.anthropic.max_breakpoints, body)
                rec.status = 200
                self._send_json(
                    200, {"input_tokens": units[-1].end if units else 0}, {"request-id": rid}
                )
                return
            fault = emu._take_fault(path)
            if fault is not None:
                rec.fault = fault.kind
                if fault.kind == "sse-error" and not (
                    isinstance(body, dict) and body.get("stream")
                ):
                    raise ApiError(529, "Overloaded", headers=retry_headers(DEFAULT_RETRY_AFTER_S))
                if fault.kind in ("429", "529", "500"):
                    status = int(fault.kind)
                    message = {
                        429: "Number of requests has exceeded your rate limit",
                        529: "Overloaded",
                        500: "Internal server error",
                    }[status]
                    wait = DEFAULT_RETRY_AFTER_S if fault.retry_after is None else fault.retry_after
                    headers = retry_headers(wait) if status != 500 else {}
                    raise ApiError(status, message, headers=headers)
            with emu._lock:
                plan = emu._plan(route, body, api_key, now)
                emu._in_flight += 1
            try:
                if fault is not None and fault.kind == "latency":
                    emu._wait(fault.seconds)
                with emu._lock:
                    # The response starts now: from here on its cache writes are readable.
                    plan.commit(now)
                    emu._drop_expired(now)
                rec.usage = plan.usage
                rec.machine = plan.machine
                rec.status = 200
                cut = fault is not None and fault.kind == "cut"
                if plan.events is not None:
                    self._send_stream(
                        plan, rid, cut, fault is not None and fault.kind == "sse-error"
                    )
                elif cut:
                    data = json.dumps(plan.body).encode("utf-8")
                    self.send_response(200)
                    self.send_header("content-type", "application/json")
                    self.send_header("content-length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data[: len(data) // 2])
                    self._abort()
                else:
                    self._send_json(200, plan.body, {"request-id": rid, "x-request-id": rid})
            finally:
                with emu._lock:
                    emu._in_flight -= 1
        except ApiError as err:
            rec.error = err.message
            rec.status = err.status
            self._send_error(flavor, err, rid)
        except (BrokenPipeError, ConnectionResetError):
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
                    self._send_error(flavor, ApiError(500, rec.error), rid)
        finally:
            with emu._lock:
                keep = emu.config.keep_requests
                if keep is not None and len(emu.requests) > keep:
                    del emu.requests[: len(emu.requests) - keep]
