"""Cache-aligned compaction: summarize a long session with a request that reads its cache.

The summary request is the session's next request exactly (same prefix, same history, same
breakpoints) with the compaction instruction appended as the newest user turn after the last
breakpoint (as volatile text), so everything before it is read from the cache and the
instruction, read once, is billed as plain input rather than written. The compacted
session then starts from a new frozen prefix: by default the old system blocks plus one block
holding the summary (tools unchanged, so their cache entry still serves), and an empty
transcript; or, with `placement="messages"`, the same prefix and a transcript that opens with
the summary. Pure: building requests and prefixes only; the session sends.
"""

# pure: imports no I/O (tests/test_layout.py checks it)

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Literal

from ..errors import UserError
from ..prefix import SUMMARY_HEADER, FrozenPrefix, base_system
from ..transcript import Message

DEFAULT_INSTRUCTION = (
    "Summarize this conversation so far so that the work can continue from the summary alone: "
    "the task, decisions made, files and functions involved, what was tried and what is left. "
    "Be complete but brief."
)

# How near the threshold a context compacts early when the cache no longer holds its history
# (`compaction_due`).
EARLY_FRACTION = 0.9

SummaryPlacement = Literal["system", "messages"]
PLACEMENTS = ("system", "messages")


def check_placement(placement: str) -> None:
    """Refuse an unknown summary placement (before anything is sent)."""
    if placement not in PLACEMENTS:
        raise UserError(
            f"placement must be one of {PLACEMENTS}, got {placement!r}", where="placement"
        )


@dataclass(frozen=True)
class CompactionPlan:
    """What the compacted session starts from."""

    prefix: FrozenPrefix
    messages: tuple[Message, ...]


def summary_messages(
    history: Sequence[Message], pending_blocks: Sequence[dict[str, object]] = ()
) -> list[Message]:
    """The history the summary request carries before its instruction: with the tool results
    still owed to the model as a user turn, if any (the instruction joins that turn)."""
    return [*history, Message.user(list(pending_blocks))] if pending_blocks else list(history)


# The wire APIs that cache by prefix with the system prompt before the tools, or in an order
# the provider does not document (OpenAI: docs/providers.md#openai-api).
_SUMMARY_IN_MESSAGES = ("openai-chat", "openai-responses")


def auto_placement(api: str) -> SummaryPlacement:
    """Where an automatic compaction puts its summary on `api`. Anthropic renders the tools
    before the system prompt, so a summary in the system keeps the tools' entry and gets a
    breakpoint of its own ("system"). OpenAI's Responses API sends the system prompt as
    `instructions`, which come before the tools, and OpenAI does not document the order on
    Chat Completions: a summary in the system prompt would change every token after the old
    system text, the tools included, and re-bill them uncached. In the messages, after both,
    it leaves the whole old prefix cached ("messages")."""
    return "messages" if api in _SUMMARY_IN_MESSAGES else "system"


def resolve_placement(placement: str | None, api: str) -> SummaryPlacement:
    """The placement a compaction on `api` uses: the caller's, checked, or when it names none
    (None, every entry point's default: `Session.compact`, the chat's /compact, the automatic
    compaction) the wire API's own (`auto_placement`), so that a manual compaction on OpenAI
    keeps the instructions and tools byte-identical as the automatic one does."""
    if placement is None:
        return auto_placement(api)
    check_placement(placement)
    return "messages" if placement == "messages" else "system"


def compacted(
    prefix: FrozenPrefix, summary: str, placement: SummaryPlacement = "system"
) -> CompactionPlan:
    """The prefix and transcript a session continues from after compaction."""
    check_placement(placement)
    text = SUMMARY_HEADER + summary
    if placement == "system":
        # A later compaction replaces the earlier summary (its request read that summary, so
        # the new one covers it) rather than stacking summaries in the prefix.
        return CompactionPlan(prefix.replace(system=[*base_system(prefix), text]), ())
    return CompactionPlan(
        prefix,
        (Message.user(text), Message.assistant("Understood. Continuing from the summary.")),
    )


# How many of the latest whole turns give a turn's expected growth (`turn_growth`).
GROWTH_TURNS = 5


def turn_growth(messages: Sequence[Message], turns: int = GROWTH_TURNS) -> int:
    """The tokens a turn adds to the context, expected from the latest `turns` whole turns of
    `messages` (a turn starts at a user message that carries no tool result; a summary the
    compaction put in the messages is not one): their mean, 0 when there is none. Pure."""
    sizes: list[int] = []
    size = 0
    for m in reversed(messages):
        size += m.tokens
        if m.role == "user" and not m.has_tool_result():
            texts = [str(b.get("text", "")) for b in m.blocks if b.get("type") == "text"]
            if texts and texts[0].startswith(SUMMARY_HEADER):
                break
            sizes.append(size)
            size = 0
            if len(sizes) == turns:
                break
    return sum(sizes) // len(sizes) if sizes else 0


def compaction_due(
    context_tokens: int, limit: float, history_cold: Callable[[], bool], growth: int = 0
) -> bool:
    """Compact before the next turn, whose context (the last request and its reply) is
    `context_tokens` and which is expected to add `growth` tokens (`turn_growth`)? When its
    requests would reach `limit` (the context and the growth): the session compacts only
    between turns, so a threshold checked on the turn's start alone lets the whole turn run
    past it, where a client that checks every request (OpenAI's server-side compaction,
    LangChain's middleware) has compacted. Or, when the cache has lost the history (a
    resume, a gap past every entry's life: `history_cold()`, asked only near the threshold),
    when they would reach `EARLY_FRACTION` of it. Then the next turn would write the whole history
    to the cache again, only for a compaction a few turns later to read it once and drop it,
    and the entry of the tools and system prompt, which the compacted context reads, would by
    then likely have expired in a gap and be written again too. Compacting now sends the
    history once, as plain input (the summary request has no breakpoint in its messages on a
    cold cache), and the summary request's write of the tools and system prompt is what the
    compacted context reads."""
    expected = context_tokens + growth
    if expected >= limit:
        return True
    return expected >= EARLY_FRACTION * limit and history_cold()


def shrinks_below(request_tokens: int, history_tokens: int, limit: float) -> bool:
    """Would compacting bring a context of `request_tokens`, `history_tokens` of which a
    compaction replaces (the messages and an earlier summary), under `limit`? When the rest
    (tools, system) is already past it, compacting every turn would pay a summary each time and
    never get under. Pure arithmetic on the estimate quotes use."""
    return request_tokens - history_tokens + estimate_summary_tokens(history_tokens) < limit


def estimate_summary_tokens(history_tokens: int) -> int:
    """A working guess of a summary's length for quotes: a tenth of the history, 200..4000."""
    return max(200, min(history_tokens // 10, 4000))
