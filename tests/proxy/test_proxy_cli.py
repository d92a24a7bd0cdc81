"""`prefixlock proxy` as a user runs it: a process that says where it listens, forwards an SDK's
requests, prints one line of figures per request, records to the store, and stops on Ctrl-C;
`--stats` reads what it recorded. An unreachable upstream is a provider-shaped 502."""

from __future__ import annotations

import json
import re
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from prefixlock.clock import ManualClock
from prefixlock.emulator import Emulator
from prefixlock.proxy import Proxy, ProxyConfig
from tests.helpers.cli import run_cli
from tests.helpers.sdk import anthropic

SYSTEM = "Be careful. " * 500


def test_the_command_serves_reports_and_stops(tmp_path: Path) -> None:
    store = tmp_path / "s.sqlite"
    with Emulator.start(clock=ManualClock()) as emu:
        proc = subprocess.Popen(
            [
                sys.executable,
                "-c",
                "from prefixlock.cli.main import main; raise SystemExit(main())",
                "proxy",
                "--port",
                "0",
                "--upstream",
                emu.base_url,
                "--fix",
                "--store",
                str(store),
            ],
            stderr=subprocess.PIPE,
            text=True,
        )
        try:
            assert proc.stderr is not None
            banner = proc.stderr.readline() + proc.stderr.readline()
            url = re.search(r"on (http://127\.0\.0\.1:\d+) ->", banner)
            assert url, banner
            assert "repairs: breakpoints,cache-key,second-breakpoint" in banner
            client = anthropic.Anthropic(api_key="sk-cli-key", base_url=url.group(1))
            for text in ("first", "second"):
                client.messages.create(
                    model="claude-sonnet-4-6",
                    max_tokens=32,
                    system=SYSTEM,
                    messages=[{"role": "user", "content": text}],
                )
            first, second = proc.stderr.readline(), proc.stderr.readline()
            assert re.match(r"px-\w+ #0 claude-sonnet-4-6: read 0/", first), first
            assert "repairs: breakpoint:system,breakpoint:tail" in first
            assert "session" in second and "hit" in second
        finally:
            proc.send_signal(signal.SIGINT)
            assert proc.wait(20) == 0
    ran = run_cli("proxy", "--stats", "--json", "--store", str(store))
    rows = json.loads(ran.stdout)
    assert len(rows) == 2 and {r["requests"] for r in rows} == {1}
    assert "sk-cli-key" not in store.read_bytes().decode("latin-1")


def test_an_unreachable_upstream_is_a_502_in_the_providers_shape() -> None:
    with Proxy.start(ProxyConfig(upstream="http://127.0.0.1:9"), clock=ManualClock()) as px:
        client = anthropic.Anthropic(api_key="k", base_url=px.base_url, max_retries=0)
        with pytest.raises(anthropic.APIStatusError) as err:
            client.messages.create(
                model="claude-sonnet-4-6", max_tokens=8, messages=[{"role": "user", "content": "x"}]
            )
    assert err.value.status_code == 502
    assert "upstream unreachable" in str(err.value)
