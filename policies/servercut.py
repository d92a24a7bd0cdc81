"""A history window asked of the server by a request parameter (`context_management`): which
edit types cut the conversation on the provider's side, and the message both front ends give.

OpenAI Responses compaction (`{"type": "compaction", "compact_threshold": n}`) replaces older
turns with one compaction item once the conversation passes the threshold; Anthropic context
editing (`{"edits": [{"type": "clear_tool_uses_20250919"}]}`, `clear_thinking_...`,
`compact_...`) clears or summarises earlier content. Either way the prefix the next request
reads is not the one cached. Pure: strings in, a verdict and a message out.
"""

# pure: imports no I/O (tests/test_layout.py checks it)

from __future__ import annotations

from collections.abc import Iterable

# What makes the object that asks for it a request (its input), rather than settings kept for
# later requests (an agent SDK's `ModelSettings(context_management=...)`, left unreported).
REQUEST_KEYS = frozenset({"messages", "input", "previous_response_id", "conversation"})

# Prefixes of the edit types that change earlier turns (dated suffixes vary by release).
_CUTTING = ("compaction", "compact", "clear_")


def server_cut(types: Iterable[str]) -> str | None:
    """The first edit type that cuts or rewrites the history, None if none does."""
    return next((t for t in types if t.startswith(_CUTTING)), None)


def server_cut_message(kind: str) -> str:
    return (
        f"the request asks the server to cut the history (`context_management` {kind}): once "
        "the conversation passes the threshold its older turns are replaced or cleared, so the "
        "prefix cached from the system prompt on is no longer the one sent; let the history "
        "grow, or summarise it yourself in large steps at a point you choose"
    )
