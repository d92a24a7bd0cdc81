"""The context gauge and auto-compaction: the panel shows how full the model's window is (the
newest request's input and output against the price table's window), and past
`auto_compact_at` of it the backend compacts before the next message, priced and said."""

from __future__ import annotations

import dataclasses

from prefixlock.tui.state import context_share
from prefixlock.tui.widgets import CachePanel
from tests.helpers.backend_drive import OptionsFactory, started


async def test_the_gauge_follows_the_newest_request(chat_options: OptionsFactory) -> None:
    options = dataclasses.replace(chat_options(), auto_compact_at=0.0)
    async with started(options) as chat:
        backend = chat.backend
        assert backend.panel_view().context_tokens == 0
        await chat.say("hello")
        view = backend.panel_view()
        usage = backend.session.ledger.rows[-1].usage
        assert view.context_tokens == usage.input_total + usage.output > 0
        assert view.context_window == 1_000_000  # claude-sonnet-4-6, from the price table
        share = context_share(view)
        assert share is not None and 0 < share < 0.01
        shown: list[object] = []
        panel = CachePanel()
        panel.update = shown.append  # type: ignore[method-assign,assignment]
        panel.show(view)
        assert f"context {share:4.0%} of 1.0M" in str(shown[0])


async def test_past_the_threshold_the_next_message_compacts_first(
    chat_options: OptionsFactory,
) -> None:
    options = dataclasses.replace(chat_options(), auto_compact_at=0.000_001)
    async with started(options) as chat:
        backend = chat.backend
        await chat.say("hello")
        before = backend.session.prefix.fingerprint
        assert not any("auto-compacted" in n for n in chat.notes)
        await chat.say("look around")
        (note,) = [n for n in chat.notes if n.startswith("auto-compacted at")]
        assert "of the 1,000,000-token window" in note and "re-bills" in note
        assert backend.session.prefix.fingerprint != before  # a new, compacted prefix
