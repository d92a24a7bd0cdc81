"""Synthetic agent workloads: many concurrent sessions whose context grows turn by turn.

Each session belongs to a tenant and sends one request per turn: tool definitions, then the
system prompt, then the whole conversation so far (user text, the assistant's reply and tool
results of every earlier turn). Sessions arrive as a Poisson process; turns are separated by think
time, sometimes by a long idle gap. The client style decides what the prefix looks like:

- stable: tools and system prompt never change (a careful client);
- timestamp: the system prompt carries the current time, so it changes on every request;
- shuffled-tools: the tool list is sent in a new order on every request;
- model-switch: the session moves to another model halfway (the cache is per model).

Prompts are cut into blocks of `block_size` tokens with chained ids (a block id names the block
and everything before it, model included), the same shape as a Mooncake trace. Deterministic for
a seed; pure.
"""

# pure: imports no I/O (tests/test_layout.py checks it)

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from ..errors import UserError
from .trace import Trace, from_requests

STYLES = ("stable", "timestamp", "shuffled-tools", "model-switch")


@dataclass(frozen=True)
class Workload:
    """Knobs of the generator; the defaults make a few thousand requests in well under a second."""

    sessions: int = 80
    tenants: int = 4
    turns: int = 16  # mean turns per session (geometric, at least 2)
    arrival_rate: float = 0.2  # sessions per second
    think_s: float = 20.0  # mean gap between turns
    idle_prob: float = 0.08  # chance that a gap is a long idle one
    idle_s: float = 900.0
    system_tokens: int = 2500
    tools: int = 16
    tool_tokens: int = 200
    user_tokens: int = 120
    turn_tokens: int = 1500  # assistant reply + tool results appended per turn
    output_tokens: int = 300
    block_size: int = 128
    style: str = "stable"
    shared_tools: bool = True  # every tenant uses the same tool definitions
    private_prefix: bool = False  # each session writes its own system prompt (nothing shared)
    seed: int = 0

    def check(self) -> Workload:
        if self.style not in STYLES:
            raise UserError(
                f"unknown client style {self.style!r}; choose from {', '.join(STYLES)}",
                where="--style",
            )
        for name in ("sessions", "tenants", "turns", "block_size", "tools"):
            if getattr(self, name) <= 0:
                raise UserError(f"{name} must be positive", where=f"--{name.replace('_', '-')}")
        if self.seed < 0:
            raise UserError(f"seed must be >= 0, got {self.seed}", where="--seed")
        return self


def generate(w: Workload) -> Trace:
    """The requests of workload `w`, in arrival order."""
    w = w.check()
    rng = np.random.default_rng(w.seed)
    # The style draws from its own generator so every style replays the same sessions.
    style_rng = np.random.default_rng(w.seed + 1)
    bs = w.block_size
    intern: dict[tuple[int, tuple[tuple[int, int, int], ...]], int] = {}
    seg_ids = iter(range(10**12))

    def seg() -> int:
        return next(seg_ids)

    tool_segs_shared = [(seg(), w.tool_tokens) for _ in range(w.tools)]
    tenant_tools = [
        tool_segs_shared if w.shared_tools else [(seg(), w.tool_tokens) for _ in range(w.tools)]
        for _ in range(w.tenants)
    ]
    tenant_system = [(seg(), w.system_tokens) for _ in range(w.tenants)]
    rows: list[tuple[float, list[int], int, int, int, int, int]] = []
    starts = np.cumsum(rng.exponential(1.0 / w.arrival_rate, w.sessions))
    for s in range(w.sessions):
        tenant = s % w.tenants
        n_turns = max(2, int(rng.geometric(1.0 / w.turns)))
        t = float(starts[s])
        history: list[tuple[int, int]] = []
        own_system = (seg(), w.system_tokens)
        for turn in range(n_turns):
            tools = list(tenant_tools[tenant])
            if w.style == "shuffled-tools":
                tools = [tools[i] for i in style_rng.permutation(len(tools))]
            system = [own_system if w.private_prefix else tenant_system[tenant]]
            if w.style == "timestamp":
                system = [(seg(), 12), *system]
            # prefixlock: ignore[PL302] a simulated workload's switch of model, not a model call
            model = 1 if (w.style == "model-switch" and turn >= n_turns // 2) else 0
            history.append((seg(), w.user_tokens))
            segments = tools + system + history
            ids = _blocks(segments, bs, model, intern)
            length = sum(n for _, n in segments)
            rows.append((t, ids, length, w.output_tokens, s, tenant, model))
            history.append((seg(), w.turn_tokens))
            gap = w.idle_s if rng.random() < w.idle_prob else rng.exponential(w.think_s)
            t += float(gap)
    order = sorted(range(len(rows)), key=lambda i: (rows[i][0], i))
    trace = from_requests(
        [rows[i] for i in order],
        block_size=bs,
        models=("model-a", "model-b"),
        name=f"synthetic:{w.style}",
    )
    return replace(trace, cache_key=trace.session.copy())


def _blocks(
    segments: list[tuple[int, int]],
    bs: int,
    model: int,
    intern: dict[tuple[int, tuple[tuple[int, int, int], ...]], int],
) -> list[int]:
    """Chained ids of the blocks covering `segments` (id, tokens); the last block may be partial."""
    ids: list[int] = []
    parent = -1 - model  # the cache is per model: the chain starts from the model
    piece: list[tuple[int, int, int]] = []
    room = bs
    for sid, n in segments:
        off = 0
        while off < n:
            take = min(room, n - off)
            piece.append((sid, off, off + take))
            off += take
            room -= take
            if room == 0:
                parent = intern.setdefault((parent, tuple(piece)), len(intern))
                ids.append(parent)
                piece = []
                room = bs
    if piece:
        ids.append(intern.setdefault((parent, tuple(piece)), len(intern)))
    return ids
