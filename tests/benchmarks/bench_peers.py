"""prefixlock against the best-configured peers on sessions with real sessions' events
(run: python tests/benchmarks/bench_peers.py [--pairs N] [--jobs J] [--provider
anthropic|openai] [--json] [--trace-dir DIR]).

The suite's seed pairs (prefixlock.versus.scenario.suite: every turn's gap drawn from a public
production trace's user-turn gaps, model switches, tool servers that stop and start, turns that
hand four side tasks to parallel subagents on a cold prefix, a resume next day; rates and
sources in harness/versus/README.md) run through prefixlock (an Agent with its default
CachePolicy) and through each peer in its own venv, at its default TTL and at its documented
longer one: the anthropic SDK loop with automatic cache_control, pydantic-ai with its Anthropic
cache settings, LangChain with AnthropicPromptCachingMiddleware. With `--provider openai` the
same sessions run on gpt-5 (gpt-5-mini for a switch) against the OpenAI peers: the openai SDK
loop with a stable prompt_cache_key, openai-agents, pydantic-ai and LangChain ChatOpenAI, each
with its documented prompt_cache_key / prompt_cache_retention settings. `--pairs N` prints the
median, 10th percentile and worst of prefixlock's margin per event row and in total over N seed
pairs, with the wall time and the load average; the baseline is the cheapest peer row, measured
in the same run.
The venvs are built with pip under the cache folder (PREFIXLOCK_PEERS_DIR or
~/.cache/prefixlock/peers); a peer whose venv cannot be built (no package index) is reported as
not measured, and with no peer at all the script says so and exits 0.
"""

from __future__ import annotations

import sys

from prefixlock.cli.main import main

if __name__ == "__main__":
    sys.exit(main(["demo", "--versus", "peers", *sys.argv[1:]]))
