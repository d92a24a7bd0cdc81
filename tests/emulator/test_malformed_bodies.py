"""Every malformed body gets a 400 in the provider's shape, never a 500; a client that stops
sending its body is dropped after the read timeout; a burst of connections waits in the backlog.
"""

from __future__ import annotations

import json
import socket
from typing import Any

import httpx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from prefixlock.billing.prices import PriceTable
from prefixlock.clock import ManualClock
from prefixlock.emulator import Emulator, EmulatorConfig
from prefixlock.emulator.apierror import ApiError
from prefixlock.emulator.core import EmulatorCore

PATHS = ("/v1/messages", "/v1/chat/completions", "/v1/responses", "/v1/messages/count_tokens")


def _post(emu: Emulator, path: str, raw: bytes) -> httpx.Response:
    return httpx.post(
        emu.base_url + path,
        content=raw,
        headers={"content-type": "application/json", "x-api-key": "k", "authorization": "Bearer k"},
    )


@pytest.mark.parametrize("path", PATHS)
def test_deep_json_and_lone_surrogates_are_400(emulator: Emulator, path: str) -> None:
    deep = b"[" * 100_000 + b"]" * 100_000
    lone = json.dumps(
        {
            "model": "claude-sonnet-4-6",
            "max_tokens": 5,
            "messages": [{"role": "user", "content": "broken \ud800 half"}],
        }
    ).encode()
    pair = lone.replace(b"\\ud800", b"\\ud83d\\ude00")  # a whole pair is one valid character
    for raw in (deep, lone, b'{"model": ', b"\xff\xfe"):
        r = _post(emulator, path, raw)
        assert r.status_code == 400, (raw[:40], r.text)
        assert "error" in r.json()
    assert _post(emulator, path, pair).status_code != 500


JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=8),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner, max_size=4)
    ),
    max_leaves=20,
)
VALID: dict[str, dict[str, Any]] = {
    "anthropic": {
        "model": "claude-sonnet-4-6",
        "max_tokens": 5,
        "messages": [{"role": "user", "content": [{"type": "text", "text": "hi"}]}],
    },
    "openai-chat": {"model": "gpt-5.4", "messages": [{"role": "user", "content": "hi"}]},
    "openai-responses": {"model": "gpt-5.4", "input": [{"role": "user", "content": "hi"}]},
}
KEYS = (
    "model",
    "messages",
    "input",
    "content",
    "role",
    "tools",
    "system",
    "type",
    "max_tokens",
    "tool_calls",
    "previous_response_id",
    "conversation",
    "cache_control",
    "text",
)


def _mutate(value: Any, path: list[int], key: str, new: Any) -> Any:
    """`value` with one nested place (picked by `path`) given `new` under `key`, or replaced."""
    if isinstance(value, dict) and value:
        if not path:
            return {**value, key: new}
        k = sorted(value)[path[0] % len(value)]
        return {**value, k: _mutate(value[k], path[1:], key, new)}
    if isinstance(value, list) and value:
        if not path:
            return [*value, new]
        i = path[0] % len(value)
        return [*value[:i], _mutate(value[i], path[1:], key, new), *value[i + 1 :]]
    return new


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    api=st.sampled_from(sorted(VALID)),
    path=st.lists(st.integers(0, 5), max_size=5),
    key=st.sampled_from(KEYS),
    new=JSON,
)
def test_any_mutated_body_is_answered_or_refused_never_crashes(
    api: str, path: list[int], key: str, new: Any
) -> None:
    core = EmulatorCore(EmulatorConfig(), PriceTable.default())
    body = _mutate(VALID[api], path, key, new)
    try:
        core.plan(api, body, "k", 0.0)
    except ApiError as err:
        assert 400 <= err.status < 500


def test_a_client_that_stops_sending_its_body_is_dropped() -> None:
    with Emulator.start(EmulatorConfig(read_timeout_s=0.2), ManualClock()) as emu:
        with socket.create_connection(("127.0.0.1", emu.port), timeout=5) as s:
            s.sendall(
                b"POST /v1/messages HTTP/1.1\r\nhost: x\r\ncontent-type: application/json"
                b'\r\nx-api-key: k\r\ncontent-length: 100\r\n\r\n{"model"'
            )
            assert s.recv(1024) == b""  # closed by the server, nothing answered
        assert emu.requests[-1].status == 408
        # The server still serves others.
        assert _post(emu, "/v1/messages", b"{}").status_code == 400
