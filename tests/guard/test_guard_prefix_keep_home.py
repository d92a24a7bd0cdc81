"""The prefix read of a session that compacts, while the user is on another model for a turn
(docs/savings.md, "Keeping the prefix for the compaction"): the tools-and-system entry of the
model they left expires during the excursion unless read, and the compaction is made back on
that model, so the read goes there. Before, the read was planned for the model of the moment
only (where a compaction is unlikely), and the compaction wrote the prefix again: on the versus
suite's seed 1 (a resume, a one-turn switch, then a 414-s gap) $0.0971 instead of a read."""

from __future__ import annotations

from prefixlock.guard.policy import CachePolicy
from prefixlock.settings import Settings
from tests.helpers.guardkit import SYSTEM, advance, agent, grep, idle, prefix, start_emulator, turn

SONNET, OPUS = "claude-sonnet-4-6", "claude-opus-4-6"
RULES = "You are careful.\n" + "Rule: read before you write.\n" * 400 + "Answer briefly."
# The threshold (claude-sonnet-4-6's window is 1M tokens): the context the turn after the opus
# turn would reach (13.0K with what a turn adds) stays under it, the next turn's (13.8K) passes.
COMPACT_AT = 13_400 / 1_000_000


async def test_the_prefix_read_goes_to_the_model_the_user_left_for_a_turn() -> None:
    pfx = prefix(system=SYSTEM + "\n" + RULES)
    with start_emulator() as emu:
        settings = Settings(compact_at=COMPACT_AT)
        a = agent(emu, model=SONNET, pfx=pfx, settings=settings, policy=CachePolicy())
        async with a.session() as s:
            for i in range(2):
                await turn(s, f"Turn {i}: look at src/app.py and tell me what f{i} does.")
                advance(emu, 20.0)
            # A new tool list: the prefix is written cold, its anchor line not at 1 hour.
            s.change_tools(add=[grep], quote=s.quote_tools(add=[grep]))
            await turn(s, "Turn 2: look at src/app.py and tell me what f2 does.")
            advance(emu, 20.0)
            s.switch_model(OPUS, quote=s.quote_switch(OPUS))
            await turn(s, "Turn 3: and f3?")
            await idle(s, 600.0)  # past the sonnet prefix entry's 5 minutes
            reads = [r for r in s.ledger.rows if r.meta.get("keep") == "prefix"]
            s.switch_model(SONNET, quote=s.quote_switch(SONNET))
            await turn(s, "Turn 4: and f4?")
            advance(emu, 20.0)
            await turn(s, "Turn 5: and f5?")
            assert s.compactions == 1
            rows = list(s.ledger.rows)
    # One read, on the model the user left: it writes the anchor line at 1 hour.
    assert [r.model for r in reads] == [SONNET]
    assert reads[0].usage.cache_write_1h > 0
    kinds = [str(r.meta.get("kind", "turn")) for r in rows]
    compacted = rows[kinds.index("summary") + 1]
    # The compacted context, back on sonnet, reads the tools and system prompt the read kept.
    assert compacted.model == SONNET
    assert compacted.usage.cache_read >= reads[0].usage.cache_read
