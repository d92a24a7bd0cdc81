"""The proxy's HTTP/1.1 server: uvicorn's h11 protocol, with the limits a proxy facing many
clients needs and uvicorn leaves open.

uvicorn parses requests (h11: malformed request lines, bad or negative content lengths, bad chunk
sizes and TLS hellos are answered 400), answers `Expect: 100-continue` when the app first reads
the body, closes idle keep-alive connections, and applies back-pressure to streamed answers. On
top of it, `LimitedProtocol` closes a connection that has not sent a whole request head within
`header_timeout` seconds of opening (or of its previous answer), however slowly it trickles bytes
(a slowloris), and answers a head over `max_head` bytes with 431 naming the limit instead of a
bare 400. The body limits and timeouts are the app's (`server.Proxy`), which sees the length
before it reads the body.
"""

from __future__ import annotations

import asyncio
import json
import logging
import re
import socket
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


_OTHER_VERSION = re.compile(rb" HTTP/(?!1\.)[0-9]\.[0-9]$")


def _refusal(status: int, reason: bytes, message: str) -> bytes:
    data = json.dumps(
        {"type": "error", "error": {"type": "invalid_request_error", "message": message}}
    ).encode()
    return (
        b"HTTP/1.1 %d %s\r\ncontent-type: application/json\r\ncontent-length: %d\r\n"
        b"connection: close\r\n\r\n" % (status, reason, len(data))
    ) + data


class LimitedProtocol(H11Protocol):
    """uvicorn's h11 protocol with a deadline for each request head and a 431 for a long one.
    `header_timeout` and `max_head` are set on a subclass per server (`serve`)."""

    header_timeout: float = 15.0
    max_head: int = 64 * 1024

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._head_timer: asyncio.TimerHandle | None = None
        self._arm()

    def _arm(self) -> None:
        self._disarm()
        self._head_timer = self.loop.call_later(self.header_timeout, self._head_late)

    def _disarm(self) -> None:
        if self._head_timer is not None:
            self._head_timer.cancel()
            self._head_timer = None

    def _head_late(self) -> None:
        self._head_timer = None
        if self.transport.is_closing() or self.conn.their_state is not h11.IDLE:
            return
        if self.conn.trailing_data[0]:
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

    def data_received(self, data: bytes) -> None:
        if self.conn.their_state is h11.IDLE and not self.transport.is_closing():
            # h11 limits a head only while it is incomplete: one that arrives whole is
            # measured here.
            head = self.conn.trailing_data[0] + data
            if len(head) > self.max_head and head.find(b"\r\n\r\n", 0, self.max_head + 4) < 0:
                self._too_large()
                return
            line = head.lstrip(b"\r\n").partition(b"\r\n")
            if line[1] and _OTHER_VERSION.search(line[0]):
                # h11 takes any HTTP/x.y as 1.1; another major version is not spoken here.
                self._disarm()
                self.transport.write(
                    _refusal(
                        505,
                        b"HTTP Version Not Supported",
                        "prefixlock proxy: only HTTP/1.0 and HTTP/1.1 are spoken here",
                    )
                )
                self.transport.close()
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

    def send_400_response(self, msg: str) -> None:
        if len(self.conn.trailing_data[0]) > self.max_head:
            self._too_large()
            return
        else:
            self.transport.write(
                _refusal(400, b"Bad Request", f"prefixlock proxy: malformed HTTP request ({msg})")
            )
        self.transport.close()


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
) -> Server:
    """A uvicorn server for `app` (serve it with `await server.serve(sockets=[listen(...)])`)."""
    protocol = type(
        "ProxyProtocol",
        (LimitedProtocol,),
        {"header_timeout": header_timeout, "max_head": max_head},
    )
    config = Config(
        app,
        http=protocol,
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
