"""Peer: a pydantic-ai Agent on Anthropic, cached with pydantic-ai's documented settings.

Run by `prefixlock.versus` in its own venv (`pydantic-ai-slim[anthropic]`; nothing from
prefixlock, only `peer_pydantic_ai` and `peer_protocol` beside it). Caching is what pydantic-ai's
Anthropic page documents: `AnthropicModelSettings` with `anthropic_cache_instructions`,
`anthropic_cache_tool_definitions` and `anthropic_cache_messages` on (5-minute TTL), for the
agent and its sub-agent alike. The agent loop and its subagents (agent delegation) are
peer_pydantic_ai.py's, shared with the OpenAI pydantic-ai peer. Same line protocol as
anthropic_sdk.py (peer_protocol.py).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from . import peer_protocol, peer_pydantic_ai
else:  # run as a script, in its own venv: this folder is on the path
    import peer_protocol
    import peer_pydantic_ai


def main() -> None:
    from pydantic_ai.models.anthropic import AnthropicModel, AnthropicModelSettings
    from pydantic_ai.providers.anthropic import AnthropicProvider

    start = peer_protocol.read()
    provider = AnthropicProvider(api_key=start["api_key"], base_url=start["base_url"])
    ttl: Any = "1h" if peer_protocol.long_ttl() else True  # True: the default 5 minutes
    settings = AnthropicModelSettings(
        max_tokens=4096,
        anthropic_cache_instructions=ttl,
        anthropic_cache_tool_definitions=ttl,
        anthropic_cache_messages=ttl,
    )

    def model_of(model: str) -> Any:
        return AnthropicModel(model, provider=provider)

    peer_pydantic_ai.run(start, model_of, settings)


if __name__ == "__main__":
    peer_protocol.serve(main)
