"""The context gauge and auto-compaction: the panel shows how full the model's window is (the
newest request's input and output against the price table's window), and past
`auto_compact_at` of it (the chat's default for `Settings.compact_at`) the session compacts
before the next message, by the same rule as any Agent, and the chat says so."""

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
    # The chat's threshold is the session's own `Settings.compact_at` (one rule for every
    # Agent: the context the next turn carries, when compacting gets it under). Here 2,300
    # tokens of the 1M window: "hello" leaves about 2,000, "look around" about 2,430.
    options = dataclasses.replace(chat_options(), auto_compact_at=0.0023)
    async with started(options) as chat:
        backend = chat.backend
        assert backend.session.state.settings.compact_at == 0.0023
        await chat.say("hello")
        await chat.say("look around")
        before = backend.session.prefix.fingerprint
        assert not any("auto-compacted" in n for n in chat.notes)
        assert backend.session.compactions == 0
        await chat.say("go on")
        (note,) = [n for n in chat.notes if n.startswith("auto-compacted at")]
        assert "of the 1,000,000-token window (threshold 0.23%)" in note
        assert "the summary request cost $" in note
        assert backend.session.compactions == 1
        assert backend.session.prefix.fingerprint != before  # a new, compacted prefix


def test_the_chat_threshold_fills_in_settings_compact_at_only_when_unset(
    chat_options: OptionsFactory,
) -> None:
    from prefixlock.settings import Settings
    from prefixlock.tui.backend import session_settings

    base = chat_options()
    assert session_settings(base).compact_at == 0.85  # the chat's default
    off = dataclasses.replace(base, auto_compact_at=0.0)
    assert session_settings(off).compact_at is None  # 0: never
    mine = dataclasses.replace(base, settings=Settings(compact_at=0.5))
    assert session_settings(mine).compact_at == 0.5  # the user's own wins
