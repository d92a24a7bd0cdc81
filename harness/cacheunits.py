"""Cache units: a request body cut into the pieces a provider's prompt cache hashes.

One implementation of "what is the prefix of this request", shared by the cache guard (which
predicts hits) and the emulator (which serves them), so the two cannot drift apart.

Anthropic hashes tools -> system -> messages block by block; a breakpoint (`cache_control`) marks
where an entry is written, and an entry covers everything up to its block. Each unit here carries
the chained hash of everything up to and including it, its own token count, the running total,
and its breakpoint TTL if it has one. `cache_control` itself is not part of the hash: moving a
breakpoint does not change the bytes it covers.

OpenAI caches the token sequence in 128-token steps; `openai_units` cuts the prompt into the same
kind of units (each tool, each message or input item) and `openai_tokens` gives the token ids.
Settings that change the prefix without being content (tool_choice and thinking for Anthropic's
message level; parallel_tool_calls, response format, reasoning effort and verbosity for OpenAI)
are hashed into the chain where the provider documents they take effect.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from .canonical import canonical_bytes, chain_hash
from .tokenizer import count_tokens, tokenize

Section = str  # "tools" | "system" | "messages" | "settings"


@dataclass(frozen=True, slots=True)
class Unit:
    """One cacheable unit of a request."""

    section: Section
    position: int  # index among all units of the request
    chain: str  # hash of this unit and everything before it
    tokens: int  # tokens in this unit
    end: int  # tokens from the start of the request through this unit
    breakpoint: str | None = None  # "5m" | "1h" where this unit carries cache_control


def without_cache_control(block: Mapping[str, Any]) -> dict[str, Any]:
    """`block` as the cache hashes it: a breakpoint marker is not part of the key."""
    return {k: v for k, v in block.items() if k != "cache_control"}


def _ttl(block: Mapping[str, Any]) -> str | None:
    cc = block.get("cache_control")
    if not isinstance(cc, Mapping):
        return None
    ttl = cc.get("ttl", "5m")
    return str(ttl)


def message_unit_data(role: str, block_bytes: bytes) -> bytes:
    """The bytes a message content block is hashed as (its role, then its canonical form)."""
    return role.encode("ascii") + b"\x00" + block_bytes


def anthropic_message_settings(body: Mapping[str, Any]) -> bytes:
    """Settings that invalidate Anthropic's message level (tool_choice, thinking)."""
    return canonical_bytes(
        {k: body[k] for k in ("tool_choice", "thinking", "output_config") if k in body}
    )


def as_blocks(content: Any) -> list[Mapping[str, Any]]:
    """Anthropic `system` or message `content` as blocks: a string is one text block."""
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    if isinstance(content, Sequence):
        return [b for b in content if isinstance(b, Mapping)]
    return []


class _Builder:
    def __init__(self) -> None:
        self.units: list[Unit] = []
        self.chain = ""
        self.total = 0

    def add(
        self, section: Section, data: bytes, ttl: str | None, tokens: int | None = None
    ) -> None:
        self.chain = chain_hash(self.chain, data)
        n = count_tokens(data.decode("utf-8")) if tokens is None else tokens
        self.total += n
        self.units.append(Unit(section, len(self.units), self.chain, n, self.total, ttl))

    def seed(self, data: bytes) -> None:
        """Fold settings into the chain without adding a unit or tokens."""
        self.chain = chain_hash(self.chain, data)


def anthropic_units(body: Mapping[str, Any]) -> list[Unit]:
    """Cache units of an Anthropic Messages request body, in hashing order."""
    b = _Builder()
    for t in body.get("tools") or []:
        b.add("tools", canonical_bytes(without_cache_control(t)), _ttl(t))
    system = body.get("system")
    for block in as_blocks(system) if system is not None else []:
        b.add("system", canonical_bytes(without_cache_control(block)), _ttl(block))
    b.seed(anthropic_message_settings(body))
    for msg in body.get("messages") or []:
        role = str(msg.get("role", ""))
        for block in as_blocks(msg.get("content")):
            data = message_unit_data(role, canonical_bytes(without_cache_control(block)))
            b.add("messages", data, _ttl(block))
    top = body.get("cache_control")
    if isinstance(top, Mapping) and b.units:
        # Automatic caching: the breakpoint sits on the last cacheable block.
        last = b.units[-1]
        ttl = str(top.get("ttl", "5m"))
        b.units[-1] = Unit(last.section, last.position, last.chain, last.tokens, last.end, ttl)
    return b.units


OPENAI_PREFIX_SETTINGS = (
    "parallel_tool_calls",
    "response_format",
    "reasoning_effort",
    "verbosity",
    "reasoning",
    "text",
)


def openai_settings(body: Mapping[str, Any]) -> bytes:
    """Request settings that change OpenAI's cached prefix (FACTS.md), canonical."""
    return canonical_bytes({k: body[k] for k in OPENAI_PREFIX_SETTINGS if k in body})


def _openai_unit_texts(body: Mapping[str, Any]) -> list[tuple[Section, bytes]]:
    out: list[tuple[Section, bytes]] = [("settings", openai_settings(body))]
    if "instructions" in body and body["instructions"] is not None:
        out.append(("system", canonical_bytes({"instructions": body["instructions"]})))
    for t in body.get("tools") or []:
        out.append(("tools", canonical_bytes(t)))
    items = body.get("messages")
    if items is None:
        raw_input = body.get("input")
        if isinstance(raw_input, str):
            items = [{"role": "user", "content": raw_input}]
        else:
            items = raw_input
    for m in items or []:
        role = m.get("role") if isinstance(m, Mapping) else None
        section: Section = "system" if role in ("system", "developer") else "messages"
        out.append((section, canonical_bytes(m)))
    return out


def openai_units(body: Mapping[str, Any]) -> list[Unit]:
    """Cache units of an OpenAI Chat Completions or Responses body, in prompt order."""
    b = _Builder()
    for section, data in _openai_unit_texts(body):
        b.add(section, data, None)
    return b.units


def openai_tokens(body: Mapping[str, Any]) -> list[int]:
    """Token ids of an OpenAI prompt, unit by unit (the same cut as `openai_units`)."""
    ids: list[int] = []
    for _, data in _openai_unit_texts(body):
        ids.extend(tokenize(data.decode("utf-8")))
    return ids


def anthropic_tokens(body: Mapping[str, Any]) -> int:
    """Total input tokens of an Anthropic body as the emulator counts them."""
    units = anthropic_units(body)
    return units[-1].end if units else 0
