"""`Settings(compact_at=...)` compacts before the turn whose context passes the threshold: the
last request and the reply it got, which the next request carries, not the last request alone
(which would leave a whole turn to run past the threshold before compacting)."""

from __future__ import annotations

from prefixlock.settings import Settings
from tests.helpers.guardkit import advance, agent, first_turn_sizes, start_emulator, turn

MODEL = "claude-sonnet-4-6"
PROMPTS = (
    "Turn 1: look at src/app.py and tell me what f1 does.",
    "Turn 2: look at src/app.py and tell me what f2 does.",
)


async def _kinds_after_two_turns(threshold: float) -> list[str]:
    with start_emulator() as emu:
        a = agent(emu, model=MODEL, settings=Settings(compact_at=threshold))
        async with a.session() as s:
            for prompt in PROMPTS:
                await turn(s, prompt)
                advance(emu, 20)
            return [str(r.meta.get("kind", "turn")) for r in s.requests]


async def test_the_reply_that_takes_the_context_past_the_threshold_compacts_the_next_turn() -> None:
    last, reply, window = await first_turn_sizes(MODEL, PROMPTS[0])
    assert reply >= 2
    # The threshold falls inside the reply: the last request is under it, the context the
    # second turn sends is past it, so the summary goes before the second turn's requests.
    inside = await _kinds_after_two_turns((last + reply / 2) / window)
    assert inside.count("summary") == 1
    assert inside[inside.index("summary") - 1 :].count("turn") > 1  # then the turn, compacted
    # Past the reply as well: nothing to compact before the second turn.
    past = await _kinds_after_two_turns((last + reply + 1) / window)
    assert "summary" not in past
