"""Peer clients: each a script that imports only its own framework, run in its own venv.

`PEERS` names each peer, its script (beside this file) and the packages its venv needs;
`prefixlock.versus.peers.envs` builds the venvs (pip, the same cache folder every run). The
scripts share the modules beside them, which they import by bare name: `peer_protocol` (the line
protocol with the driver), `peer_langchain` and `peer_pydantic_ai` (the agent loop of each
framework's Anthropic and OpenAI peer).
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
    provider: str = "anthropic"  # the API it speaks: the scenarios of this provider drive it
    args: tuple[str, ...] = ()  # given to its script (`--long`: its documented longer TTL)
    venv: str | None = None  # the peer whose venv it runs in (None: its own)

    @property
    def path(self) -> Path:
        return Path(__file__).with_name(self.script)

    def command(self, python: str) -> list[str]:
        """How the driver starts it with the interpreter of its venv."""
        return [python, str(self.path), *self.args]


def long_ttl(peer: Peer, config: str) -> Peer:
    """`peer` with its documented longer TTL (Anthropic's 1 hour, OpenAI's 24-hour retention),
    in the same venv: every peer is measured in both rows."""
    return Peer(
        f"{peer.name}-{'24h' if peer.provider == 'openai' else '1h'}",
        peer.script,
        peer.requirements,
        config,
        peer.provider,
        ("--long",),
        peer.name,
    )


_DEFAULT_TTL = (
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
    # OpenAI peers (`prefixlock demo --versus peers --provider openai`).
    Peer(
        "openai-sdk",
        "openai_sdk.py",
        ("openai>=2.0",),
        "openai SDK loop on Chat Completions, prompt_cache_key=<session id> on every request "
        "(default in-memory retention)",
        "openai",
    ),
    Peer(
        "openai-agents",
        "openai_agents_peer.py",
        ("openai-agents>=0.4",),
        "openai-agents Agent + Runner (Responses API), ModelSettings(prompt_cache_retention="
        '"24h", extra_args={"prompt_cache_key": <session id>}, context_management=[{"type": '
        '"compaction", "compact_threshold": N}])',
        "openai",
    ),
    Peer(
        "pydantic-ai-openai",
        "pydantic_ai_openai_peer.py",
        ("pydantic-ai-slim[openai]>=1.0",),
        "pydantic-ai Agent on OpenAIChatModel, OpenAIChatModelSettings(openai_prompt_cache_key="
        '<session id>, openai_prompt_cache_retention="24h")',
        "openai",
    ),
    Peer(
        "langchain-openai",
        "langchain_openai_peer.py",
        ("langchain>=1.0", "langchain-openai>=1.0"),
        'langchain create_agent(ChatOpenAI(model_kwargs={"prompt_cache_key": <session id>, '
        '"prompt_cache_retention": "24h"}), '
        'middleware=[SummarizationMiddleware(trigger=("tokens", N), keep=("messages", 20))])',
        "openai",
    ),
)


PEERS: tuple[Peer, ...] = (
    *_DEFAULT_TTL,
    long_ttl(
        _DEFAULT_TTL[0],
        'anthropic SDK loop, top-level cache_control {"type": "ephemeral", "ttl": "1h"}',
    ),
    long_ttl(
        _DEFAULT_TTL[1],
        'pydantic-ai Agent, AnthropicModelSettings(anthropic_cache_instructions="1h", '
        'anthropic_cache_tool_definitions="1h", anthropic_cache_messages="1h")',
    ),
    long_ttl(
        _DEFAULT_TTL[2],
        "langchain create_agent(ChatAnthropic, "
        'middleware=[AnthropicPromptCachingMiddleware(ttl="1h"), '
        'SummarizationMiddleware(trigger=("tokens", N), keep=("messages", 20))])',
    ),
    long_ttl(
        _DEFAULT_TTL[3],
        "openai SDK loop on Chat Completions, prompt_cache_key=<session id>, "
        'prompt_cache_retention="24h" on every request',
    ),
)


def peers_of(provider: str) -> tuple[Peer, ...]:
    """The peers that speak `provider`'s API."""
    return tuple(p for p in PEERS if p.provider == provider)
