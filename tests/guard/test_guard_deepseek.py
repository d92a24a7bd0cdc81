"""DeepSeek through the Agent: each request reads through the previous reply, as predicted.

DeepSeek stores a unit at the end of each request's output (docs/providers.md#deepseek-cache-units);
the guard is told the reply as the next request carries it back and predicts that read exactly, tool
calls included.
"""

from __future__ import annotations

from prefixlock.events import CacheBreak, Event
from tests.helpers.guardkit import advance, agent, of, start_emulator, turn


async def test_every_request_reads_through_the_previous_reply() -> None:
    with start_emulator() as emu:
        async with agent(emu, model="deepseek-v4-flash").session() as s:
            events: list[Event] = []
            for i in range(3):
                events += await turn(s, f"Turn {i}: look at src/app.py; what does f{i} do?")
                advance(emu, 20)
            requests = list(s.requests)
            rows = list(s.ledger.rows)
    assert len(requests) == 6  # per turn: a tool call, then the answer
    for req, prev, row in zip(requests[1:], requests[:-1], rows[1:], strict=True):
        # The previous request's input, then its reply: the unit before the newest item(s).
        items = req.body["messages"]
        last_reply = max(i for i, m in enumerate(items) if m.get("role") == "assistant")
        through = req.units[len(req.units) - len(items) + last_reply].end
        assert through > prev.input_tokens
        assert row.usage.cache_read == row.predicted_read == through
    assert not of(events, CacheBreak)
