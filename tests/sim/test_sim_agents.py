"""The coding-agent workload against the figures it is calibrated on (see sim/agents.py)."""

from __future__ import annotations

import numpy as np

from prefixlock.sim.agents import AgentWorkload, generate_agents
from prefixlock.sim.simulate import SimConfig, simulate
from tests.helpers.cli import run_cli


def test_calibration_figures() -> None:
    w = AgentWorkload(sessions=30, seed=0)
    t = generate_agents(w)
    s, ln, tm = t.session, t.input_len, t.times
    main = [np.flatnonzero(s == k) for k in range(w.sessions)]
    firsts = np.array([ln[i[0]] for i in main])
    # real sessions start at 15-25K tokens (first request of ccv-5c0375b4: 18,768)
    assert 15_000 < np.median(firsts) < 25_000
    # 100+ requests per session in the survey: median around 80, mean above it
    per = np.array([i.shape[0] for i in main])
    assert 50 < np.median(per) < 120 and per.mean() > np.median(per)
    growth = np.concatenate([np.diff(ln[i]) for i in main])
    up = growth[growth > 0]
    # median growth per request 423 and p90 2,959 in the real session: heavy-tailed
    assert 300 < np.median(up) < 700 and np.percentile(up, 90) > 4 * np.median(up)
    # compaction: some requests drop to about the shared prefix + the 15.3K summary
    drops = np.concatenate([ln[i][1:][np.diff(ln[i]) < 0] for i in main])
    assert drops.shape[0] > 0 and (drops < w.shared_prefix + w.compact_to + 5_000).all()
    assert ln.max() < w.compact_at + 100_000
    # gaps: median 8.7 s within a turn; a few idle pauses past the 5-minute TTL
    gaps = np.concatenate([np.diff(tm[i]) for i in main])
    assert 5 < np.median(gaps) < 15 and 0.005 < (gaps > 300).mean() < 0.1
    # subagents: sessions of their own, starting cold on a ~12.8K shared prefix + a task
    subs = [np.flatnonzero(s == k) for k in range(w.sessions, int(s.max()) + 1)]
    sub_first = np.array([ln[i[0]] for i in subs if i.shape[0]])
    assert sub_first.shape[0] > 10 and 12_800 < np.median(sub_first) < 16_000


def test_ttl_and_capacity_matter_on_agent_sessions() -> None:
    t = generate_agents(AgentWorkload(sessions=12, seed=1))
    ceiling = simulate(t, SimConfig(warmup=0.0, price=None))
    five_min = simulate(t, SimConfig(warmup=0.0, ttl=300.0, price=None))
    small = simulate(t, SimConfig(warmup=0.0, capacity=200, price=None))
    # a warm agent loop reuses nearly everything; idle pauses past the TTL and a small cache
    # both cost hits
    assert ceiling.hit_rate_tokens > 0.9
    assert five_min.hit_rate_tokens < ceiling.hit_rate_tokens
    assert small.hit_rate_tokens < five_min.hit_rate_tokens
    again = generate_agents(AgentWorkload(sessions=12, seed=1))
    assert np.array_equal(again.ids, t.ids)  # deterministic for a seed


def test_agents_on_the_command_line() -> None:
    ran = run_cli("sim", "agents", "--sessions", "6", "--ttl", "300", "--no-progress")
    assert ran.returncode == 0, ran.stderr
    assert "synthetic:agents" in ran.stdout and "calibrated on" in ran.stderr
