"""The proxy's overhead: added latency per request and per streamed token against a direct
connection to the emulator, in the same run, with 100K-token requests.

Three ways to the same emulator, requests alternated so drift hits all alike: direct (the
baseline), through `prefixlock proxy` observing only, and through `prefixlock proxy --fix` (its
baseline is the repaired body sent directly, so the emulator does the same work both ways).
Accounting (the guard, the store) runs after the answer, off the request's path, and is not in
these figures; the session detection and the repairs are.

Run: `.venv/bin/python -m pytest tests/benchmarks/bench_proxy.py -s` or as a script.
"""

from __future__ import annotations

import json
import statistics
import time
from typing import Any

import httpx2

from prefixlock.clock import ManualClock
from prefixlock.emulator import Emulator, Script
from prefixlock.proxy import Proxy, ProxyConfig
from prefixlock.proxy.repair import DEFAULT_FIXES, repair
from prefixlock.proxy.sessions import SessionTracker, client_hash
from prefixlock.tokenizer import count_tokens

N = 12
HEADERS = {"x-api-key": "bench-key", "content-type": "application/json"}
ANSWER_TOKENS = 2000


def _body() -> dict[str, Any]:
    """A 100K-token coding-session request: a big system prompt, tools, a long conversation."""
    para = "The build step reads the manifest, resolves each module and writes the bundle. "
    messages: list[dict[str, Any]] = []
    for i in range(62):
        messages.append(
            {"role": "user", "content": [{"type": "text", "text": f"q{i} " + para * 36}]}
        )
        messages.append({"role": "assistant", "content": [{"type": "text", "text": para * 24}]})
    messages.append({"role": "user", "content": "What next?"})
    body = {
        "model": "claude-sonnet-4-6",
        "max_tokens": 4096,
        "system": "You are a coding agent. " + para * 1000,
        "tools": [
            {"name": f"tool_{k}", "description": para, "input_schema": {"type": "object"}}
            for k in range(20)
        ],
        "messages": messages,
    }
    return body


def _time(client: httpx2.Client, url: str, raw: bytes, stream: bool) -> float:
    start = time.perf_counter()
    if stream:
        with client.stream("POST", url, content=raw, headers=HEADERS) as r:
            for _ in r.iter_raw():
                pass
            assert r.status_code == 200
    else:
        r = client.post(url, content=raw, headers=HEADERS)
        assert r.status_code == 200, r.text
    return time.perf_counter() - start


def test_bench_proxy() -> None:
    body = _body()
    tokens = count_tokens(json.dumps(body))
    assert tokens > 100_000
    raw = json.dumps(body).encode()
    stream_raw = json.dumps({**body, "stream": True}).encode()
    # The body as --fix sends it (a fresh session: breakpoints on tools, system and tail).
    tracker = SessionTracker()
    match = tracker.identify("anthropic", body, client_hash("bench-key"))
    fixed = repair("anthropic", body, raw, match, DEFAULT_FIXES).raw
    script = Script(default="token " * ANSWER_TOKENS)
    with (
        Emulator.start(clock=ManualClock(), script=script) as emu,
        Proxy.start(ProxyConfig(upstream=emu.base_url), clock=emu.clock) as observing,
        Proxy.start(
            ProxyConfig(upstream=emu.base_url, fixes=frozenset(DEFAULT_FIXES)), clock=emu.clock
        ) as fixing,
        httpx2.Client(trust_env=False, timeout=120) as client,
    ):
        direct_url = emu.base_url + "/v1/messages"
        ways = {
            "direct": (direct_url, raw),
            "proxy": (observing.base_url + "/v1/messages", raw),
            "direct (repaired body)": (direct_url, fixed),
            "proxy --fix": (fixing.base_url + "/v1/messages", raw),
        }
        times: dict[str, list[float]] = {k: [] for k in ways}
        streams: dict[str, list[float]] = {"direct": [], "proxy": []}
        for url, data in ways.values():  # warm connections and caches
            _time(client, url, data, False)
        settle = {"proxy": observing.settle, "proxy --fix": fixing.settle}
        for _ in range(N):
            for name, (url, data) in ways.items():
                times[name].append(_time(client, url, data, False))
                # The proxy accounts after answering, on a thread of this process, which the
                # emulator shares here (not so with a real provider): let it finish untimed.
                settle.get(name, lambda: None)()
            streams["direct"].append(_time(client, direct_url, stream_raw, True))
            streams["proxy"].append(
                _time(client, observing.base_url + "/v1/messages", stream_raw, True)
            )
            observing.settle()
        observing.settle()
        fixing.settle()
        assert observing.errors == [] and fixing.errors == []
    med = {k: statistics.median(v) for k, v in times.items()}
    smed = {k: statistics.median(v) for k, v in streams.items()}
    added = med["proxy"] - med["direct"]
    added_fix = med["proxy --fix"] - med["direct (repaired body)"]
    # A stream pays the per-request overhead once; what is left is per streamed token.
    per_token = (smed["proxy"] - smed["direct"] - added) / ANSWER_TOKENS
    print(f"\nproxy overhead, {tokens:,}-token requests (median of {N}):")
    print(f"  direct            {med['direct'] * 1000:8.1f} ms (baseline)")
    print(
        f"  proxy (observe)   {med['proxy'] * 1000:8.1f} ms  +{added * 1000:.1f} ms/request "
        f"({med['proxy'] / med['direct']:.2f}x)"
    )
    print(
        f"  proxy --fix       {med['proxy --fix'] * 1000:8.1f} ms  +{added_fix * 1000:.1f} "
        f"ms/request vs the repaired body direct ({med['direct (repaired body)'] * 1000:.1f} ms)"
    )
    print(
        f"  stream of {ANSWER_TOKENS} tokens: direct {smed['direct'] * 1000:.1f} ms, proxy "
        f"{smed['proxy'] * 1000:.1f} ms: {per_token * 1e6:+.1f} us per streamed token "
        "beyond the per-request overhead"
    )
    # What a user can expect: a proxied request costs at most twice a direct one to the local
    # emulator (a real provider takes seconds for 100K tokens, so this is the worst case).
    assert med["proxy"] < 2 * med["direct"]
    assert med["proxy --fix"] < 2 * med["direct (repaired body)"]


if __name__ == "__main__":
    test_bench_proxy()
