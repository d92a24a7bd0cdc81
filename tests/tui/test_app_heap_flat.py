"""Memory flat in a long chat: past the visible window, with the conversation compacted, nothing
grows per turn. The real app, driven like a user with its own auto-compaction, holds the same
Python heap right after each compaction from the third on. (The RSS figures, over 500 turns:
tests/benchmarks/bench_tui_long.py.)"""

from __future__ import annotations

import gc
import statistics
import tracemalloc
from pathlib import Path

import pytest

from prefixlock.clock import ManualClock
from prefixlock.tui import app as app_module
from prefixlock.tui import state as state_module
from prefixlock.tui.app import ChatApp, release_render_caches
from prefixlock.tui.backend import BackendOptions, ChatBackend
from tests.helpers.emulator_process import emulator_process
from tests.helpers.tui_drive import say

# The chat's auto-compaction at this share of the default model's 1M-token window: the history
# compacts every ~9 turns (the system prompt and tools take ~2.5K tokens, a turn ~200).
COMPACT_AT = 0.004
COMPACTIONS = 9  # samples at the 3rd to the 9th
# What the heap may differ by between the first three of those samples and the last three
# (their medians: one sample caught with something in flight, +128 KB once, moves neither),
# ~36 turns apart. Measured (seven runs, some beside a benchmark on the same two cores): the
# medians from -2 to +73 KB, the samples in some runs rising ~1 KB a turn and in others not:
# the conversation's own objects, which differ with what the turn before a compaction left,
# SQLite's cursors (the connection keeps a weak reference to each until every 200th is made),
# Textual's per-widget caches of the mounted window, the guard's model of the cache, which
# keeps each dropped history's entries until they expire (the clock stands still here: ~1.5 KB
# a compaction), and what is not pinned down yet. 96 KiB is ~2.7 KB a turn: a request record
# kept a turn (the session keeping every request: +176 KB in 45 turns) passes it.
TOLERANCE = 96 * 1024
TURN_LIMIT = 150  # against a chat that stops compacting


@pytest.mark.slow  # ~80 turns of the real app under tracemalloc
async def test_the_heap_is_flat_across_compactions(
    workspace: Path, tmp_path: Path, clock: ManualClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A small mounted window, so it cycles many times in the run; the panel's per-turn figures
    # (bounded at 64 turns) full before the 3rd compaction, as they are in any long chat.
    monkeypatch.setattr(app_module, "LIVE_LIMIT", 16)
    monkeypatch.setattr(app_module, "LIVE_KEEP", 8)
    monkeypatch.setattr(state_module, "TURNS_KEPT", 8)

    async def no_sleep(seconds: float) -> None:
        clock.advance(seconds)

    # The emulator in a process of its own: its cache and requests are the provider's side, not
    # the chat's heap.
    with emulator_process() as url:
        opts = BackendOptions(
            emulator_url=url,
            workspace=workspace,
            store_path=tmp_path / "s.sqlite",
            session_id="heap-flat",
            api_key="",
            clock=clock,
            sleep=no_sleep,
            auto_compact_at=COMPACT_AT,
        )
        app = ChatApp(ChatBackend(opts), blink=False, typeahead_grace=0.0)
        samples: list[tuple[int, int]] = []  # (turn, bytes traced) right after each compaction
        async with app.run_test(size=(120, 40)) as pilot:
            # Traced from the first turn: started later, the objects that replace ones made
            # before the start (a cache's entries turning over) read as growth.
            tracemalloc.start(1)
            try:
                await say(app, pilot, "hello")  # opens the session
                n = 0
                while app.backend.session.state.compactions < COMPACTIONS and n < TURN_LIMIT:
                    n += 1
                    done = app.backend.session.state.compactions
                    await say(app, pilot, "look around" if n % 3 == 0 else "hello")
                    if app.backend.session.state.compactions != done:
                        await pilot.pause()
                        # Rich's and Textual's bounded caches of what was drawn, emptied as a
                        # trim empties them, so each sample has them at the same point.
                        release_render_caches()
                        gc.collect()
                        samples.append((n, tracemalloc.get_traced_memory()[0]))
            finally:
                tracemalloc.stop()
    assert len(samples) == COMPACTIONS, f"compacted {len(samples)} times in {n} turns"
    early = statistics.median(b for _, b in samples[2:5])
    late = statistics.median(b for _, b in samples[-3:])
    shown = ", ".join(f"turn {t}: {b / 1e6:.3f} MB" for t, b in samples)
    print(f"\nheap right after each compaction: {shown}")  # with -s: the figures
    assert late - early < TOLERANCE, (
        f"the heap grew {(late - early) / 1024:.0f} KiB from the 3rd-5th compactions to the "
        f"last three: {shown}"
    )
