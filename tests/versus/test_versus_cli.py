"""`prefixlock demo --versus peers`: a bad flag is one line naming it, exit 2, before anything
runs (no venv is built, no session started)."""

from __future__ import annotations

import json

import pytest

from prefixlock.versus.peers import peers_of
from prefixlock.versus.peers.envs import VenvUnavailable, python_for
from prefixlock.versus.scenario import pair_seeds, seed_range
from tests.helpers.cli import run_cli


@pytest.mark.parametrize(
    ("args", "names"),
    [
        (("--peers", "anthropic-sdk,crewai"), ("--peers", "crewai", "langchain")),
        (("--proxy",), ("--proxy",)),
        (("--provider", "openai", "--peers", "langchain"), ("--peers", "langchain", "openai")),
        (("--provider", "openai", "--idle", "1h"), ("--idle", "1h", "24h")),
        (("--idle", "24h"), ("--idle", "24h", "1h")),
        (("--switch", "sometimes"), ("--switch", "sometimes")),
        (("--pacing", "weekly"), ("--pacing", "weekly")),
        (("--pairs", "0"), ("--pairs", "0")),
        (("--jobs", "-1"), ("--jobs", "-1")),
        (("--seeds", "9"), ("--seeds", "9", "A-B")),
        (("--seeds", "2-5"), ("--seeds", "2-5", "odd")),
        (("--seeds", "9-8"), ("--seeds", "9-8")),
        (("--seeds", "1-4", "--pairs", "2"), ("--seeds", "--pairs")),
    ],
)
def test_bad_flags_are_one_line(args: tuple[str, ...], names: tuple[str, ...]) -> None:
    ran = run_cli("demo", "--versus", "peers", *args)
    assert ran.returncode == 2
    lines = [ln for ln in ran.stderr.splitlines() if ln.strip()]
    assert len(lines) == 1
    for name in names:
        assert name in lines[0]
    assert ran.stdout == ""


def test_seed_ranges_are_whole_pairs_of_the_pairs_layout() -> None:
    assert seed_range("9-28") == tuple(range(9, 29))
    assert seed_range("3-4") == (3, 4)
    assert seed_range("1-100") == pair_seeds(50)


@pytest.mark.slow  # two sessions through prefixlock and a peer's process
@pytest.mark.thirdparty
def test_seeds_plays_only_the_pair_asked_for() -> None:
    peer = next(p for p in peers_of("anthropic") if p.name == "anthropic-sdk")
    try:
        python_for(peer)
    except VenvUnavailable as exc:
        pytest.skip(str(exc))
    ran = run_cli(
        "demo",
        "--versus",
        "peers",
        "--seeds",
        "3-4",
        "--peers",
        "anthropic-sdk",
        "--jobs",
        "1",
        "--json",
    )
    assert ran.returncode == 0, ran.stderr
    data = json.loads(ran.stdout)
    assert data["seeds"] == [3, 4]
    assert data["scenarios"] == ["session-3", "session-4"]
    assert set(data["clients"]) == {"prefixlock", "anthropic-sdk"}
