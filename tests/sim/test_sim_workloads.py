"""Synthetic agent workloads, prefixlock traces and the client x server matrix."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path

import numpy as np
import pytest

from prefixlock.sim.matrix import run_matrix, summary
from prefixlock.sim.prefixlock_trace import read_prefixlock
from prefixlock.sim.simulate import SimConfig, simulate
from prefixlock.sim.synthetic import Workload, generate
from prefixlock.sim.trace import TraceError
from prefixlock.sim.tracefile import read_trace, sniff


def test_generator_is_deterministic_and_ordered() -> None:
    a = generate(Workload(sessions=10, seed=7))
    b = generate(Workload(sessions=10, seed=7))
    assert np.array_equal(a.ids, b.ids) and np.array_equal(a.times, b.times)
    assert np.all(np.diff(a.times) >= 0)
    assert set(np.unique(a.session).tolist()) == set(range(10))
    # contexts grow turn by turn within a session
    s0 = a.input_len[a.session == 0]
    assert np.all(np.diff(s0) > 0)


@pytest.mark.parametrize("style", ["timestamp", "shuffled-tools", "model-switch"])
def test_sloppy_styles_lose_hits(style: str) -> None:
    w = Workload(sessions=16, turns=8, seed=1)
    cfg = SimConfig(capacity=None, warmup=0.0)
    stable = simulate(generate(w), cfg).hit_rate_tokens
    other = simulate(generate(Workload(**{**w.__dict__, "style": style})), cfg).hit_rate_tokens
    assert other < stable


def test_tenant_sharing_matters() -> None:
    trace = generate(Workload(sessions=16, tenants=4, turns=4, seed=2))
    shared = simulate(trace, SimConfig(warmup=0.0)).hit_rate_tokens
    private = simulate(trace, SimConfig(warmup=0.0, share=False)).hit_rate_tokens
    assert private < shared


def test_matrix_measures_the_claim() -> None:
    cells = run_matrix(Workload(sessions=20, turns=10, seed=4))
    ratios = summary(cells)
    best = next(c for c in cells if c.style == "stable" and c.server == "cache-aware")
    assert best.hit_rate == max(c.hit_rate for c in cells)
    assert ratios["stable/crude"] > 1.5 and ratios["timestamp/cache-aware"] > 2.0


def _line(
    t: float,
    session: str,
    messages: Sequence[Mapping[str, object]],
    model: str = "claude-sonnet-4-6",
) -> str:
    body = {
        "model": model,
        "system": "You are terse. " * 40,
        "messages": messages,
        "max_tokens": 100,
    }
    return json.dumps(
        {
            "session_id": session,
            "seq": 0,
            "time": t,
            "provider": "anthropic",
            "api": "anthropic",
            "model": model,
            "path": "/v1/messages",
            "body": body,
            "usage": {"output": 20},
            "cost": None,
            "cache_key": None,
        }
    )


def test_prefixlock_traces_hash_into_chained_blocks(tmp_path: Path) -> None:
    m1 = [{"role": "user", "content": "hello there " * 30}]
    m2 = [
        *m1,
        {"role": "assistant", "content": "hi " * 20},
        {"role": "user", "content": "next " * 25},
    ]
    f = tmp_path / "t.jsonl"
    f.write_text(
        "\n".join([_line(100.0, "a", m1), _line(110.0, "a", m2), _line(120.0, "b", m2, "gpt-5")])
        + "\n"
    )
    trace = read_trace(f, block_size=16)
    assert (
        trace.name == "t.jsonl"
        and trace.requests == 3
        and trace.models == ("claude-sonnet-4-6", "gpt-5")
    )
    a = trace.ids[trace.starts[0] : trace.starts[1]]
    b = trace.ids[trace.starts[1] : trace.starts[2]]
    c = trace.ids[trace.starts[2] : trace.starts[3]]
    assert np.array_equal(a[:-1], b[: len(a) - 1])  # the second turn extends the first
    assert not set(c.tolist()) & set(b.tolist())  # another model: another cache
    assert trace.times.tolist() == [0.0, 10.0, 20.0]
    r = simulate(trace, SimConfig(warmup=0.0))
    k = len(a) if np.array_equal(a, b[: len(a)]) else len(a) - 1
    # only the second request hits: on the blocks it shares with the first
    assert r.cached_tokens == int(trace.tokens[trace.starts[1] : trace.starts[1] + k].sum()) > 0


def test_prefixlock_bad_line(tmp_path: Path) -> None:
    f = tmp_path / "t.jsonl"
    f.write_text(_line(1.0, "a", [{"role": "user", "content": "x"}]) + '\n{"body": 3}\n')
    with pytest.raises(TraceError) as err:
        read_prefixlock(f)
    assert err.value.where == f"{f}:2"
    assert read_prefixlock(f, skip_bad=True).skipped == 1


def test_prefixlock_invalid_json_named_or_skipped(tmp_path: Path) -> None:
    good = _line(1.0, "a", [{"role": "user", "content": "x"}])
    f = tmp_path / "t.jsonl"
    f.write_text("\n" + good + '\n{"body": {\n\n' + good + "\n")
    with pytest.raises(TraceError) as err:
        read_trace(f)  # sniffed as prefixlock past the blank first line
    assert err.value.where == f"{f}:3" and "invalid JSON" in str(err.value)
    assert str(err.value).endswith("(use --skip-bad to skip bad lines)")  # as Mooncake's says
    trace = read_trace(f, skip_bad=True)
    assert (trace.requests, trace.skipped) == (2, 1)


@pytest.mark.parametrize(
    ("first", "kind"),
    [('{"body": {}}', "prefixlock"), ('{"body": {', "mooncake"), ('{"timestamp": 0}', "mooncake")],
)
def test_sniff_reads_the_first_non_empty_line(tmp_path: Path, first: str, kind: str) -> None:
    f = tmp_path / "t.jsonl"
    f.write_text("\n  \n" + first + "\n")
    assert sniff(f) == kind
