"""The emulator under load, as `prefixlock serve` meets it: many clients at once, many requests.

    .venv/bin/python -m pytest tests/benchmarks/bench_emulator_load.py -s
    .venv/bin/python tests/benchmarks/bench_emulator_load.py

- 300 clients open a streaming request each at the same moment (a barrier releases them): none
  is reset, every stream ends with its final event. Printed: wall time, slowest client, the
  server's worker threads. The listen backlog was 5 before: a burst of 210 clients got
  connection resets. Then the same burst on a pool of 100 workers: the 200 others wait in the
  listen backlog for a worker, all complete, and the server never runs more than 100 threads.
- 20,000 requests (Messages, Chat Completions and Responses in turn, each with its own prompt,
  the clock one second further each time) on keep-alive connections: the process's resident
  memory after the first 4,000 and after all 20,000. Caches hold only what is within
  its TTL, records and stored responses are capped, so the two figures must be close: the
  assertion allows 25% growth.
"""

from __future__ import annotations

import gc
import json
import resource
import threading
import time
from pathlib import Path
from typing import Any

import httpx

from prefixlock.clock import ManualClock
from prefixlock.emulator import Emulator, EmulatorConfig

CLIENTS = 300
REQUESTS = 20_000
SYSTEM = "You are a careful coding assistant. Follow the repository conventions. " * 30
HEADERS = {"x-api-key": "k", "authorization": "Bearer k", "content-type": "application/json"}


def _stream_body(i: int) -> dict[str, Any]:
    return {
        "model": "claude-sonnet-4-6",
        "max_tokens": 64,
        "stream": True,
        "system": [{"type": "text", "text": SYSTEM, "cache_control": {"type": "ephemeral"}}],
        "messages": [{"role": "user", "content": f"Client {i}: why is the build red?"}],
    }


def concurrent_streams(emu: Emulator, n: int = CLIENTS) -> dict[str, Any]:
    barrier = threading.Barrier(n)
    done: list[bool] = [False] * n
    errors: list[str] = []
    times: list[float] = [0.0] * n

    def client(i: int) -> None:
        with httpx.Client(timeout=120) as c:
            barrier.wait()
            t0 = time.perf_counter()
            try:
                with c.stream(
                    "POST", emu.base_url + "/v1/messages", json=_stream_body(i), headers=HEADERS
                ) as r:
                    text = "".join(r.iter_text())
                done[i] = r.status_code == 200 and "event: message_stop" in text
            except httpx.HTTPError as exc:
                errors.append(f"{type(exc).__name__}: {exc}")
            times[i] = time.perf_counter() - t0

    threads = [threading.Thread(target=client, args=(i,)) for i in range(n)]
    t0 = time.perf_counter()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return {
        "clients": n,
        "complete": sum(done),
        "errors": errors,
        "wall_s": time.perf_counter() - t0,
        "slowest_s": max(times),
    }


def _bodies(i: int) -> tuple[str, dict[str, Any]]:
    question = f"Request {i}: what does module {i % 997} do? " * 4
    kind = i % 3
    if kind == 0:
        return "/v1/messages", {
            "model": "claude-sonnet-4-6",
            "max_tokens": 16,
            "system": [{"type": "text", "text": SYSTEM, "cache_control": {"type": "ephemeral"}}],
            "messages": [{"role": "user", "content": question}],
        }
    if kind == 1:
        return "/v1/chat/completions", {
            "model": "gpt-5.4",
            "messages": [
                {"role": "system", "content": SYSTEM},
                {"role": "user", "content": question},
            ],
        }
    return "/v1/responses", {"model": "gpt-5.4", "instructions": SYSTEM, "input": question}


def _rss() -> int:
    """Resident memory of this process in bytes (Linux /proc; elsewhere the peak)."""
    statm = Path("/proc/self/statm")
    if statm.exists():
        return int(statm.read_text().split()[1]) * resource.getpagesize()
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


def memory_over_requests(n: int = REQUESTS) -> dict[str, Any]:
    clock = ManualClock()
    config = EmulatorConfig(keep_requests=1000, stored_responses=1000)
    marks: dict[int, int] = {}
    with Emulator.start(config=config, clock=clock) as emu, httpx.Client(timeout=30) as c:
        for i in range(n):
            path, body = _bodies(i)
            r = c.post(emu.base_url + path, content=json.dumps(body), headers=HEADERS)
            assert r.status_code == 200, r.text
            clock.advance(1.0)
            if i + 1 in (n // 5, n):
                gc.collect()
                marks[i + 1] = _rss()
    first, last = marks[n // 5], marks[n]
    return {
        "requests": n,
        "after_first_mb": first / 2**20,
        "after_all_mb": last / 2**20,
        "growth": last / first - 1,
    }


def _burst(config: EmulatorConfig) -> None:
    with Emulator.start(config=config, clock=ManualClock()) as emu:
        got = concurrent_streams(emu)
        threads = emu.worker_threads
    print(
        f"\n{got['clients']} concurrent streaming clients on {config.workers} workers: "
        f"{got['complete']} complete, {len(got['errors'])} errors, wall {got['wall_s']:.2f} s "
        f"(threads and clients made), slowest request {got['slowest_s']:.2f} s, "
        f"{threads} worker threads"
    )
    assert not got["errors"], got["errors"][:3]
    assert got["complete"] == CLIENTS
    assert threads <= config.workers


def test_300_concurrent_streams_all_complete() -> None:
    _burst(EmulatorConfig())


def test_300_concurrent_streams_on_100_workers_all_complete() -> None:
    _burst(EmulatorConfig(workers=100))


def test_memory_flat_over_20000_requests() -> None:
    got = memory_over_requests()
    print(
        f"\n{got['requests']} requests: {got['after_first_mb']:.1f} MiB resident after "
        f"{got['requests'] // 5}, {got['after_all_mb']:.1f} MiB after all "
        f"({got['growth']:+.0%})"
    )
    assert got["growth"] < 0.25


if __name__ == "__main__":
    test_300_concurrent_streams_all_complete()
    test_300_concurrent_streams_on_100_workers_all_complete()
    test_memory_flat_over_20000_requests()
