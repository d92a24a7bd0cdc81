"""A bare HTTP/1.1 upstream on 127.0.0.1 for the proxy's tests: it reads each request (head and
content-length body) and answers with the raw bytes a test's function writes, so a test can
send what no well-behaved server sends (CRLF streams, stalls, huge answers, cut streams)."""

from __future__ import annotations

import contextlib
import socket
import socketserver
import threading
from collections.abc import Callable
from typing import Any

from tests.proxy.wiretap import content_length

Answer = Callable[[socket.socket, bytes, bytes], None]  # (connection, head, body)


class RawUpstream:
    def __init__(self, answer: Answer) -> None:
        self.answer = answer
        self.requests: list[bytes] = []
        upstream = self

        class Handler(socketserver.BaseRequestHandler):
            def handle(self) -> None:
                conn: socket.socket = self.request
                data = b""
                while b"\r\n\r\n" not in data:
                    got = conn.recv(65536)
                    if not got:
                        return
                    data += got
                head, _, body = data.partition(b"\r\n\r\n")
                length = content_length(head)
                while len(body) < length:
                    got = conn.recv(65536)
                    if not got:
                        return
                    body += got
                upstream.requests.append(body)
                with contextlib.suppress(OSError):  # the proxy hung up: the test says why
                    upstream.answer(conn, head, body)

        socketserver.ThreadingTCPServer.daemon_threads = True
        socketserver.ThreadingTCPServer.allow_reuse_address = True
        self.server = socketserver.ThreadingTCPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}"

    def __enter__(self) -> RawUpstream:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.server.shutdown()
        self.server.server_close()


def whole(status: int, body: bytes, kind: str = "application/json") -> Answer:
    """An answer with a content length."""

    def answer(conn: socket.socket, head: bytes, request: bytes) -> None:
        conn.sendall(
            f"HTTP/1.1 {status} X\r\ncontent-type: {kind}\r\ncontent-length: {len(body)}\r\n"
            "connection: close\r\n\r\n".encode()
            + body
        )

    return answer
