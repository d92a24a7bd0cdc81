"""A long session keeps a bounded number of entries mounted: past the limit, the oldest go off
screen between turns (a line counts them) and come back, in order and with their text, when
the user scrolls to the top. (The figures, key echo and RSS over 500 turns:
tests/benchmarks/bench_tui_long.py.)"""

from __future__ import annotations

import gc
import json
import weakref
import zlib
from typing import Any

import pytest

from prefixlock.released_bodies import released
from prefixlock.tui import app as app_module
from prefixlock.tui.widgets import EarlierEntries, UserMessage
from tests.helpers.tui_drive import AppFactory, say, until


async def test_old_entries_leave_the_screen_and_come_back_on_scrolling_up(
    make_app: AppFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(app_module, "LIVE_LIMIT", 8)
    monkeypatch.setattr(app_module, "LIVE_KEEP", 4)
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        for n in range(8):
            await say(app, pilot, f"hello {n}")
        conv = app.conversation
        entries = [w for w in conv.children if not isinstance(w, EarlierEntries)]
        assert len(entries) <= 8  # bounded, however many turns ran
        line = conv.children[0]
        assert isinstance(line, EarlierEntries)
        assert "earlier entries: scroll up to show them" in str(line.render())
        # The newest turn is still on screen, whole.
        assert str(app.query(UserMessage).last().render()) == "› hello 7"
        # Scrolling to the top brings every earlier entry back, oldest first.
        while app.query(EarlierEntries):
            conv.post_message(conv.ReachedTop())
            await pilot.pause()
        users = [str(u.render()) for u in app.query(UserMessage)]
        assert users == [f"› hello {n}" for n in range(8)]
        # The session itself lost nothing: every turn reached the model.
        await until(lambda: len(app.backend.session.ledger.rows) == 8, "the ledger")


async def test_entries_taken_off_screen_are_held_on_disk(
    make_app: AppFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Their compressed text grew the chat's memory with every trim: it is in a temporary file,
    # which quitting closes (and so deletes: it has no name).
    monkeypatch.setattr(app_module, "LIVE_LIMIT", 8)
    monkeypatch.setattr(app_module, "LIVE_KEEP", 4)
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        for n in range(8):
            await say(app, pilot, f"hello {n}")
        spill = app._spill
        assert spill is not None and len(spill) > 0 and spill._file is not None
        assert len(app._earlier) == sum(len(json.loads(zlib.decompress(c))) for c in spill)
        held = spill._file
    assert held.closed


def _styles_cache(entry: weakref.ref[UserMessage]) -> Any:
    widget = entry()
    assert widget is not None
    return widget._styles_cache


async def test_entries_taken_off_screen_free_the_lines_they_drew(
    make_app: AppFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Memory stays flat in a long session: an entry taken off screen goes with every line it
    drew. Textual's styles cache otherwise outlives its widget (an lru_cache on a method,
    Textualize/textual#6665) and a long chat kept the lines of up to 1024 removed entries."""
    monkeypatch.setattr(app_module, "LIVE_LIMIT", 8)
    monkeypatch.setattr(app_module, "LIVE_KEEP", 4)
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await say(app, pilot, "hello 0")
        entry = weakref.ref(app.query(UserMessage).first())
        drawn = weakref.ref(_styles_cache(entry))
        await until(lambda: bool(_styles_cache(entry)._cache), "the first message to be drawn")
        for n in range(1, 8):
            await say(app, pilot, f"hello {n}")
        shown = [str(u.render()) for u in app.query(UserMessage)]
        assert "› hello 0" not in shown  # taken off screen
        gc.collect()
        assert entry() is None
        assert drawn() is None, "the lines a removed entry drew are still held"


async def test_entries_taken_off_screen_free_their_geometry_and_text(
    make_app: AppFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Textual's and Rich's bounded caches (the results of `Region`'s methods, the width of each
    string drawn) otherwise keep the geometry and text of entries long gone: a long chat filled
    them over hundreds of turns, most of its growth past the mounted window. Entries going off
    screen let them go; what is computed again afterwards is a miss."""
    from rich.cells import cached_cell_len
    from textual.geometry import Region, Spacing

    monkeypatch.setattr(app_module, "LIVE_LIMIT", 8)
    monkeypatch.setattr(app_module, "LIVE_KEEP", 4)
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await say(app, pilot, "hello 0")
        far, gap, text = Region(10_000, 10_000, 5, 5), Spacing(1, 1, 1, 1), "hello 0 (long gone)"
        far.shrink(gap)
        cached_cell_len(text)
        hits = Region.shrink.cache_info().hits, cached_cell_len.cache_info().hits
        far.shrink(gap)
        cached_cell_len(text)
        assert (Region.shrink.cache_info().hits, cached_cell_len.cache_info().hits) == (
            hits[0] + 1,
            hits[1] + 1,
        )  # cached while the entries are on screen
        for n in range(1, 8):
            await say(app, pilot, f"hello {n}")
        assert "› hello 0" not in [str(u.render()) for u in app.query(UserMessage)]
        misses = Region.shrink.cache_info().misses, cached_cell_len.cache_info().misses
        far.shrink(gap)
        cached_cell_len(text)
        assert (Region.shrink.cache_info().misses, cached_cell_len.cache_info().misses) == (
            misses[0] + 1,
            misses[1] + 1,
        ), "the caches still hold what was computed before the entries went off screen"


@pytest.mark.slow  # ten turns
async def test_a_long_session_holds_a_bounded_window_of_everything_per_turn(
    make_app: AppFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """What the chat keeps per turn stays bounded however long it runs: the mounted entries,
    the session's request records (and their bodies), the panel's turn figures. The bounds are
    made small here so a few turns pass each; the session still sent every request, and the
    store has every one."""
    from prefixlock.tui import backend as backend_module
    from prefixlock.tui import state as state_module

    monkeypatch.setattr(app_module, "LIVE_LIMIT", 8)
    monkeypatch.setattr(app_module, "LIVE_KEEP", 4)
    monkeypatch.setattr(backend_module, "KEEP_REQUESTS", 3)
    monkeypatch.setattr(state_module, "TURNS_KEPT", 4)
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        turns = 10
        for n in range(turns):
            await say(app, pilot, "look around" if n % 3 == 0 else f"hello {n}")
        s = app.backend.session
        entries = [w for w in app.conversation.children if not isinstance(w, EarlierEntries)]
        assert len(entries) <= 8
        assert len(s.requests) <= 3
        assert sum(not released(r) for r in s.requests) == backend_module.KEEP_BODIES == 1
        assert len(app.backend.state.turns) <= 4
        sent = s.state.sent
        assert sent > turns  # every third turn used a tool: two requests
        assert len(s.ledger.rows) <= 3
        assert len(s.ledger) == sent  # the session's figures count every request
        # The newest request is whole: the next one is predicted from it.
        assert s.previous_request is not None and not released(s.previous_request)
        store = app.backend.store
        assert store is not None
        assert len([r for r in store.requests(s.id) if r.kind == "turn"]) == sent


async def test_entries_taken_off_screen_empty_the_query_caches(
    make_app: AppFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Textual caches each `query_one` by the version of the node's children, so each turn
    (whose entries change the conversation) adds entries that are never asked for again, up to
    1024 a node: a long chat grew them turn after turn. Entries going off screen empty them."""
    monkeypatch.setattr(app_module, "LIVE_LIMIT", 8)
    monkeypatch.setattr(app_module, "LIVE_KEEP", 4)
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        trimmed_at: list[int] = []
        trim = app.trim_conversation

        async def recorded() -> None:
            before = len(app._earlier)
            await trim()
            if len(app._earlier) != before:
                trimmed_at.append(app.default_screen._nodes._updates)

        monkeypatch.setattr(app, "trim_conversation", recorded)
        for n in range(8):
            await say(app, pilot, f"hello {n}")
        assert trimmed_at, "no entry went off screen"
        keys = list(app.default_screen._query_one_cache.keys())
        stale = [k for k in keys if k[0] < trimmed_at[-1]]
        assert not stale, f"{len(stale)} query results from before the last trim are cached"
