"""A synthetic coding-agent workload calibrated from real session logs.

What a coding agent (Claude Code, Codex CLI) sends looks little like a chat: a large fixed prefix
(system prompt and tool definitions, then project memory), then a long run of requests in one
turn, each appending a tool result of very uneven size; a human idles between turns; the context
is compacted near the window; subagents start cold on their own prefix. Each knob below names the
figure it is calibrated on (the public logs in tests/analyze/data/, their licenses beside them, and
docs/session-logs.md#claude-code; `CALIBRATION` repeats the sources for the command's output):

- shared prefix 11,500 tokens: a second subagent of the same type read 11,454 tokens written by
  the first (ccv-5c0375b4, Claude Code 1.0.108), i.e. system prompt + tools common to sessions;
- first request about 18-19K tokens: that session's first main request carried 18,768 input
  tokens (real sessions are reported to start at 15-25K, not checked on a public log); the
  session part is lognormal around 7,000 tokens;
- growth per request: median 423, p90 2,959 tokens in that session: the model's output
  (lognormal, median 120) plus a lognormal tool result (median 280, sigma 1.6: heavy-tailed, a
  file dump or a test log now and then);
- gaps within a turn: median 8.7 s, p90 43 s (that session): lognormal median 8.7 s, sigma 1.2;
- idle gaps: a human pause between turns; a study in claude-code#74547 found 77% of cache resets
  came after more than 5 minutes idle: one request in 25 ends a turn, followed by a lognormal idle
  with median 6 minutes;
- requests per session: 100+ as reported for coding sessions (not measured on a public log):
  lognormal median 80, sigma 0.8 (mean about 110);
- compaction: `compactMetadata` preTokens 155,252 -> postTokens 15,316 (a Claude Code log): past
  `compact_at` tokens the history is replaced by a summary of `compact_to` tokens, a new chain
  after the shared prefix (the cache misses it once);
- subagents: a subagent's first request wrote 12,802 tokens with nothing read (cold start on its
  own prefix), the next one of the same type read 11,454 (ccv-5c0375b4): subagents share a
  12,800-token prefix of their own; one request in 30 spawns one, which runs a lognormal number
  of requests (median 8) interleaved with its parent's.

Deterministic for a seed; pure (numpy only).
"""

# pure: imports no I/O (tests/test_layout.py checks it)

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..errors import UserError
from .trace import Trace, from_requests

CALIBRATION = (
    "calibrated on the public Claude Code log tests/analyze/data/claude-code/ccv-5c0375b4 "
    "(first request 18,768 tokens, growth median 423 / p90 2,959 tokens, gaps median 8.7 s / "
    "p90 43 s, subagent prefix 12,802 and shared 11,454 tokens) and published reports "
    "(compaction 155,252 -> 15,316 tokens in a Claude Code log; 77% of cache resets after "
    ">5 min idle, claude-code#74547; see docs/session-logs.md)"
)


@dataclass(frozen=True)
class AgentWorkload:
    """Knobs of the agent generator (see the module docstring for where each default comes from)."""

    sessions: int = 30
    tenants: int = 2  # client versions: each has its own system prompt + tools
    arrival_rate: float = 0.02  # sessions per second
    shared_prefix: int = 11_500
    session_context_median: int = 7_000
    requests_median: float = 80.0
    requests_sigma: float = 0.8
    tool_result_median: float = 280.0
    tool_result_sigma: float = 1.6
    output_median: float = 120.0
    gap_median_s: float = 8.7
    gap_sigma: float = 1.2
    turn_end_prob: float = 0.04
    idle_median_s: float = 360.0
    compact_at: int = 155_000
    compact_to: int = 15_300
    subagent_prob: float = 1 / 30
    subagent_prefix: int = 12_800
    subagent_requests_median: float = 8.0
    block_size: int = 256
    seed: int = 0

    def check(self) -> AgentWorkload:
        for name in ("sessions", "tenants", "block_size", "shared_prefix", "compact_at"):
            if getattr(self, name) <= 0:
                raise UserError(f"{name} must be positive", where=f"--{name.replace('_', '-')}")
        if not 0 < self.compact_to < self.compact_at:
            raise UserError("compact_to must be positive and below compact_at", where="compact_to")
        if self.seed < 0:
            raise UserError(f"seed must be >= 0, got {self.seed}", where="--seed")
        return self


class _Chain:
    """A prompt's chained block ids, extended segment by segment (ids as in `synthetic`)."""

    def __init__(self, root: int, bs: int, intern: dict[tuple[int, int, int], int]) -> None:
        self.ids: list[int] = []
        self.parent = root
        self.bs = bs
        self.fill = 0  # tokens in the open (partial) last block
        self.key = 0  # what the open block holds so far
        self.tokens = 0
        self.intern = intern

    def copy(self) -> _Chain:
        c = _Chain(self.parent, self.bs, self.intern)
        c.ids, c.fill, c.key, c.tokens = list(self.ids), self.fill, self.key, self.tokens
        return c

    def _id(self, key: int) -> int:
        return self.intern.setdefault((self.parent, key, self.fill), len(self.intern))

    def extend(self, segment: int, n: int) -> None:
        """Append `n` tokens of segment `segment` (a fresh number names fresh content)."""
        self.tokens += n
        while n > 0:
            take = min(self.bs - self.fill, n)
            # the open block's content: what it held and (segment, take) mixed into one number
            self.key = hash((self.key, segment, take, n))
            self.fill += take
            n -= take
            if self.fill == self.bs:
                self.parent = self._id(self.key)
                self.ids.append(self.parent)
                self.fill, self.key = 0, 0

    def request(self) -> list[int]:
        """The ids of the whole prompt so far, the open block included."""
        return [*self.ids, self._id(self.key)] if self.fill else list(self.ids)


def generate_agents(w: AgentWorkload) -> Trace:
    """The requests of agent workload `w` in arrival order (sessions, subagents as sessions of
    their own tagged with the parent's tenant)."""
    w = w.check()
    rng = np.random.default_rng(w.seed)
    bs = w.block_size
    intern: dict[tuple[int, int, int], int] = {}
    counter = iter(range(1, 1 << 62))

    def lognormal(median: float, sigma: float) -> float:
        return float(median * np.exp(sigma * rng.standard_normal()))

    tenant_main = []
    tenant_sub = []
    for t in range(w.tenants):
        main = _Chain(-1 - t, bs, intern)
        main.extend(next(counter), w.shared_prefix)
        sub = _Chain(-1 - t, bs, intern)
        sub.extend(next(counter), w.subagent_prefix)
        tenant_main.append(main)
        tenant_sub.append(sub)
    rows: list[tuple[float, list[int], int, int, int, int, int]] = []
    starts = np.cumsum(rng.exponential(1.0 / w.arrival_rate, w.sessions))
    next_session = w.sessions

    def run(chain: _Chain, base: _Chain, t: float, count: int, session: int, tenant: int) -> None:
        nonlocal next_session
        for _ in range(count):
            out = max(1, int(lognormal(w.output_median, 1.0)))
            rows.append((t, chain.request(), chain.tokens, out, session, tenant, 0))
            if rng.random() < w.subagent_prob:
                sub = tenant_sub[tenant].copy()
                sub.extend(next(counter), max(50, int(lognormal(600, 0.8))))  # the task
                k = max(2, int(lognormal(w.subagent_requests_median, 0.7)))
                next_session += 1
                run(sub, tenant_sub[tenant], t + 1.0, k, next_session, tenant)
            chain.extend(next(counter), out)
            tool = lognormal(w.tool_result_median, w.tool_result_sigma)
            chain.extend(next(counter), max(1, int(tool)))
            if chain.tokens >= w.compact_at:
                fresh = base.copy()
                fresh.extend(next(counter), w.compact_to)
                chain.__dict__.update(fresh.__dict__)
            if rng.random() < w.turn_end_prob:
                t += lognormal(w.idle_median_s, 1.0)
            else:
                t += lognormal(w.gap_median_s, w.gap_sigma)

    for s in range(w.sessions):
        tenant = s % w.tenants
        chain = tenant_main[tenant].copy()
        chain.extend(next(counter), max(100, int(lognormal(w.session_context_median, 0.4))))
        count = int(min(1000, max(5, lognormal(w.requests_median, w.requests_sigma))))
        run(chain, tenant_main[tenant], float(starts[s]), count, s, tenant)
    order = sorted(range(len(rows)), key=lambda i: (rows[i][0], i))
    return from_requests(
        [rows[i] for i in order], block_size=bs, models=("agent",), name="synthetic:agents"
    )
