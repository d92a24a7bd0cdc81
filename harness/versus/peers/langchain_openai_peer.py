"""Peer: a LangChain agent (`create_agent`) on ChatOpenAI, cached as langchain-openai documents.

Run by `prefixlock.versus` in its own venv (`langchain`, `langchain-openai`; nothing from
prefixlock, only `peer_langchain` and `peer_protocol` beside it). OpenAI caches on its own;
ChatOpenAI's docs ("Prompt caching optimization") show passing OpenAI's `prompt_cache_key` (a
stable key, so the requests are routed together) and, for models before gpt-5.6,
`prompt_cache_retention="24h"` with the call. An agent makes the calls itself, so both go in
`model_kwargs`, which ChatOpenAI merges into every request (its docs: for OpenAI's own
parameters, as these are); the sub-agent runs on the same ChatOpenAI, so the same cache key and
retention. No caching middleware. The agent loop, its compaction (`SummarizationMiddleware`, as
in the Anthropic LangChain peer) and its subagents (subagents as tools) are peer_langchain.py's.
Same line protocol as anthropic_sdk.py (peer_protocol.py); the cache key is its
`cache_key(start)`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from . import peer_langchain, peer_protocol
else:  # run as a script, in its own venv: this folder is on the path
    import peer_langchain
    import peer_protocol


def main() -> None:
    from langchain_openai import ChatOpenAI

    start = peer_protocol.read()
    key = peer_protocol.cache_key(start)

    def chat_model(model: str) -> Any:
        return ChatOpenAI(
            model=model,
            api_key=start["api_key"],
            base_url=start["base_url"] + "/v1",
            max_tokens=4096,
            model_kwargs={"prompt_cache_key": key, "prompt_cache_retention": "24h"},
        )

    peer_langchain.run(start, chat_model, list)


if __name__ == "__main__":
    peer_protocol.serve(main)
