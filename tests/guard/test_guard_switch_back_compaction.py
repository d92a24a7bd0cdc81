"""A compaction that falls due on the turn back from a one-turn excursion to another model: the
summary request goes where it costs less. The model the user comes back to still holds the
history before the excursion (held at 1h), so its summary reads nearly all of it and writes
only the excursion's turn, at its own (lower) output price; the model that answered last would
read it all at its higher prices. Before, the summary always went to the model that answered
last: on the versus suite's seed 9, $0.0833 on claude-opus-4-6 where claude-sonnet-4-6 would
have cost about $0.05."""

from __future__ import annotations

import json

from prefixlock.settings import Settings
from tests.helpers.guardkit import advance, agent, start_emulator, turn

SONNET, OPUS = "claude-sonnet-4-6", "claude-opus-4-6"


async def test_back_from_an_excursion_the_summary_goes_to_the_cheaper_model() -> None:
    with start_emulator() as emu:
        # With what a turn adds (about 800 tokens), the turn after the two sonnet turns stays
        # under 8,000 tokens (6.8K + 0.8K); the one after the opus turn passes it (7.7K + 0.8K).
        a = agent(emu, model=SONNET, settings=Settings(compact_at=8000 / 1e6))
        async with a.session() as s:
            for i in range(2):
                await turn(s, f"Turn {i}: look at src/app.py and tell me what f{i} does.")
                advance(emu, 20)
            s.switch_model(OPUS, quote=s.quote_switch(OPUS))
            await turn(s, "Turn 2: and f2?")
            advance(emu, 20)
            assert s.compactions == 0
            here = s.actions.summary_dollars("anthropic", SONNET)
            there = s.actions.summary_dollars("anthropic", OPUS)
            assert here is not None and there is not None and here < there
            s.switch_model(SONNET, quote=s.quote_switch(SONNET))
            n = len(emu.requests)
            await turn(s, "Turn 3: and f3?")
            assert s.compactions == 1
        summary, *rest = emu.requests[n:]
        assert "Summarize this conversation" in json.dumps(summary.body["messages"][-1])
        assert summary.body["model"] == SONNET
        # It read the history sonnet held from before the excursion: everything up to the
        # excursion's turn, which is all it wrote.
        assert summary.usage is not None and summary.usage["cache_read_input_tokens"] > 6000
        assert summary.usage["cache_creation_input_tokens"] < 1000
        assert rest and all(r.body["model"] == SONNET for r in rest)
