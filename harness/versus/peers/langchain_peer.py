"""Peer: a LangChain agent (`create_agent`) on ChatAnthropic with AnthropicPromptCachingMiddleware.

Run by `prefixlock.versus` in its own venv (`langchain`, `langchain-anthropic`; nothing from
prefixlock, only `peer_langchain` and `peer_protocol` beside it). Caching is what LangChain's
Anthropic middleware page documents: `AnthropicPromptCachingMiddleware(ttl="5m")` in the agent's
middleware (the sub-agent's too). The agent loop, its compaction (`SummarizationMiddleware`)
and its subagents (subagents as tools) are peer_langchain.py's, shared with the OpenAI
LangChain peer. Same line protocol as anthropic_sdk.py (peer_protocol.py).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from . import peer_langchain, peer_protocol
else:  # run as a script, in its own venv: this folder is on the path
    import peer_langchain
    import peer_protocol


def main() -> None:
    from langchain_anthropic import ChatAnthropic
    from langchain_anthropic.middleware import AnthropicPromptCachingMiddleware

    start = peer_protocol.read()

    def chat_model(model: str) -> Any:
        return ChatAnthropic(
            model=model,
            api_key=start["api_key"],
            base_url=start["base_url"],
            max_tokens=4096,
        )

    ttl = "1h" if peer_protocol.long_ttl() else "5m"
    peer_langchain.run(start, chat_model, lambda: [AnthropicPromptCachingMiddleware(ttl=ttl)])


if __name__ == "__main__":
    peer_protocol.serve(main)
