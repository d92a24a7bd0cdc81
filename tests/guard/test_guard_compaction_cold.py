"""A session near its compaction threshold whose cache has lost the history (a gap past every
entry's life, a resume) compacts before the turn instead of writing the whole history to the
cache again: the summary request sends the history as plain input, writes the tools and system
prompt, and the compacted turn reads them. With the history still cached it waits for the
threshold."""

from __future__ import annotations

from prefixlock.billing.ledger import LedgerRow
from prefixlock.guard.compaction import EARLY_FRACTION, turn_growth
from prefixlock.settings import Settings
from tests.helpers.guardkit import advance, agent, first_turn_sizes, start_emulator, turn

MODEL = "claude-sonnet-4-6"
PROMPTS = (
    "Turn 1: look at src/app.py and tell me what f1 does.",
    "Turn 2: look at src/app.py and tell me what f2 does.",
)
TWO_HOURS = 7200.0  # past the 1-hour entries as well as the 5-minute ones


async def _first_context() -> tuple[int, int]:
    """The context the second turn's requests are expected to reach (the first turn's last
    request and its reply, and what a turn adds: `compaction.turn_growth`) and the model's
    window."""
    last, reply, window = await first_turn_sizes(MODEL, PROMPTS[0])
    with start_emulator() as emu:
        async with agent(emu, model=MODEL).session() as s:
            await turn(s, PROMPTS[0])
            growth = turn_growth(s.transcript.messages)
    return last + reply + growth, window


async def _second_turn(threshold: float, gap: float) -> list[LedgerRow]:
    """The second turn's ledger rows (a summary request's first), `gap` seconds after the
    first turn."""
    with start_emulator() as emu:
        a = agent(emu, model=MODEL, settings=Settings(compact_at=threshold))
        async with a.session() as s:
            await turn(s, PROMPTS[0])
            first = len(s.ledger.rows)
            advance(emu, gap)
            await turn(s, PROMPTS[1])
            return list(s.ledger.rows[first:])


def _kinds(rows: list[LedgerRow]) -> list[str]:
    return [str(r.meta.get("kind", "turn")) for r in rows]


async def test_a_cold_history_near_the_threshold_compacts_before_the_turn() -> None:
    context, window = await _first_context()
    # The context sits between the early mark and the threshold itself.
    threshold = context / ((1 + EARLY_FRACTION) / 2) / window
    warm = await _second_turn(threshold, 20.0)
    assert "summary" not in _kinds(warm)  # still cached: no compaction before the threshold
    cold = await _second_turn(threshold, TWO_HOURS)
    kinds = _kinds(cold)
    assert kinds[0] == "summary" and kinds.count("summary") == 1
    summary, compacted = cold[0].usage, cold[1].usage
    # The summary request writes only the tools and system prompt (its history, read once,
    # goes as plain input) and the compacted turn reads what it wrote.
    assert summary.cache_read == 0 and summary.uncached_input > 0
    written = summary.cache_write_5m + summary.cache_write_1h
    assert written > 0
    assert compacted.cache_read == written


async def test_a_cold_history_far_from_the_threshold_does_not_compact() -> None:
    context, window = await _first_context()
    threshold = context / (EARLY_FRACTION - 0.1) / window
    cold = await _second_turn(threshold, TWO_HOURS)
    assert "summary" not in _kinds(cold)
