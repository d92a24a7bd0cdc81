"""Third-party frameworks with their defaults, unchanged, in their own venv, through
`prefixlock proxy`: what their cache costs direct, observed, and with `--fix`, against prefixlock's
own client on the same conversation.

- LangChain (`create_agent` + `ChatAnthropic`) and pydantic-ai (`AnthropicModel`) with no cache
  settings send no `cache_control`: Anthropic caches nothing for them. Through `--fix` they must
  reach prefixlock's own hit rate within a few points, for a fraction of the dollars.
- A fleet of eight pydantic-ai sessions on the OpenAI Responses API with no `prompt_cache_key`:
  every session starts with the same instructions, so all of them route as one prefix and spill
  over to machines that miss past ~15 requests a minute. `--fix` gives each detected session a
  key of its own.
- Observing only (`fixes=()`): the upstream receives the client's bytes unchanged.
"""

from __future__ import annotations

import asyncio
import json
import os
import runpy
import subprocess
from collections.abc import Iterator
from contextlib import AsyncExitStack, contextmanager
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path

import pytest

from prefixlock import Agent, FrozenPrefix
from prefixlock.billing.prices import PriceTable
from prefixlock.billing.usage import Usage, parse_usage
from prefixlock.clock import ManualClock
from prefixlock.emulator import Emulator
from prefixlock.proxy import Proxy, ProxyConfig
from prefixlock.proxy.repair import DEFAULT_FIXES
from tests.thirdparty.env import EnvUnavailable, thirdparty_python

pytestmark = [pytest.mark.thirdparty, pytest.mark.slow]

CLIENTS_DIR = Path(__file__).parent / "clients"
PRICES = PriceTable.builtin()


def _common() -> tuple[str, tuple[str, ...], tuple[str, ...]]:
    """The clients' system prompt and turns (their `_common` module, read as they read it)."""
    scope = runpy.run_path(str(CLIENTS_DIR / "_common.py"))
    return scope["SYSTEM"], scope["QUESTIONS"], scope["SESSION"]


SYSTEM, QUESTIONS, SESSION = _common()


@dataclass(frozen=True)
class Figures:
    requests: int
    hit_rate: float
    cost: Decimal

    def __str__(self) -> str:
        return f"{self.hit_rate:6.1%} ${self.cost:.4f} ({self.requests} requests)"


def figures(emulator: Emulator) -> Figures:
    """Hit rate and dollars of every request the emulator served, from its reported usage."""
    total, cost, n = Usage(), Decimal(0), 0
    for rec in emulator.served():
        usage = parse_usage(rec.api, rec.usage)
        total += usage
        cost += PRICES.require(str(rec.body["model"])).cost(usage)
        n += 1
    return Figures(n, total.hit_rate, cost)


@pytest.fixture(scope="module")
def client_python() -> Path:
    try:
        return thirdparty_python()
    except EnvUnavailable as exc:
        pytest.skip(str(exc))


def run_client(python: Path, client: str, base_url: str, cwd: Path) -> list[dict[str, object]]:
    # Nothing of ours on the client's path: its own venv, a folder of its own, no PYTHON* vars.
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTHON")}
    env["NO_PROXY"] = "127.0.0.1,localhost"
    done = subprocess.run(
        [str(python), str(CLIENTS_DIR / f"{client}.py"), base_url, f"sk-fake-{client}"],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]


@contextmanager
def upstream_for(
    python: Path, client: str, cwd: Path, fixes: frozenset[str] | None
) -> Iterator[tuple[Emulator, list[dict[str, object]]]]:
    """Run `client` against a fresh emulator, direct (`fixes` None) or through a proxy."""
    clock = ManualClock()  # never advanced: the clients' turns come within one minute
    with Emulator.start(clock=clock) as emu:
        if fixes is None:
            yield emu, run_client(python, client, emu.base_url, cwd)
            return
        with Proxy.start(ProxyConfig(upstream=emu.base_url, fixes=fixes), clock=clock) as px:
            reported = run_client(python, client, px.base_url, cwd)
            px.settle()
            assert px.errors == []
            yield emu, reported


async def _prefixlock_sessions(base_url: str, model: str, turns: list[list[str]]) -> None:
    """prefixlock's own client on the same conversations: `turns[t][s]` is session s's turn t,
    sessions served side by side as the fleet client serves them."""
    agent = Agent(FrozenPrefix(system=SYSTEM), model=model, base_url=base_url, api_key="sk-ours")
    async with AsyncExitStack() as stack:
        sessions = [await stack.enter_async_context(agent.session()) for _ in turns[0]]
        for texts in turns:
            for s, text in zip(sessions, texts, strict=True):
                async for _ in s.send(text):
                    pass


def prefixlock_figures(model: str, turns: list[list[str]]) -> Figures:
    with Emulator.start(clock=ManualClock()) as emu:
        asyncio.run(_prefixlock_sessions(emu.base_url, model, turns))
        return figures(emu)


@pytest.mark.parametrize(
    "client", ["langchain_anthropic_defaults", "pydantic_ai_anthropic_defaults"]
)
def test_fix_brings_a_framework_with_its_defaults_to_prefixlocks_hit_rate(
    client: str, client_python: Path, tmp_path: Path
) -> None:
    with upstream_for(client_python, client, tmp_path, None) as (emu, reported):
        direct = figures(emu)
        sent = [rec.body for rec in emu.served()]
    assert [t["turn"] for t in reported] == list(range(1, len(SESSION) + 1))
    with upstream_for(client_python, client, tmp_path, frozenset()) as (emu, _):
        observed = figures(emu)
        forwarded = [rec.body for rec in emu.served()]
    with upstream_for(client_python, client, tmp_path, frozenset(DEFAULT_FIXES)) as (emu, _):
        fixed = figures(emu)
    ours = prefixlock_figures("claude-sonnet-4-6", [[q] for q in SESSION])
    print(f"\n{client}: direct {direct} | observed {observed} | --fix {fixed} | prefixlock {ours}")

    assert direct.hit_rate == 0.0  # no cache_control: Anthropic caches nothing
    assert forwarded == sent  # observing changes nothing the upstream reads
    assert observed.cost == direct.cost
    assert fixed.hit_rate > ours.hit_rate - 0.03
    assert fixed.cost < direct.cost / 2


def test_fix_gives_each_session_of_a_fleet_its_own_cache_key(
    client_python: Path, tmp_path: Path
) -> None:
    client = "pydantic_ai_openai_fleet_defaults"
    with upstream_for(client_python, client, tmp_path, None) as (emu, reported):
        direct = figures(emu)
        assert all("prompt_cache_key" not in rec.body for rec in emu.served())
    assert len(reported) == 8 * len(SESSION)
    with upstream_for(client_python, client, tmp_path, frozenset(DEFAULT_FIXES)) as (emu, _):
        fixed = figures(emu)
        keys = {rec.body.get("prompt_cache_key") for rec in emu.served()}
    own_log = "build {0}: step failed, see log. " * 400  # as the client opens each session
    ours = prefixlock_figures(
        "gpt-5.4",
        [
            [q + ("\n" + own_log.format(s) if t == 0 else "") for s in range(8)]
            for t, q in enumerate(SESSION)
        ],
    )
    print(f"\n{client}: direct {direct} | --fix {fixed} | prefixlock {ours}")
    assert len(keys) == 8 and None not in keys  # one key per detected session
    assert fixed.hit_rate > direct.hit_rate + 0.05  # measured: 82.6% -> 92.5%
    assert fixed.hit_rate > ours.hit_rate - 0.03
    assert fixed.cost < direct.cost * Decimal("0.8")  # measured: $0.7075 -> $0.4708
