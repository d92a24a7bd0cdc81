"""A TCP relay on 127.0.0.1 that records the request bodies passing through it: put between the
proxy and its upstream, it shows the bytes the proxy sent on the wire, whichever HTTP client the
proxy runs. It reads requests with a content length (what the proxy's clients send)."""

from __future__ import annotations

import contextlib
import socket
import threading
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
            threading.Thread(target=self._requests, args=(client, upstream), daemon=True).start()
            threading.Thread(target=_pipe, args=(upstream, client), daemon=True).start()

    def _requests(self, client: socket.socket, upstream: socket.socket) -> None:
        pending = b""
        while True:
            try:
                got = client.recv(65536)
                if got:
                    upstream.sendall(got)
            except OSError:
                got = b""
            if not got:
                _close(client, upstream)
                return
            pending += got
            while b"\r\n\r\n" in pending:
                head, _, rest = pending.partition(b"\r\n\r\n")
                length = 0
                for line in head.split(b"\r\n")[1:]:
                    name, _, value = line.partition(b":")
                    if name.strip().lower() == b"content-length":
                        length = int(value)
                if len(rest) < length:
                    break
                with self._lock:
                    self.bodies.append(rest[:length])
                pending = rest[length:]

    def __enter__(self) -> WireTap:
        return self

    def __exit__(self, *exc: Any) -> None:
        self._server.close()


def _pipe(source: socket.socket, sink: socket.socket) -> None:
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


def _close(*socks: socket.socket) -> None:
    for s in socks:
        with contextlib.suppress(OSError):
            s.shutdown(socket.SHUT_RDWR)
        s.close()
