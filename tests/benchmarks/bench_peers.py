"""prefixlock against the best-configured peers on sessions with real sessions' events
(run: python tests/benchmarks/bench_peers.py [--provider anthropic|openai] [--json]
[--trace-dir DIR]).

Both built-in scenario sessions (prefixlock.versus.scenario.suite: idle gaps, an idle past an
hour, model switches, MCP reconnects, wide turns of 12 parallel tool calls, turns that hand
four side tasks to parallel subagents on a cold prefix, a resume next day;
rates and sources in harness/versus/README.md) run through prefixlock (an Agent with its default
CachePolicy) and through each peer in its own venv, at its default TTL and at its documented
longer one: the anthropic SDK loop with automatic cache_control, pydantic-ai with its Anthropic
cache settings, LangChain with AnthropicPromptCachingMiddleware. With `--provider openai` the
same sessions run on gpt-5 (gpt-5-mini for a switch) against the OpenAI peers: the openai SDK
loop with a stable prompt_cache_key, openai-agents, pydantic-ai and LangChain ChatOpenAI, each
with its documented prompt_cache_key / prompt_cache_retention settings (about 12 min on 2 shared
cores). The baseline is the cheapest peer, measured in the same run.
The venvs are built with pip under the cache folder (PREFIXLOCK_PEERS_DIR or
~/.cache/prefixlock/peers); a peer whose venv cannot be built (no package index) is reported as
not measured, and with no peer at all the script says so and exits 0.
"""

from __future__ import annotations

import sys

from prefixlock.cli.main import main

if __name__ == "__main__":
    sys.exit(main(["demo", "--versus", "peers", *sys.argv[1:]]))
