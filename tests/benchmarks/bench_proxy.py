"""The proxy's overhead: latency added per request against a direct connection to the emulator,
in the same run, with ~100K-token requests, streaming and not.

Three ways to the same upstream (a replay of the emulator's answers, the same work for any body),
interleaved so that drift hits all alike: direct (the baseline), through `prefixlock proxy`
observing only, and through `prefixlock proxy --fix`, each as a whole answer and as a stream.
Each round's request is the previous round's with one exchange more, as an agent's session
grows, so the proxy reads new messages every time. The overhead of one request is its time
through the proxy less the time of the direct request made just before it; the figures are the
median and 95th percentile of those differences over `PREFIXLOCK_BENCH_N` rounds (default 200).
The proxy's accounting (the guard) runs after each answer on its worker thread, in its own
process.

A latency difference on a loaded machine times the scheduler as much as the proxy, so each
prefixlock way also reports the CPU its serving thread spent on the request (read from the
proxy's `/metrics` gauge `prefixlock_proxy_loop_cpu_seconds` before and after it, less what
reading the gauge costs): the proxy's own work on the request path, which a quiet machine's
latency overhead approaches. The load average is printed with the figures.

Run: `.venv/bin/python -m pytest tests/benchmarks/bench_proxy.py -s` or as a script;
`PREFIXLOCK_BENCH_LITELLM=0` leaves LiteLLM out (it installs from PyPI on first use).
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from decimal import Decimal
from pathlib import Path
from typing import Any

import httpx2

from prefixlock.billing.prices import PriceTable
from prefixlock.billing.usage import parse_usage
from prefixlock.clock import ManualClock
from prefixlock.emulator import Emulator, Script
from prefixlock.tokenizer import count_tokens

N = int(os.environ.get("PREFIXLOCK_BENCH_N", "200"))
# LiteLLM's proxy wants its master key as the client's key; the others forward it unread.
LITELLM_VERSION = "1.108.7"
MASTER = "sk-bench-master-key-0123456789abcdef"
HEADERS = {"x-api-key": MASTER, "content-type": "application/json"}
# LiteLLM at its documented best for a client that sets no hints: cache_control injected on the
# system message and the last message (docs.litellm.ai, "Auto-Inject Prompt Caching Checkpoints").
LITELLM_CONFIG = """
model_list:
  - model_name: claude-sonnet-4-6
    litellm_params:
      model: anthropic/claude-sonnet-4-6
      api_base: {upstream}
      api_key: os.environ/ANTHROPIC_API_KEY
      cache_control_injection_points:
        - location: message
          role: system
        - location: message
          index: -1
general_settings:
  master_key: {master}
"""
ANSWER_TOKENS = 300
# Seconds between rounds: a client's think time plus a provider's answer time (seconds for
# 100K tokens), in which the proxy accounts the previous request off the request's path. At
# 0 the accounting of one request runs during the next and is timed with it.
THINK = float(os.environ.get("PREFIXLOCK_BENCH_THINK", "0.25"))


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


def _grown(body: dict[str, Any], turns: int) -> dict[str, Any]:
    """`body` and `turns` more exchanges (a tool call's result and the agent's next step)."""
    more: list[dict[str, Any]] = []
    for t in range(turns):
        more.append(
            {"role": "assistant", "content": [{"type": "text", "text": f"Step {t}: ran it."}]}
        )
        more.append({"role": "user", "content": [{"type": "text", "text": f"Result {t}: ok."}]})
    return {**body, "messages": [*body["messages"], *more]}


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


def _pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


# A replaying upstream, run in its own process: it answers each request with the emulator's own
# recorded answer (a stream event by event, yielding between events), in well under a
# millisecond, so that the differences measured are the proxy's and not the emulator's noise.
_REPLAY = """
import asyncio, json, sys
whole, stream = (bytes.fromhex(x) for x in json.load(open(sys.argv[1])))
events = [e + b"\\n\\n" for e in stream.split(b"\\n\\n") if e]
async def serve(reader, writer):
    try:
        while True:
            head = await reader.readuntil(b"\\r\\n\\r\\n")
            length = int(head.lower().split(b"content-length:")[1].split(b"\\r\\n")[0])
            body = await reader.readexactly(length)
            if b'"stream": true' in body:
                writer.write(b"HTTP/1.1 200 OK\\r\\ncontent-type: text/event-stream\\r\\n"
                             b"transfer-encoding: chunked\\r\\n\\r\\n")
                for e in events:
                    writer.write(b"%x\\r\\n%s\\r\\n" % (len(e), e))
                    await writer.drain()
                    await asyncio.sleep(0)
                writer.write(b"0\\r\\n\\r\\n")
            else:
                writer.write(b"HTTP/1.1 200 OK\\r\\ncontent-type: application/json\\r\\n"
                             b"content-length: %d\\r\\n\\r\\n%s" % (len(whole), whole))
            await writer.drain()
    except (asyncio.IncompleteReadError, ConnectionError):
        writer.close()
async def main():
    server = await asyncio.start_server(serve, "127.0.0.1", int(sys.argv[2]))
    await server.serve_forever()
asyncio.run(main())
"""


def _spawn(
    args: list[str], url: str, stack: contextlib.ExitStack, env: dict[str, str] | None = None
) -> None:
    """`ARGS` in its own process, as a user runs it; wait until `url` accepts."""
    proc = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    stack.callback(proc.wait, 30)
    stack.callback(proc.terminate)
    host, port = url.rsplit("/", 1)[1].split(":")
    deadline = time.monotonic() + 180
    while time.monotonic() < deadline:
        try:
            socket.create_connection((host, int(port)), timeout=1).close()
            return
        except OSError:
            if proc.poll() is not None:
                raise RuntimeError(f"{' '.join(args)} exited {proc.returncode}") from None
            time.sleep(0.1)
    raise RuntimeError(f"{' '.join(args)} did not start")


def litellm() -> tuple[str | None, str]:
    """(LiteLLM's `litellm` command, "") from a venv of its own (built from PyPI once, kept
    under ~/.cache/prefixlock), or (None, why it is not there). $PREFIXLOCK_LITELLM names one."""
    if os.environ.get("PREFIXLOCK_BENCH_LITELLM") == "0":
        return None, "PREFIXLOCK_BENCH_LITELLM=0"
    if os.environ.get("PREFIXLOCK_LITELLM"):
        return os.environ["PREFIXLOCK_LITELLM"], ""
    cache = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    venv = cache / "prefixlock" / f"litellm-{LITELLM_VERSION}"
    exe = venv / "bin" / "litellm"
    if not exe.exists():
        try:
            subprocess.run(
                [sys.executable, "-m", "venv", str(venv)], check=True, capture_output=True
            )
            subprocess.run(
                [str(venv / "bin" / "pip"), "install", "-q", f"litellm[proxy]=={LITELLM_VERSION}"],
                check=True,
                capture_output=True,
                timeout=1200,
            )
        except (subprocess.SubprocessError, OSError) as exc:
            shutil.rmtree(venv, ignore_errors=True)
            return None, f"LiteLLM {LITELLM_VERSION} did not install from PyPI: {exc}"
    return str(exe), ""


def _litellm_proxy(exe: str, upstream: str, stack: contextlib.ExitStack, tmp: str) -> str:
    config = Path(tmp) / "litellm.yaml"
    config.write_text(LITELLM_CONFIG.format(upstream=upstream, master=MASTER))
    port = _free_port()
    url = f"http://127.0.0.1:{port}"
    env = {
        **os.environ,
        "ANTHROPIC_API_KEY": "sk-upstream",
        "LITELLM_LOCAL_MODEL_COST_MAP": "True",  # no network: its bundled price map
    }
    _spawn([exe, "--config", str(config), "--port", str(port)], url, stack, env)
    return url


def _prefixlock_proxy(upstream: str, fix: bool, stack: contextlib.ExitStack) -> str:
    port = _free_port()
    url = f"http://127.0.0.1:{port}"
    cmd = ["proxy", "--port", str(port), "--upstream", upstream, "--no-store", "-q"]
    _spawn(
        [sys.executable, "-m", "prefixlock.cli.main", *cmd, *(["--fix"] if fix else [])], url, stack
    )
    return url


def savings(turns: int = 20) -> dict[str, tuple[float, Decimal]]:
    """{path: (hit rate, dollars)} of a client with no cache hints (a 10K-token system prompt,
    `turns` turns) to the emulator: direct, through `prefixlock proxy --fix`, through LiteLLM
    (when it installs)."""
    price = PriceTable.default().lookup("claude-sonnet-4-6")
    assert price is not None
    para = "Follow the repository's conventions, run the tests, explain each change briefly. "
    out: dict[str, tuple[float, Decimal]] = {}
    with (
        contextlib.ExitStack() as stack,
        tempfile.TemporaryDirectory() as tmp,
        Emulator.start(clock=ManualClock()) as emu,
        httpx2.Client(trust_env=False, timeout=120) as c,
    ):
        paths = {
            "direct": emu.base_url,
            "prefixlock proxy --fix": _prefixlock_proxy(emu.base_url, True, stack),
        }
        exe, _ = litellm()
        if exe is not None:
            paths["LiteLLM, injection points"] = _litellm_proxy(exe, emu.base_url, stack, tmp)
        for name, url in paths.items():
            system = f"[{name}] You are a coding agent. " + para * 700  # its own cache
            messages: list[dict[str, Any]] = []
            total = read = 0
            cost = Decimal(0)
            for turn in range(turns):
                messages.append({"role": "user", "content": f"Step {turn}: carry on."})
                body = {"model": "claude-sonnet-4-6", "max_tokens": 200, "system": system}
                r = c.post(
                    url + "/v1/messages", headers=HEADERS, json={**body, "messages": messages}
                )
                assert r.status_code == 200, r.text
                usage = parse_usage("anthropic", r.json()["usage"])
                total, read = total + usage.input_total, read + usage.cache_read
                cost += price.cost(usage)
                messages.append({"role": "assistant", "content": r.json()["content"]})
                emu.clock.advance(15)  # type: ignore[attr-defined]
            out[name] = (read / total, cost)
    return out


def _recorded(raw: bytes, stream_raw: bytes) -> tuple[bytes, bytes]:
    """The emulator's answers to the two bodies (whole, and the stream's bytes)."""
    script = Script(default="token " * ANSWER_TOKENS)
    with (
        Emulator.start(clock=ManualClock(), script=script) as emu,
        httpx2.Client(trust_env=False, timeout=120) as c,
    ):
        whole = c.post(emu.base_url + "/v1/messages", content=raw, headers=HEADERS).content
        with c.stream(
            "POST", emu.base_url + "/v1/messages", content=stream_raw, headers=HEADERS
        ) as r:
            stream = b"".join(r.iter_raw())
    return whole, stream


def _loop_cpu(client: httpx2.Client, base: str) -> float:
    """The proxy's serving thread's CPU seconds so far (its /metrics gauge)."""
    for line in client.get(base + "/metrics").text.splitlines():
        if line.startswith("prefixlock_proxy_loop_cpu_seconds "):
            return float(line.split()[1])
    raise AssertionError("no prefixlock_proxy_loop_cpu_seconds in /metrics")


def measure(n: int = N) -> dict[str, dict[str, float]]:
    """{way: {"p50": ms, "p95": ms, "direct_p50": ms, "cpu_p50": ms, "cpu_p95": ms}} of the
    overhead over `n` rounds (cpu: the prefixlock proxy's serving thread's, per request).

    The upstream and each proxy (`prefixlock proxy --no-store -q`) run in processes of their
    own, as users run them: in one process they would share one interpreter lock, and the
    figures would time that contention instead of the proxy."""
    body = _body()
    raw = json.dumps(body).encode()
    stream_raw = json.dumps({**body, "stream": True}).encode()
    whole, stream = _recorded(raw, stream_raw)
    with contextlib.ExitStack() as stack, tempfile.TemporaryDirectory() as tmp:
        answers = Path(tmp) / "answers.json"
        answers.write_text(json.dumps([whole.hex(), stream.hex()]))
        port = _free_port()
        upstream = f"http://127.0.0.1:{port}"
        _spawn([sys.executable, "-c", _REPLAY, str(answers), str(port)], upstream, stack)
        proxies = {
            "observe": _prefixlock_proxy(upstream, False, stack) + "/v1/messages",
            "--fix": _prefixlock_proxy(upstream, True, stack) + "/v1/messages",
        }
        client = stack.enter_context(httpx2.Client(trust_env=False, timeout=120))
        direct = upstream + "/v1/messages"
        ways = [
            ("observe", proxies["observe"], False),
            ("observe, stream", proxies["observe"], True),
            ("--fix", proxies["--fix"], False),
            ("--fix, stream", proxies["--fix"], True),
        ]
        exe, why = litellm()
        if exe is None:
            print(f"LiteLLM left out: {why}")
        else:
            url = _litellm_proxy(exe, upstream, stack, tmp) + "/v1/messages"
            ways += [("LiteLLM", url, False), ("LiteLLM, stream", url, True)]
        added: dict[str, list[float]] = {w[0]: [] for w in ways}
        base: dict[str, list[float]] = {w[0]: [] for w in ways}
        cpu: dict[str, list[float]] = {w[0]: [] for w in ways}
        for _, url, streaming in ways:  # warm connections
            _time(client, direct, stream_raw if streaming else raw, streaming)
            _time(client, url, stream_raw if streaming else raw, streaming)
        # What reading the gauge costs the proxy, taken off each request's CPU.
        reading = {
            url: statistics.median(
                -_loop_cpu(client, url) + _loop_cpu(client, url) for _ in range(20)
            )
            for url in {u.rsplit("/v1/", 1)[0] for u in proxies.values()}
        }
        for i in range(n):
            # The conversation goes on: each round's request is the last one's and a turn more,
            # so the proxy reads new messages each time, as it does in a real session.
            grown = _grown(body, i)
            raw, stream_raw = (
                json.dumps(grown).encode(),
                json.dumps({**grown, "stream": True}).encode(),
            )
            for name, url, streaming in ways:
                time.sleep(THINK)
                data = stream_raw if streaming else raw
                ours = url.rsplit("/v1/", 1)[0] if url in proxies.values() else None
                cpu_before = _loop_cpu(client, ours) if ours else 0.0
                before = _time(client, direct, data, streaming)
                through = _time(client, url, data, streaming)
                if ours:
                    cpu[name].append(_loop_cpu(client, ours) - cpu_before - reading[ours])
                base[name].append(before)
                added[name].append(through - before)
    return {
        name: {
            "p50": _pct(v, 0.5) * 1000,
            "p95": _pct(v, 0.95) * 1000,
            "direct_p50": statistics.median(base[name]) * 1000,
            **(
                {"cpu_p50": _pct(cpu[name], 0.5) * 1000, "cpu_p95": _pct(cpu[name], 0.95) * 1000}
                if cpu[name]
                else {}
            ),
        }
        for name, v in added.items()
    }


def test_bench_proxy() -> None:
    tokens = count_tokens(json.dumps(_body()))
    assert tokens > 100_000
    print("\na client with no cache hints, 20 turns, 10K-token system prompt:")
    for name, (rate, dollars) in savings().items():
        print(f"  {name:<28} {rate:6.1%}  ${dollars:.4f}")
    load = os.getloadavg()
    figures = measure()
    print(
        f"\nproxy overhead, {tokens:,}-token requests, {N} rounds, {ANSWER_TOKENS}-token answers"
        f" (load average {load[0]:.2f} before, {os.getloadavg()[0]:.2f} after, "
        f"{os.cpu_count()} CPUs):"
    )
    for name, f in figures.items():
        line = (
            f"  {name:<16} +{f['p50']:6.1f} ms p50  +{f['p95']:6.1f} ms p95  "
            f"(direct p50 {f['direct_p50']:.1f} ms)"
        )
        if "cpu_p50" in f:
            line += f"  request-path CPU {f['cpu_p50']:.2f} ms p50, {f['cpu_p95']:.2f} ms p95"
        print(line)


if __name__ == "__main__":
    test_bench_proxy()
