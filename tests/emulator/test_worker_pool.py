"""The emulator's capped worker pool: more clients than workers wait, none is refused.

The server used to start one thread per connection (ThreadingHTTPServer), so a burst of clients
made as many threads. Now a pool of `workers` threads serves the connections; one beyond it
waits in the listen backlog until a worker is free, and an idle kept-alive connection gives its
worker back after `keepalive_timeout_s`.
"""

from __future__ import annotations

import socket
import threading
from typing import Any

import pytest

from prefixlock.clock import ManualClock
from prefixlock.emulator import Emulator, EmulatorConfig
from prefixlock.emulator.workers import WorkerPool
from tests.helpers.sdk import anthropic


def test_the_pool_runs_at_most_its_size_at_once_and_reuses_its_threads() -> None:
    pool = WorkerPool(3)
    running = threading.Barrier(4)  # the three jobs and this test
    release = threading.Event()

    def held() -> None:
        running.wait(5)
        release.wait(5)

    for _ in range(3):
        assert pool.reserve(timeout=5)
        pool.run(held)
    running.wait(5)  # all three run at once, on three threads
    assert pool.threads == 3
    assert not pool.reserve(timeout=0)  # a fourth has to wait
    release.set()
    done = threading.Semaphore(0)
    for _ in range(30):
        assert pool.reserve(timeout=5)
        pool.run(done.release)
    for _ in range(30):
        assert done.acquire(timeout=5)
    assert pool.threads == 3  # the same three threads ran the thirty jobs
    pool.close()


def test_a_failed_accept_gives_its_reservation_back() -> None:
    pool = WorkerPool(1)
    assert pool.reserve(timeout=0)
    pool.cancel()
    assert pool.reserve(timeout=0)
    pool.cancel()
    assert pool.threads == 0
    with pytest.raises(ValueError):
        WorkerPool(0)


def _body(i: int) -> dict[str, Any]:
    return {
        "model": "claude-sonnet-4-6",
        "max_tokens": 16,
        "messages": [{"role": "user", "content": f"client {i}"}],
    }


@pytest.mark.slow  # seconds of work: CI runs it in its slow step
def test_more_clients_than_workers_wait_for_a_worker_and_are_all_served() -> None:
    clients, workers = 12, 4
    clock = ManualClock()
    with Emulator.start(EmulatorConfig(workers=workers), clock) as emu:
        # The first four requests the server reads wait 10 s on the manual clock: they hold
        # every worker until the test advances it.
        emu.inject("latency", count=workers, seconds=10)
        start = threading.Barrier(clients + 1)
        statuses: list[int] = []
        sdks = [
            anthropic.Anthropic(base_url=emu.base_url, api_key="k", max_retries=0, timeout=60)
            for _ in range(clients)
        ]

        def client(i: int) -> None:
            start.wait(60)
            reply = sdks[i].messages.with_raw_response.create(**_body(i))
            statuses.append(reply.status_code)

        threads = [threading.Thread(target=client, args=(i,)) for i in range(clients)]
        for t in threads:
            t.start()
        start.wait(60)
        assert emu.wait_in_flight(workers, timeout=60)
        # Every worker holds a slow request, so no other connection has been read: the eight
        # other clients wait in the listen backlog, and no thread was made for them.
        assert emu.worker_threads == workers
        assert len(emu.requests) == workers
        clock.advance(10)
        for t in threads:
            t.join(60)
        for sdk in sdks:
            sdk.close()
        assert statuses == [200] * clients
        assert len(emu.requests) == clients
        assert emu.worker_threads == workers


def _raw_request(i: int) -> bytes:
    payload = (
        b'{"model":"claude-sonnet-4-6","max_tokens":8,'
        b'"messages":[{"role":"user","content":"hi ' + str(i).encode() + b'"}]}'
    )
    return (
        b"POST /v1/messages HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\n"
        b"x-api-key: k\r\ncontent-length: " + str(len(payload)).encode() + b"\r\n\r\n" + payload
    )


def _read_response(sock: socket.socket) -> bytes:
    """One whole (content-length) response from a kept-alive connection."""
    data = b""
    while b"\r\n\r\n" not in data:
        data += sock.recv(65536)
    head, _, body = data.partition(b"\r\n\r\n")
    length = next(
        int(line.split(b":")[1])
        for line in head.split(b"\r\n")
        if line.lower().startswith(b"content-length:")
    )
    while len(body) < length:
        body += sock.recv(65536)
    return head


def test_keep_alive_reuses_one_worker_and_an_idle_connection_gives_it_back() -> None:
    config = EmulatorConfig(workers=1, keepalive_timeout_s=0.2)
    with Emulator.start(config, ManualClock()) as emu:
        with socket.create_connection(("127.0.0.1", emu.port), timeout=10) as first:
            for i in range(3):  # three requests on one kept-alive connection, one worker
                first.sendall(_raw_request(i))
                assert _read_response(first).startswith(b"HTTP/1.1 200")
            # A second client waits for the only worker; the first connection, idle, is closed
            # after the keep-alive timeout, and the second is served.
            with socket.create_connection(("127.0.0.1", emu.port), timeout=10) as second:
                second.sendall(_raw_request(3))
                assert _read_response(second).startswith(b"HTTP/1.1 200")
            assert first.recv(1024) == b""  # closed by the server
        assert emu.worker_threads == 1
        assert [r.status for r in emu.requests] == [200] * 4
