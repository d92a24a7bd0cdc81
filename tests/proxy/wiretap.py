"""A TCP relay on 127.0.0.1 that records the request bodies passing through it: put between the
proxy and its upstream, it shows the bytes the proxy sent on the wire, whichever HTTP client the
proxy runs. It reads requests with a content length (what the proxy's clients send)."""

from __future__ import annotations

import contextlib
import socket
import threading
from collections.abc import Callable
from typing import Any


class WireTap:
    def __init__(self, target: str) -> None:
        host, port = target.rsplit("//", 1)[1].rsplit(":", 1)
        self.target = (host, int(port))
        self.bodies: list[bytes] = []
        self._lock = threading.Lock()
        self._server = socket.create_server(("127.0.0.1", 0))
        threading.Thread(target=self._accept, daemon=True).start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._server.getsockname()[1]}"

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self._server.accept()
            except OSError:
                return  # closed
            upstream = socket.create_connection(self.target)
            tap = self._reader()
            threading.Thread(target=_pipe, args=(client, upstream, tap), daemon=True).start()
            threading.Thread(target=_pipe, args=(upstream, client), daemon=True).start()

    def _reader(self) -> Callable[[bytes], None]:
        """What reads one connection's requests from the bytes relayed, recording each body."""
        pending = b""

        def seen(got: bytes) -> None:
            nonlocal pending
            pending += got
            while b"\r\n\r\n" in pending:
                head, _, rest = pending.partition(b"\r\n\r\n")
                length = content_length(head)
                if len(rest) < length:
                    return
                with self._lock:
                    self.bodies.append(rest[:length])
                pending = rest[length:]

        return seen

    def __enter__(self) -> WireTap:
        return self

    def __exit__(self, *exc: Any) -> None:
        self._server.close()


def content_length(head: bytes) -> int:
    """The Content-Length an HTTP/1.1 request head states (0 without one)."""
    length = 0
    for line in head.split(b"\r\n")[1:]:
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length":
            length = int(value)
    return length


def _pipe(
    source: socket.socket, sink: socket.socket, seen: Callable[[bytes], None] | None = None
) -> None:
    """Relay `source` to `sink` until either closes, showing each chunk relayed to `seen`."""
    while True:
        try:
            got = source.recv(65536)
            if got:
                sink.sendall(got)
        except OSError:
            got = b""
        if not got:
            _close(source, sink)
            return
        if seen is not None:
            seen(got)


def _close(*socks: socket.socket) -> None:
    for s in socks:
        with contextlib.suppress(OSError):
            s.shutdown(socket.SHUT_RDWR)
        s.close()
