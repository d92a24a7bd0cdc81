"""A team's view of the proxy: spend attributed per key, user and agent; daily budgets that
refuse in the provider's own error shape (or warn); Prometheus `/metrics`; the `/dashboard`
page as headless Chromium renders it; one OpenTelemetry span per request."""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Iterator
from decimal import Decimal
from typing import Any

import httpx2
import pytest

from prefixlock.clock import ManualClock
from prefixlock.emulator import Emulator
from prefixlock.proxy import Proxy, ProxyConfig
from prefixlock.proxy.repair import DEFAULT_FIXES
from prefixlock.proxy.team import Budgets

SYSTEM = "You are a careful assistant. " * 400
FIX = frozenset(DEFAULT_FIXES)  # breakpoints, so that the emulator caches and reads


@pytest.fixture
def emu() -> Iterator[Emulator]:
    with Emulator.start(clock=ManualClock(1000.0)) as e:
        yield e


def _ask(url: str, key: str, user: str, turn: int, agent: str = "my-agent/1.2") -> httpx2.Response:
    messages: list[dict[str, str]] = []
    for i in range(turn + 1):  # one conversation: each turn resends the earlier ones
        messages += [{"role": "user", "content": f"{user} asks question {i}"}]
        if i < turn:
            messages += [{"role": "assistant", "content": "Noted."}]
    body = {"model": "claude-sonnet-4-6", "max_tokens": 16, "system": SYSTEM, "messages": messages}
    headers = {"x-api-key": key, "x-prefixlock-user": user, "user-agent": agent}
    return httpx2.post(url + "/v1/messages", json=body, headers=headers, trust_env=False)


def test_a_user_over_the_daily_budget_is_refused_in_the_providers_shape(emu: Emulator) -> None:
    budgets = Budgets(per_user=Decimal("0.02"))
    with Proxy.start(ProxyConfig(upstream=emu.base_url), clock=emu.clock, budgets=budgets) as px:
        answers = []
        for turn in range(6):
            answers.append(_ask(px.base_url, "key-1", "alice", turn))
            px.settle()
        statuses = [r.status_code for r in answers]
        assert 200 in statuses and statuses[-1] == 429
        refused = answers[-1].json()
        assert refused["type"] == "error" and refused["error"]["type"] == "rate_limit_error"
        assert "$0.02 for user alice" in refused["error"]["message"]
        # Another user on the same key still goes through; the header never reaches upstream.
        assert _ask(px.base_url, "key-1", "bob", 0).status_code == 200
        assert all(r.status == 200 for r in emu.requests)
        px.settle()
        team = {row["user"]: row for row in px.team.rows()}
        assert set(team) == {"alice", "bob"}
        assert team["alice"]["agent"] == "my-agent"
        spent = Decimal(team["alice"]["cost"])
        assert spent >= Decimal("0.02") and team["alice"]["requests"] == statuses.count(200)


def test_a_budget_in_warn_mode_forwards_and_says_so(emu: Emulator) -> None:
    budgets = Budgets(per_key=Decimal("0.001"), refuse=False)
    with Proxy.start(ProxyConfig(upstream=emu.base_url), clock=emu.clock, budgets=budgets) as px:
        first = _ask(px.base_url, "key-1", "", 0)
        px.settle()
        second = _ask(px.base_url, "key-1", "", 1)
        assert (first.status_code, second.status_code) == (200, 200)
        assert "x-prefixlock-budget" not in first.headers
        assert "for key" in second.headers["x-prefixlock-budget"]


def _metrics(url: str) -> dict[str, float]:
    from prometheus_client.parser import text_string_to_metric_families

    text = httpx2.get(url + "/metrics", trust_env=False).text
    out: dict[str, float] = {}
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            labels = ",".join(f"{k}={v}" for k, v in sorted(sample.labels.items()))
            out[f"{sample.name}{{{labels}}}"] = sample.value
    return out


def test_metrics_count_what_the_upstream_reported(emu: Emulator) -> None:
    with Proxy.start(ProxyConfig(upstream=emu.base_url, fixes=FIX), clock=emu.clock) as px:
        for turn in range(3):
            assert _ask(px.base_url, "key-1", "carol", turn).status_code == 200
        px.settle()
        m = _metrics(px.base_url)
        (fig,) = px.figures()
    assert m["prefixlock_proxy_requests_total{api=anthropic,status=200}"] == 3
    upstream_input = sum(
        (r.usage or {}).get("input_tokens", 0)
        + (r.usage or {}).get("cache_read_input_tokens", 0)
        + (r.usage or {}).get("cache_creation_input_tokens", 0)
        for r in emu.requests
    )
    key = "{api=anthropic,model=claude-sonnet-4-6}"
    assert m[f"prefixlock_proxy_input_tokens_total{key}"] == upstream_input
    assert m[f"prefixlock_proxy_cache_read_tokens_total{key}"] == fig["cache_read"] > 0
    spent = m["prefixlock_proxy_cost_dollars_total{agent=my-agent,user=carol}"]
    assert spent == pytest.approx(float(fig["cost"]))


def _chromium() -> str:
    for name in ("chromium", "chromium-browser", "google-chrome"):
        found = shutil.which(name)
        if found:
            return found
    pytest.skip("no headless Chromium (install chromium)")


def test_the_dashboard_in_headless_chromium(emu: Emulator) -> None:
    browser = _chromium()
    with Proxy.start(ProxyConfig(upstream=emu.base_url, fixes=FIX), clock=emu.clock) as px:
        for turn in range(3):
            _ask(px.base_url, "key-1", "dana <b>", turn)  # escaped, never markup
        px.settle()
        (fig,) = px.figures()
        done = subprocess.run(
            [
                browser,
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--dump-dom",
                px.base_url + "/dashboard",
            ],
            capture_output=True,
            text=True,
            timeout=120,
        )
    dom = done.stdout
    assert done.returncode == 0 and "<table" in dom, done.stderr[-500:]
    assert fig["session_id"] in dom
    assert f"{fig['hit_rate']:.1%}" in dom  # the session's hit rate as the page shows it
    assert "dana &lt;b&gt;" in dom and "<b>dana" not in dom
    assert f"${Decimal(fig['cost']):.4f}" in dom


def test_one_span_per_request_with_the_cache_attributes(emu: Emulator) -> None:
    sdk = pytest.importorskip("opentelemetry.sdk.trace")
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    exporter = InMemorySpanExporter()
    provider = sdk.TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    tracer = provider.get_tracer("test")
    with Proxy.start(
        ProxyConfig(upstream=emu.base_url, fixes=FIX), clock=emu.clock, tracer=tracer
    ) as px:
        for turn in range(2):
            _ask(px.base_url, "key-1", "erin", turn)
        px.settle()
    spans = exporter.get_finished_spans()
    assert [s.name for s in spans] == ["chat claude-sonnet-4-6"] * 2
    attrs: dict[str, Any] = dict(spans[1].attributes or {})
    assert attrs["gen_ai.operation.name"] == "chat"
    assert attrs["gen_ai.provider.name"] == "anthropic"
    assert attrs["gen_ai.usage.cache_read.input_tokens"] > 0
    assert attrs["prefixlock.proxy.user"] == "erin"
    assert "sk-" not in repr(attrs) and "key-1" not in repr(attrs)


@pytest.mark.slow
def test_the_dashboard_draws_each_sessions_timeline_in_headless_chromium(emu: Emulator) -> None:
    # Three turns, an idle spell past the cache's 5 minutes, a fourth: four bars, the idle gap
    # shaded as past the TTL, and the break it caused marked.
    browser = _chromium()
    clock = emu.clock
    assert isinstance(clock, ManualClock)
    with Proxy.start(ProxyConfig(upstream=emu.base_url, fixes=FIX), clock=clock) as px:
        for turn in range(4):
            if turn == 3:
                clock.advance(400)
            _ask(px.base_url, "key-1", "fay", turn)
            clock.advance(5)
        px.settle()
        (fig,) = px.figures()
        page = px.base_url + "/dashboard"
        done = subprocess.run(
            [browser, "--headless", "--no-sandbox", "--disable-gpu", "--dump-dom", page],
            capture_output=True,
            text=True,
            timeout=120,
        )
    dom = done.stdout
    assert done.returncode == 0 and "<svg" in dom, done.stderr[-500:]
    timeline = dom.split(f'<h3 class="session">{fig["session_id"]}', 1)[1]
    timeline = timeline.split("</svg>", 1)[0]
    assert "(4 requests)" in timeline
    bars = {part.split('"', 1)[0] for part in timeline.split('<rect class="read" x="')[1:]}
    writes = {part.split('"', 1)[0] for part in timeline.split('<rect class="write" x="')[1:]}
    assert len(bars | writes) == 4  # one bar per request (x positions)
    assert timeline.count('class="gap over"') == 1 and "idle 405s, TTL 300s (expired)" in timeline
    assert fig["breaks"] == {"ttl": fig["breaks"]["ttl"]} and '<path class="break ttl"' in timeline
