"""The prefix anchor of a session that compacts (docs/savings.md, "The prefix anchor"): its
system prompt's last line is a block of its own, a 5-minute mark goes before that line and a
1-hour mark on it, so the entry of the whole prefix is written at 1 hour for the line's few
tokens and the compacted context reads it after a long gap."""

from __future__ import annotations

from prefixlock.billing.prices import PriceTable
from prefixlock.guard.policy import CachePolicy
from prefixlock.guard.prefix_keep import plan_prefix_keep
from prefixlock.guard.turn_end import DEFAULT_TURN_GAPS
from prefixlock.prefix import FrozenPrefix
from prefixlock.providers import SessionInfo
from prefixlock.providers.anthropic import AnthropicBuilder, anchor_split
from prefixlock.settings import Settings
from prefixlock.transcript import Message, Transcript
from tests.helpers.guardkit import SYSTEM, gap_session, prefix

SONNET = PriceTable.default().require("claude-sonnet-4-6")
MODEL = "claude-sonnet-4-6"
INFO = SessionInfo("s-1")
RULES = "You are careful.\n" + "Rule: read before you write.\n" * 400 + "Answer briefly."


def _marks(blocks: list[dict[str, object]]) -> list[object]:
    return [b.get("cache_control") for b in blocks]


def test_a_compacting_session_splits_its_last_line_off_and_marks_by_ttl() -> None:
    pfx = FrozenPrefix(system=RULES, tools=[])
    opening = Transcript([Message.user("Fix the bug.")])
    b = AnthropicBuilder(MODEL)
    plain = b.build_request(pfx, opening, Settings(), INFO).body
    assert [s["text"] for s in plain["system"]] == [RULES]
    compacting = Settings(compact_at=0.5)
    five = b.build_request(pfx, opening, compacting, INFO).body
    # The two blocks hold the text unchanged; the 5m mark is before the last line, and the
    # first request's short opening is not marked (the next request writes it at 1h).
    assert "".join(s["text"] for s in five["system"]) == RULES
    assert five["system"][1]["text"] == "Answer briefly."
    assert _marks(five["system"]) == [{"type": "ephemeral"}, None]
    assert all("cache_control" not in blk for m in five["messages"] for blk in m["content"])
    hour = b.build_request(pfx, opening, compacting.with_(prefix_ttl="1h"), INFO).body
    assert _marks(hour["system"]) == [None, {"type": "ephemeral", "ttl": "1h"}]
    assert anchor_split("one line") is None  # nothing to split off


def test_the_anchor_read_costs_one_read_and_pays_far_ahead() -> None:
    args = {"away": 270.0, "prefix_tokens": 22_800, "price": SONNET}
    anchored = plan_prefix_keep(DEFAULT_TURN_GAPS, turns_left=20, anchor=33, **args)  # type: ignore[arg-type]
    reads = plan_prefix_keep(DEFAULT_TURN_GAPS, turns_left=20, **args)  # type: ignore[arg-type]
    assert anchored.send and not reads.send  # 20 turns ahead: one anchor write pays, reads not
    assert anchored.costs == SONNET.input_cost(22_800 - 33, "read") + SONNET.input_cost(
        33, "write_1h"
    )
    far = plan_prefix_keep(DEFAULT_TURN_GAPS, turns_left=80, anchor=33, **args)  # type: ignore[arg-type]
    assert not far.send and far.costs == anchored.costs


async def test_a_default_session_compacts_onto_the_anchored_prefix_after_a_long_gap() -> None:
    pfx = prefix(system=SYSTEM + "\n" + RULES)
    rows = await gap_session(MODEL, 0.99, CachePolicy(), pfx)
    # The first turn's second request wrote the line and the opening at 1h: no read of the
    # prefix was needed in the gap, and the compacted context reads the whole prefix.
    assert rows[1].usage.cache_write_1h > 0
    assert not [r for r in rows if r.meta.get("keep") == "prefix"]
    kinds = [str(r.meta.get("kind", "turn")) for r in rows]
    compacted = rows[kinds.index("summary") + 1]
    prefix_tokens = rows[0].usage.cache_write_5m  # the first request wrote up to the line
    assert compacted.usage.cache_read > prefix_tokens
    written = compacted.usage.cache_write_5m + compacted.usage.cache_write_1h
    assert written < prefix_tokens / 4  # the summary after it, not the prefix again


def test_a_read_on_a_model_the_user_visits_for_a_turn_is_not_sent() -> None:
    args = {"away": 270.0, "prefix_tokens": 22_800, "price": SONNET, "anchor": 33}
    # One request in 20 on this model (a one-turn switch): the compaction, back on the first
    # model, would not read this model's entry.
    assert plan_prefix_keep(DEFAULT_TURN_GAPS, turns_left=5, on_model=0.95, **args).send  # type: ignore[arg-type]
    assert not plan_prefix_keep(DEFAULT_TURN_GAPS, turns_left=5, on_model=0.05, **args).send  # type: ignore[arg-type]
