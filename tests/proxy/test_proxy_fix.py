"""`--fix` on a client that sets no cache hints: the demo's naive client (its stable-prefix
variant, which only lacks breakpoints and a cache key) goes from its hit rate to prefixlock's own
through the proxy, with the dollars before and after; the full naive client, whose prefix changes
every request, is out of the proxy's reach, and its breaks are named. Also the CLI: `--stats`
and `lint --report` read what the proxy recorded; bad flags are one-line errors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from prefixlock.billing.prices import PriceTable
from prefixlock.cli.demo import FLAVORS, _run_naive, _run_prefixlock
from prefixlock.clock import ManualClock
from prefixlock.emulator import BUILTIN_PROMPTS, Emulator, EmulatorConfig
from prefixlock.proxy import Proxy, ProxyConfig
from prefixlock.proxy.repair import DEFAULT_FIXES
from prefixlock.store.database import SessionStore
from tests.helpers.cli import run_cli
from tests.helpers.sdk import anthropic

PROMPTS = BUILTIN_PROMPTS[:4]
FIXES = frozenset(DEFAULT_FIXES)


def test_fix_brings_a_client_without_breakpoints_to_prefixlocks_hit_rate() -> None:
    prices, flavor, config = PriceTable.builtin(), FLAVORS["anthropic"], EmulatorConfig()
    ours = _run_prefixlock(config, prices, PROMPTS, flavor, switch_at=99)[0]
    before = _run_naive(config, prices, PROMPTS, flavor, 99, hints_only=True)
    observed = _run_naive(config, prices, PROMPTS, flavor, 99, hints_only=True, fixes=frozenset())
    after = _run_naive(config, prices, PROMPTS, flavor, 99, hints_only=True, fixes=FIXES)
    assert before.hit_rate < 0.05  # no breakpoints: Anthropic caches nothing
    assert observed.hit_rate == before.hit_rate  # observing changes nothing
    assert after.hit_rate > ours.hit_rate - 0.03
    assert after.cost < before.cost / 2
    print(
        f"hit {before.hit_rate:.1%} ${before.cost:.4f} -> {after.hit_rate:.1%} "
        f"${after.cost:.4f}; prefixlock {ours.hit_rate:.1%} ${ours.cost:.4f}"
    )


def test_fix_on_openai_adds_the_prefix_familys_cache_key() -> None:
    """One key for the session, and it is its prefix family's (prefixlock.cache.keys): a
    program that runs one session per task sends all of them to the machine that holds the
    shared system prompt and tools."""
    prices, flavor, config = PriceTable.builtin(), FLAVORS["openai"], EmulatorConfig()
    after = _run_naive(config, prices, PROMPTS[:2], flavor, 99, hints_only=True, fixes=FIXES)
    keys = {line["cache_key"] for line in after.trace}
    assert len(keys) == 1 and next(iter(keys)).startswith("pl-")


def test_a_volatile_system_prompt_gets_no_breakpoint_and_the_break_is_named(
    tmp_path: Path,
) -> None:
    trace = tmp_path / "naive.jsonl"
    clock = ManualClock()
    with (
        Emulator.start(clock=clock) as emu,
        SessionStore(tmp_path / "store.sqlite") as store,
        Proxy.start(
            ProxyConfig(upstream=emu.base_url, fixes=FIXES, trace=trace), clock=clock, store=store
        ) as px,
    ):
        client = anthropic.Anthropic(api_key="k", base_url=px.base_url)
        messages: list[dict[str, object]] = []
        for turn in range(3):
            messages.append({"role": "user", "content": f"step {turn}"})
            reply = client.messages.create(
                model="claude-sonnet-4-6",
                max_tokens=64,
                system=f"Now: {turn}:00. " + "Be careful. " * 500,
                messages=messages,  # type: ignore[arg-type]
            )
            messages.append(
                {"role": "assistant", "content": [b.model_dump() for b in reply.content]}
            )
            clock.advance(30)
        px.settle()
        bodies = [r.body for r in emu.requests]
        (figures,) = px.figures()
    assert isinstance(bodies[0]["system"], list)  # the first request: no history yet
    assert all(isinstance(b["system"], str) for b in bodies[1:])  # then: seen to change
    assert "system" in figures["breaks"]
    ran = run_cli("proxy", "--stats", "--store", str(tmp_path / "store.sqlite"))
    assert ran.returncode == 0 and "system" in ran.stdout and "px-" in ran.stdout
    report = run_cli("lint", "--report", str(trace), "--format", "json")
    assert report.returncode == 0, report.stderr
    (session,) = json.loads(report.stdout)[0]["sessions"]
    assert session["requests"] == 3
    assert {b["cause"] for b in session["breaks"]} == {"system prompt changed"}
    # `prefixlock analyze` reads the proxy's store like any prefixlock store.
    analyzed = run_cli("analyze", str(tmp_path / "store.sqlite"), "--format", "json")
    assert analyzed.returncode == 0, analyzed.stderr
    (seen,) = json.loads(analyzed.stdout)["sessions"]
    assert seen["session"].startswith("px-") and seen["requests"] == 3
    assert seen["tokens"]["cache_write_5m"] > 0 and seen["tokens"]["cache_read"] == 0


@pytest.mark.parametrize(
    ("args", "where"),
    [
        (("--fix", "cache-key,bogus"), "--fix"),
        (("--upstream", "ftp://example"), "--upstream"),
        (("--port", "70000"), "--port"),
    ],
)
def test_bad_flags_are_one_line_errors(args: tuple[str, ...], where: str) -> None:
    ran = run_cli("proxy", *args)
    assert ran.returncode == 2
    assert len(ran.stderr.strip().splitlines()) == 1 and where in ran.stderr


def test_demo_proxy_rows() -> None:
    from prefixlock.cli.demo import PROXY_ROWS, run_proxy_demo

    result = run_proxy_demo(prompts=PROMPTS[:2], switch_at=99, servers=("cache-aware",))
    cells = result.to_dict()["rows"]
    assert set(cells) == {row for row, _ in PROXY_ROWS}
    hit = {row: cells[row]["cache-aware"]["hit_rate"] for row in cells}
    assert hit["no-hints"] < 0.05 < hit["no-hints+proxy"]
    assert abs(hit["no-hints+proxy"] - hit["prefixlock"]) < 0.03
    assert hit["naive+proxy"] < 0.05  # a prefix that changes every request: out of reach


def test_demo_proxy_refuses_trace_dir(tmp_path: Path) -> None:
    ran = run_cli("demo", "--proxy", "--trace-dir", str(tmp_path))
    assert ran.returncode == 2 and "--trace-dir" in ran.stderr


@pytest.mark.parametrize("keepalive", [False, True])
def test_keepalive_keeps_an_idle_sessions_cache_warm(keepalive: bool) -> None:
    clock = ManualClock()
    fixes = frozenset({"breakpoints", *(["keepalive"] if keepalive else [])})
    config = ProxyConfig(fixes=fixes, keepalive_every=0)  # ticks by hand below
    with Emulator.start(clock=clock) as emu:
        config.upstream = emu.base_url
        with Proxy.start(config, clock=clock) as px:
            client = anthropic.Anthropic(api_key="k", base_url=px.base_url)
            messages: list[dict[str, object]] = [{"role": "user", "content": "look around"}]
            system = "Be careful. " * 500

            def ask() -> int:
                reply = client.messages.create(
                    model="claude-sonnet-4-6",
                    max_tokens=64,
                    system=system,
                    messages=messages,  # type: ignore[arg-type]
                )
                messages.append(
                    {"role": "assistant", "content": [b.model_dump() for b in reply.content]}
                )
                messages.append({"role": "user", "content": "and then?"})
                return reply.usage.cache_read_input_tokens or 0

            ask()
            px.settle()
            pinged = []
            for _ in range(3):  # the user is away for 13.5 minutes
                clock.advance(270)
                pinged += px.keepalive_tick()
            read = ask()
            px.settle()
            (figures,) = px.figures()
    if keepalive:
        assert len(pinged) == 3 and px.pings == pinged
        assert read > 0  # the cache survived the idle stretch
        assert figures["repairs"]["keepalive"] == 3
        assert [r.body.get("max_tokens") for r in emu.requests] == [64, 0, 0, 0, 64]
    else:
        assert pinged == [] and read == 0
