"""The chat sends the default cache policy's requests between turns without keep-alive turned
on: the turn end's planned 1-hour write goes out when due (the app ticks whenever
`tick_due`), so the chat saves what an `Agent` with no settings saves."""

from __future__ import annotations

from prefixlock.events import KeepAlivePing
from tests.helpers.backend_drive import ChatOpener


async def test_the_turn_ends_planned_write_goes_out_with_keepalive_off(
    open_chat: ChatOpener,
) -> None:
    async with open_chat() as chat:
        backend = chat.backend
        assert not backend.keepalive
        await chat.say("look around")
        due = backend.session.pings.next_ping_at()
        assert due is not None  # the public-log gaps make the 1-hour write pay
        assert not backend.tick_due()
        sent = len(backend.session.requests)
        backend.clock.advance(due - backend.clock.now())  # type: ignore[attr-defined]
        assert backend.tick_due()
        events = await backend.keepalive_tick()
        assert [type(e) for e in events] == [KeepAlivePing]
        assert len(backend.session.requests) == sent  # a write between turns, not a turn
        assert not backend.tick_due()
