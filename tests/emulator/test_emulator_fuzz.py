"""The emulator's intake over mutated request bodies at the byte level (tests/helpers/fuzz.py,
seeded: cut, flipped, nested 100,000 deep, lone surrogates, numbers out of range): each is
answered or refused with a 4xx in the provider's shape, never a 5xx or a dropped connection. A
quick count here; the reliability benchmark runs 1,000. And a crowd of slowloris connections
does not grow the server's threads past its worker bound."""

from __future__ import annotations

import json
import socket
import threading

import httpx

from prefixlock.emulator import Emulator, EmulatorConfig
from tests.helpers.fuzz import mutations

QUICK = 150
BODIES = {
    "/v1/messages": {
        "model": "claude-sonnet-4-6",
        "max_tokens": 20,
        "system": [{"type": "text", "text": "Be brief.", "cache_control": {"type": "ephemeral"}}],
        "messages": [{"role": "user", "content": [{"type": "text", "text": "hi there"}]}],
    },
    "/v1/chat/completions": {
        "model": "gpt-5.4",
        "messages": [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "hi"}],
        "prompt_cache_key": "k1",
    },
    "/v1/responses": {
        "model": "gpt-5.4",
        "instructions": "Be brief.",
        "input": [{"role": "user", "content": "hi"}],
    },
}


def server_faults(emu: Emulator, count: int, seed: int = 0) -> list[str]:
    """The mutated bodies answered with a 5xx or a dropped connection, each named."""
    bad: list[str] = []
    headers = {"content-type": "application/json", "x-api-key": "k", "authorization": "Bearer k"}
    with httpx.Client(base_url=emu.base_url, headers=headers, timeout=30) as client:
        for path, body in BODIES.items():
            raw = json.dumps(body).encode()
            for i, how, data in mutations(raw, count, seed):
                try:
                    r = client.post(path, content=data)
                except httpx.HTTPError as exc:
                    bad.append(f"{path} #{i} {how}: {type(exc).__name__}")
                    continue
                if r.status_code >= 500:
                    bad.append(f"{path} #{i} {how}: {r.status_code} {r.text[:120]}")
    return bad


def test_mutated_bodies_are_answered_or_refused_never_5xx() -> None:
    with Emulator.start(EmulatorConfig()) as emu:
        bad = server_faults(emu, QUICK // len(BODIES))
    assert bad == [], f"{len(bad)}: {bad[:3]}"


def slowloris_threads(connections: int, workers: int) -> int:
    """The most threads this process had while `connections` clients each sent half a request
    line and stalled, on an emulator of `workers` workers."""
    before = threading.active_count()
    with Emulator.start(EmulatorConfig(workers=workers, keepalive_timeout_s=30)) as emu:
        socks = []
        try:
            for _ in range(connections):
                s = socket.create_connection(("127.0.0.1", emu.port), timeout=10)
                s.sendall(b"POST /v1/messages HT")
                socks.append(s)
            emu.wait_in_flight(0, timeout=0.5)
            most = threading.active_count() - before
        finally:
            for s in socks:
                s.close()
    return most


def test_slowloris_connections_do_not_grow_threads_past_the_bound() -> None:
    most = slowloris_threads(400, workers=16)
    assert most <= 16 + 2, most  # the workers and the accept loop, not a thread per client
