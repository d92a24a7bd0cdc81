"""Peer clients: each a script that imports only its own framework, run in its own venv.

`PEERS` names each peer, its script (beside this file) and the packages its venv needs;
`prefixlock.versus.peers.envs` builds the venvs (pip, the same cache folder every run).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Peer:
    name: str
    script: str  # file name beside this module
    requirements: tuple[str, ...]  # what its venv installs (pip requirement strings)
    config: str  # how it is configured for caching, per its own docs

    @property
    def path(self) -> Path:
        return Path(__file__).with_name(self.script)


PEERS = (
    Peer(
        "anthropic-sdk",
        "anthropic_sdk.py",
        ("anthropic>=0.70",),
        'anthropic SDK loop, top-level automatic cache_control {"type": "ephemeral"}',
    ),
    Peer(
        "pydantic-ai",
        "pydantic_ai_peer.py",
        ("pydantic-ai-slim[anthropic]>=1.0",),
        "pydantic-ai Agent, AnthropicModelSettings(anthropic_cache_instructions=True, "
        "anthropic_cache_tool_definitions=True, anthropic_cache_messages=True)",
    ),
    Peer(
        "langchain",
        "langchain_peer.py",
        ("langchain>=1.0", "langchain-anthropic>=1.0"),
        "langchain create_agent(ChatAnthropic, "
        'middleware=[AnthropicPromptCachingMiddleware(ttl="5m"), '
        'SummarizationMiddleware(trigger=("tokens", N), keep=("messages", 20))])',
    ),
)
