"""The chat applies the default cache policy between turns as an `Agent` with no settings does,
keep-alive off: each request holds the model's last reply at 1h, so the history outlives a
40-minute gap with nothing sent between turns, and the next turn reads it."""

from __future__ import annotations

from tests.helpers.backend_drive import ChatOpener
from tests.helpers.marks import cache_marks

HOUR_MARK = {"type": "ephemeral", "ttl": "1h"}


async def test_the_chat_holds_the_history_at_one_hour_with_keepalive_off(
    open_chat: ChatOpener,
) -> None:
    async with open_chat() as chat:
        backend = chat.backend
        assert not backend.keepalive
        await chat.say("look around")
        await chat.say("and now the tests")
        session = backend.session
        # The bodies as sent, from the store (the chat keeps only the newest in memory).
        assert backend.store is not None
        bodies = [r.body for r in backend.store.requests(session.id)]
        held = [body for body in bodies[1:] if HOUR_MARK in cache_marks(body)]
        assert held, "no request held the reply at 1h"
        sent = len(session.requests)
        backend.clock.advance(40 * 60)  # type: ignore[attr-defined]
        assert not backend.tick_due()  # the held history needs no write between turns
        assert len(session.requests) == sent
        await chat.say("I'm back: what did you find?")
        back = session.ledger.rows[sent]
        assert back.usage.cache_read > 0.5 * back.ceiling  # the held history was read
