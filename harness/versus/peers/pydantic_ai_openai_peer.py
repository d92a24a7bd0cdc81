"""Peer: a pydantic-ai Agent on OpenAI, cached with pydantic-ai's documented OpenAI settings.

Run by `prefixlock.versus` in its own venv (`pydantic-ai-slim[openai]`; nothing from
prefixlock, only `peer_pydantic_ai` and `peer_protocol` beside it). The model is
`OpenAIChatModel` (Chat Completions) with `OpenAIChatModelSettings`: `openai_prompt_cache_key`
(a stable key for the session, which pydantic-ai documents as OpenAI's cache-routing key) and
`openai_prompt_cache_retention="24h"` (OpenAI's extended retention, a setting pydantic-ai
documents beside it), for the agent and its sub-agent alike. The agent loop and its subagents
(agent delegation) are peer_pydantic_ai.py's, shared with the Anthropic pydantic-ai peer. Same
line protocol as anthropic_sdk.py (peer_protocol.py); the cache key is its `cache_key(start)`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from . import peer_protocol, peer_pydantic_ai
else:  # run as a script, in its own venv: this folder is on the path
    import peer_protocol
    import peer_pydantic_ai


def main() -> None:
    from pydantic_ai.models.openai import OpenAIChatModel, OpenAIChatModelSettings
    from pydantic_ai.providers.openai import OpenAIProvider

    start = peer_protocol.read()
    provider = OpenAIProvider(api_key=start["api_key"], base_url=start["base_url"] + "/v1")
    settings = OpenAIChatModelSettings(
        max_tokens=4096,
        openai_prompt_cache_key=peer_protocol.cache_key(start),
        openai_prompt_cache_retention="24h",
    )

    def model_of(model: str) -> Any:
        return OpenAIChatModel(model, provider=provider)

    peer_pydantic_ai.run(start, model_of, settings)


if __name__ == "__main__":
    peer_protocol.serve(main)
