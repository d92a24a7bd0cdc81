"""The proxy's HTTP/1.1 server: uvicorn, with the limits a proxy facing many clients needs and
uvicorn leaves open.

uvicorn parses requests with httptools (llhttp, in C) when it is installed (the `proxy` extra)
and with h11 (pure Python, several milliseconds slower on a 400 KB body) otherwise: malformed
request lines, bad or negative content lengths, bad chunk sizes and TLS hellos are answered 400.
It answers `Expect: 100-continue` when the app first reads the body, closes idle keep-alive
connections, and applies back-pressure to streamed answers. On top of either parser,
`HeadLimits` closes a connection that has not sent a whole request head within `header_timeout`
seconds of opening (or of its previous answer), however slowly it trickles bytes (a slowloris),
and answers a head over `max_head` bytes with 431 naming the limit instead of a bare 400. The
body limits and timeouts are the app's (`server.Proxy`), which sees the length before it reads
the body. The event loop is uvloop's where installed (`loop_factory`).
"""

from __future__ import annotations

import asyncio
import importlib.util
import json
import logging
import re
import socket
from collections.abc import Callable
from typing import Any

import h11
from uvicorn.config import Config
from uvicorn.protocols.http.h11_impl import H11Protocol
from uvicorn.server import Server

# The app ends a relayed answer the upstream cut by returning before its end: uvicorn then
# closes the connection (the client sees a cut answer, as it would have directly) and logs it
# as an app error. It is the proxy's intended behaviour, so that message is not logged, nor the
# cancellation of streams still open when the proxy stops.
_CUT = "ASGI callable returned without completing response."


class _DropCut(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        if record.msg == _CUT or str(record.msg).startswith("Cancel %s running task"):
            return False
        # Streams still open when the proxy stops are cancelled: that is the stop, not a fault.
        exc = record.exc_info[1] if record.exc_info else None
        return not isinstance(exc, asyncio.CancelledError)


_log = logging.getLogger("uvicorn.error")
if not any(isinstance(f, _DropCut) for f in _log.filters):
    _log.addFilter(_DropCut())


# A request line naming an HTTP major version other than 1 (h11 takes any HTTP/x.y as 1.1).
_OTHER_VERSION = re.compile(rb" HTTP/(?!1\.)[0-9]\.[0-9]$")


def _refusal(status: int, reason: bytes, message: str) -> bytes:
    data = json.dumps(
        {"type": "error", "error": {"type": "invalid_request_error", "message": message}}
    ).encode()
    return (
        b"HTTP/1.1 %d %s\r\ncontent-type: application/json\r\ncontent-length: %d\r\n"
        b"connection: close\r\n\r\n" % (status, reason, len(data))
    ) + data


class HeadLimits:
    """The request head's deadline and size limit, for either of uvicorn's protocols: a
    subclass says whether a head is being awaited (`_awaiting_head`) and how much of it came
    (`_head_so_far`), and calls `_arm` when the next head is awaited."""

    header_timeout: float = 15.0
    max_head: int = 64 * 1024
    loop: asyncio.AbstractEventLoop
    transport: asyncio.Transport
    _head_timer: asyncio.TimerHandle | None = None

    def _awaiting_head(self) -> bool:
        raise NotImplementedError

    def _head_so_far(self) -> bytes:
        raise NotImplementedError

    def _arm(self) -> None:
        self._disarm()
        self._head_timer = self.loop.call_later(self.header_timeout, self._head_late)

    def _disarm(self) -> None:
        if self._head_timer is not None:
            self._head_timer.cancel()
            self._head_timer = None

    def _head_late(self) -> None:
        self._head_timer = None
        if self.transport.is_closing() or not self._awaiting_head():
            return
        if self._head_so_far():
            # Part of a head came, too slowly: say why before closing.
            self.transport.write(
                _refusal(
                    408,
                    b"Request Timeout",
                    f"prefixlock proxy: the request head did not arrive within "
                    f"{self.header_timeout:g} s (--header-timeout)",
                )
            )
        self.transport.close()

    def _over_limit(self, data: bytes) -> bool:
        """Whether the head, with `data` added, passes `max_head` without ending: a head that
        arrives whole in one read is measured here, as neither parser limits it."""
        if not self._awaiting_head() or self.transport.is_closing():
            return False
        head = self._head_so_far() + data[: self.max_head + 4]
        return len(head) > self.max_head and head.find(b"\r\n\r\n", 0, self.max_head + 4) < 0

    def _other_version(self, data: bytes) -> bool:
        """Whether the awaited head's request line, complete in `data`, names another HTTP
        major version: answered 505 and closed (another version is not spoken here)."""
        if not self._awaiting_head() or self.transport.is_closing():
            return False
        line = (self._head_so_far() + data[: self.max_head + 4]).lstrip(b"\r\n").partition(b"\r\n")
        if not (line[1] and _OTHER_VERSION.search(line[0])):
            return False
        self._disarm()
        self.transport.write(
            _refusal(
                505,
                b"HTTP Version Not Supported",
                "prefixlock proxy: only HTTP/1.0 and HTTP/1.1 are spoken here",
            )
        )
        self.transport.close()
        return True

    def _refused(self, data: bytes) -> bool:
        """Whether `data` ends the connection before either parser reads it: a head past
        `max_head` (431) or another HTTP major version (505)."""
        if self._over_limit(data):
            self._too_large()
            return True
        return self._other_version(data)

    def _too_large(self) -> None:
        self._disarm()
        self.transport.write(
            _refusal(
                431,
                b"Request Header Fields Too Large",
                f"prefixlock proxy: the request head is over the limit of "
                f"{self.max_head:,} bytes (--max-head)",
            )
        )
        self.transport.close()

    def _malformed(self, msg: str) -> None:
        if len(self._head_so_far()) > self.max_head:
            self._too_large()
            return
        self.transport.write(
            _refusal(400, b"Bad Request", f"prefixlock proxy: malformed HTTP request ({msg})")
        )
        self.transport.close()


class LimitedProtocol(HeadLimits, H11Protocol):
    """uvicorn's h11 protocol with the head limits. `header_timeout` and `max_head` are set on a
    subclass per server (`server`)."""

    def _awaiting_head(self) -> bool:
        return self.conn.their_state is h11.IDLE

    def _head_so_far(self) -> bytes:
        return bytes(self.conn.trailing_data[0])

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._arm()

    def data_received(self, data: bytes) -> None:
        if self._refused(data):
            return
        super().data_received(data)
        if self.conn.their_state is not h11.IDLE:
            self._disarm()  # a whole head came; the app times the body

    def on_response_complete(self) -> None:
        super().on_response_complete()
        if not self.transport.is_closing() and self.conn.their_state is h11.IDLE:
            self._arm()  # the next request's head has the same deadline

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        super().connection_lost(exc)

    def send_400_response(self, msg: str) -> None:
        self._malformed(msg)


def _httptools_protocol() -> type | None:
    """uvicorn's httptools protocol with the head limits, or None without httptools."""
    if importlib.util.find_spec("httptools") is None:
        return None
    from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

    class LimitedHttpTools(HeadLimits, HttpToolsProtocol):
        """llhttp calls back as a head completes: requests whose heads came, less answers
        sent, is how many are open (pipelined ones included); none open, a head is awaited."""

        def _awaiting_head(self) -> bool:
            return self._heads == self._answers

        def _head_so_far(self) -> bytes:
            return self._partial

        def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
            super().connection_made(transport)
            self._heads = self._answers = 0
            self._partial = b""  # the awaited head's bytes so far (up to max_head + 4)
            self._arm()

        def data_received(self, data: bytes) -> None:
            if self._refused(data):
                return
            if self._awaiting_head() and len(self._partial) <= self.max_head:
                self._partial += data[: self.max_head + 4 - len(self._partial)]
            super().data_received(data)

        def on_headers_complete(self) -> None:
            if self.parser.get_http_version() == "1.1" and all(
                name != b"host" for name, _ in self.headers
            ):
                # HTTP/1.1 requires Host (RFC 9112 3.2), and h11 refuses a request without
                # it: so do we, on this parser too. Raising here makes llhttp's feed fail,
                # which uvicorn answers through `send_400_response`.
                self._why = "no Host header"
                raise ValueError(self._why)
            self._heads += 1
            self._partial = b""
            self._disarm()  # a whole head came; the app times the body
            super().on_headers_complete()

        def on_response_complete(self) -> None:
            self._answers += 1
            super().on_response_complete()
            if not self.transport.is_closing() and self._awaiting_head():
                self._arm()  # the next request's head has the same deadline

        def connection_lost(self, exc: Exception | None) -> None:
            self._disarm()
            super().connection_lost(exc)

        def send_400_response(self, msg: str) -> None:
            self._malformed(getattr(self, "_why", None) or msg)

    return LimitedHttpTools


PARSERS = ("auto", "httptools", "h11")


def protocol(parser: str = "auto") -> type:
    """The protocol class for `parser` (`auto`: httptools when installed, else h11)."""
    if parser not in PARSERS:
        raise ValueError(f"unknown HTTP parser {parser!r} (known: {', '.join(PARSERS)})")
    fast = _httptools_protocol() if parser != "h11" else None
    if fast is None and parser == "httptools":
        raise ValueError("the httptools parser is not installed (pip install prefixlock[proxy])")
    return fast or LimitedProtocol


def loop_factory() -> Callable[[], asyncio.AbstractEventLoop] | None:
    """uvloop's event loop where installed (None: asyncio's own)."""
    if importlib.util.find_spec("uvloop") is None:
        return None
    import uvloop

    return uvloop.new_event_loop


def listen(host: str, port: int) -> socket.socket:
    """A bound, listening socket (binding here makes a busy port the caller's error)."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
        sock.listen(2048)
    except OSError:
        sock.close()
        raise
    sock.setblocking(False)
    return sock


def server(
    app: Any,
    *,
    header_timeout: float,
    idle_timeout: float,
    max_head: int,
    shutdown_grace: float = 2.0,
    parser: str = "auto",
) -> Server:
    """A uvicorn server for `app` (serve it with `await server.serve(sockets=[listen(...)])`)."""
    limited = type(
        "ProxyProtocol",
        (protocol(parser),),
        {"header_timeout": header_timeout, "max_head": max_head},
    )
    config = Config(
        app,
        http=limited,
        lifespan="off",
        interface="asgi3",
        log_config=None,
        access_log=False,
        proxy_headers=False,
        server_header=False,
        date_header=False,  # the upstream's own date header passes through
        timeout_keep_alive=int(max(1, idle_timeout)),
        timeout_graceful_shutdown=int(max(1, shutdown_grace)),
        h11_max_incomplete_event_size=max_head,
    )
    return Server(config)
