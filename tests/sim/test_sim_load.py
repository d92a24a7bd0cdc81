"""Load honesty: utilisation and queue growth beside every TTFT, the overload warning, --nodes
auto, and what a session-keyed router does on a trace without sessions."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from prefixlock.sim import cluster
from prefixlock.sim.simulate import SimConfig, simulate, smallest_cluster
from prefixlock.sim.trace import Trace
from tests.helpers.cli import run_cli

DATA = Path(__file__).parent / "data"
CONVERSATION = DATA / "conversation_head3000.jsonl.gz"


def test_load_of_a_stable_and_an_overloaded_queue() -> None:
    # One node, a request every second. Service 0.5 s: half busy, the queue never grows.
    arrival = np.arange(100, dtype=np.float64)
    node = np.zeros(100, np.int64)
    half = np.full(100, 0.5)
    ttft = cluster.queue_ttft(node, arrival, half, 1)
    ld = cluster.load(node, arrival, half, ttft, 1, 0)
    assert abs(ld.utilisation[0] - 50 / 99) < 1e-9 and ld.queue_growth[0] == 0.0
    assert not ld.overloaded and ld.warning(1) is None
    # Service 2 s: each request waits one second longer than the one before (growth 1 s/s).
    two = np.full(100, 2.0)
    ttft = cluster.queue_ttft(node, arrival, two, 1)
    ld = cluster.load(node, arrival, two, ttft, 1, 0)
    assert abs(ld.queue_growth[0] - 1.0) < 1e-9 and ld.overloaded
    assert "overloaded" in (ld.warning(1) or "")


def test_conversation_on_one_default_node_warns() -> None:
    # Golden: the Mooncake conversation trace on the default node is several times more than
    # it can prefill, and the command says so beside the TTFT instead of printing it plain.
    ran = run_cli(*["sim", str(CONVERSATION), "--capacity", "10000", "--no-progress"])
    assert ran.returncode == 0, ran.stderr
    assert "util max" in ran.stdout and "queue s/s" in ran.stdout
    assert "warning (lru cap=10000): overloaded" in ran.stderr
    assert "backlog that never drains" in ran.stderr


def test_session_router_without_sessions_says_round_robin(conversation: Trace) -> None:
    t = conversation.head(600)
    assert (t.session < 0).all()  # Mooncake records carry no session id
    r = simulate(t, SimConfig(capacity=2000, nodes=4, router="session"))
    assert r.router_used == "round-robin"
    assert any("no session id on any request" in n for n in r.notes)
    assert r.load_max_mean_requests == 1.0  # not every request on one node
    rr = simulate(t, SimConfig(capacity=2000, nodes=4, router="round-robin"))
    assert r.hit_rate_tokens == rr.hit_rate_tokens


def test_nodes_auto_is_the_smallest_cluster_meeting_the_objective(conversation: Trace) -> None:
    t = conversation.head(1200)
    cfg = SimConfig(capacity=4000, router="round-robin")
    best, tried = smallest_cluster(t, cfg, slo_s=5.0)
    n = int(best.config["nodes"])
    assert best.ttft_p90_s <= 5.0 and not best.overloaded
    assert n > 1
    below = simulate(t, SimConfig(capacity=4000, router="round-robin", nodes=n - 1))
    assert below.ttft_p90_s > 5.0 or below.overloaded
    assert [k for k, _ in tried][:2] == [1, 2]
    assert "smallest cluster" in best.notes[-1]


def test_nodes_auto_on_the_command_line() -> None:
    ran = run_cli(
        *[
            "sim",
            str(CONVERSATION),
            "--limit",
            "800",
            "--capacity",
            "4000",
            "--router",
            "round-robin",
            "--nodes",
            "auto",
            "--slo-ttft",
            "5",
            "--no-progress",
        ]
    )
    assert ran.returncode == 0, ran.stderr
    assert "xround-robin" in ran.stdout and "--nodes auto:" in ran.stderr
