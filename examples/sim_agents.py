"""A coding-agent workload calibrated on real session logs, through caches with and without a TTL.

Twelve agent sessions (an 18K-token start, about 80 requests each with heavy-tailed tool results,
idle pauses, compaction near 155K tokens, subagents on their own prefix; sources in
prefixlock/sim/agents.py) replayed through an unbounded cache, a cache whose idle blocks expire
after 5 minutes (Anthropic's default prompt-cache TTL) and one of 1 hour.
"""

from __future__ import annotations

from prefixlock.sim.agents import AgentWorkload, generate_agents
from prefixlock.sim.simulate import SimConfig, simulate

trace = generate_agents(AgentWorkload(sessions=12, seed=1))
print(
    f"{trace.requests:,} requests in {len(set(trace.session.tolist()))} sessions "
    f"(subagents included), prompts {int(trace.input_len.min()):,}-"
    f"{int(trace.input_len.max()):,} tokens"
)
for label, ttl in (("no expiry", None), ("5 min TTL", 300.0), ("1 h TTL", 3600.0)):
    r = simulate(trace, SimConfig(warmup=0.0, ttl=ttl, price="claude-sonnet-4-6"))
    print(
        f"{label:10s} hit {r.hit_rate_tokens:6.1%}  API ${r.dollars:,.2f} "
        f"(no cache ${r.dollars_without_cache:,.2f})"
    )
