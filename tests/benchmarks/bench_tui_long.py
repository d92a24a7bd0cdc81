"""A long chat in one process: key echo and memory, fresh and after 500 turns.

The real app (Pilot, headless) on the emulator with the chat's own script, served from another
process (the figures are the chat's process only, as against a real provider): 500 turns typed
through the prompt, every third one a tool-using "look around", the rest a plain "hello". Key
echo is the time from a key event reaching the app to the next screen update that follows the
prompt taking it (the compositor's update, which a terminal would be sent), keys 20 ms apart;
its p90 is taken fresh (before the first turn) and after the last turn. RSS is read from
/proc/self/status (after a collection) every 50 turns and right after each trim of the mounted
window (the turn whose end left fewer entries mounted than the turn before: the window back at
`LIVE_KEEP`); each figure is the least-squares slope past the first 100 turns, in MB per turn
(the target: flat, no growth past the visible window), and the same less the conversation's own
bytes a turn (its JSON: the transcript the model needs until a compaction, which stays in memory
whatever the chat does). The window cycles between `LIVE_KEEP` and `LIVE_LIMIT` entries about
every 20 turns, so the every-50 samples catch that saw-tooth at different phases (noise in
their slope, not growth); the after-trim samples are all at one phase, and the bound is on
theirs (`rss_mb_per_turn_beyond_trims`). The every-50 figures are still printed.

Run: `python -m pytest -o addopts="" -s tests/benchmarks/bench_tui_long.py` (BENCH_TURNS=50
for a quick look). Prints the figures and the load average; asserts key echo p90 under 50 ms
both times and RSS growth (after trims) under 0.003 MB a turn beyond the conversation's own
bytes; a run too short for `MIN_TRIMS` trims past the first 100 turns says so and leaves the
memory unbounded (its samples are the mounted window filling).
BENCH_TRACE=1 also prints what grew between the first trim at or after turn BENCH_TRACE_FROM
(default 150, past the turns that fill the mounted window) and the last trim: the live objects
by type, in objects and bytes a turn. BENCH_PEAK=1 runs the turns under `tracemalloc` and also
prints each turn's passing peak above what was live when it began (`tracemalloc.reset_peak`):
its slope past the first 100 turns, in KB a turn (what scales with the conversation at every
request; the allocator's arenas keep the high-water mark), the last turn's peak, and the slope of
what tracemalloc holds after each trim (the Python heap's own growth). It slows the turns
and so the key echo: the memory figures only.
BENCH_SNAP=1 runs the turns under `tracemalloc` (BENCH_SNAP_FRAMES frames a block, default 12)
and prints what stayed live between the first trim at or after BENCH_TRACE_FROM and the last
trim, grouped by traceback, in bytes and blocks a turn: the allocation sites of what each turn
leaves behind (strings and bytes too, which the census cannot name). Slower still; the
memory figures only.
BENCH_COMPACT=1 runs the chat with its auto-compaction at BENCH_COMPACT_AT (default 0.015) of the
model's context window (`BackendOptions.auto_compact_at`, the chat's own setting; the emulator's
script answers the summary request like any other), so the conversation itself is bounded:
it compacts several times in 500 turns. Its bound is on the TOTAL RSS slope after trims (the
conversation included: between compactions it saw-tooths, and nothing else may grow), and it
asserts the compactions happened.
"""

from __future__ import annotations

import asyncio
import dataclasses
import gc
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from prefixlock.clock import ManualClock
from prefixlock.tui.app import ChatApp
from prefixlock.tui.backend import BackendOptions, ChatBackend
from prefixlock.tui.prompt_input import PromptInput
from tests.helpers.emulator_process import emulator_process
from tests.helpers.tui_drive import say

TURNS = int(os.environ.get("BENCH_TURNS", "500"))
KEYS = 60
SAMPLE = max(1, min(50, TURNS // 10))  # RSS read every SAMPLE turns
P90_MS = 50.0
# RSS growth a turn past the first 100, beyond the conversation's own bytes (the transcript the
# model needs until a compaction, which no bound may drop): within the noise of reading RSS.
# Measured 0.0029, 0.0032, 0.0031 once messages were held as their JSON bytes (0.0043 to 0.0049
# before). With an Anthropic body's message list held as a recipe, its units packed and the
# store writing only the items it has not: 0.0016, 0.0021, 0.0023 (load 6.4, 2.9, 1.8), against
# 0.0023, 0.0034, 0.0025 for the code before them on the same machine (load 4.4, 2.7, 1.9): the
# Python objects a message costs fell from ~407 to ~100 bytes beyond its text. The bound leaves
# about a quarter above the highest for the noise of a shared machine.
MB_PER_TURN = 0.003
MIN_TRIMS = 3  # after-trim samples past the warm-up needed for their slope
TRACE = os.environ.get("BENCH_TRACE") == "1"
# BENCH_COMPACT: the chat's auto-compaction at this share of the model's window (1M tokens for
# the default model: 0.015 is 15K, past the ~8K the tools and system prompt take, so the
# history compacts every few dozen turns).
COMPACT = os.environ.get("BENCH_COMPACT") == "1"
COMPACT_AT = float(os.environ.get("BENCH_COMPACT_AT", "0.015"))
MIN_COMPACTIONS = 3  # a 500-turn run in BENCH_COMPACT mode must compact at least this often
PEAK = os.environ.get("BENCH_PEAK") == "1"
SNAP = os.environ.get("BENCH_SNAP") == "1"
SNAP_FRAMES = int(os.environ.get("BENCH_SNAP_FRAMES", "12"))
# The census starts here (BENCH_TRACE_FROM): past the turns that fill the mounted window.
TRACE_FROM = int(os.environ.get("BENCH_TRACE_FROM", str(min(150, TURNS // 2))))


def _rss_mb() -> float:
    with open("/proc/self/status", encoding="ascii") as fh:
        for line in fh:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    raise RuntimeError("no VmRSS")


def _rss_parts_mb() -> dict[str, float]:
    """RSS by kind (RssAnon: the heap, Python's and native; RssFile: mapped files, e.g. the
    code, SQLite's shared memory; RssShmem), MB: to tell which kind a growth is."""
    out: dict[str, float] = {}
    with open("/proc/self/status", encoding="ascii") as fh:
        for line in fh:
            if line.startswith(("RssAnon:", "RssFile:", "RssShmem:")):
                key, value = line.split()[:2]
                out[key.rstrip(":")] = int(value) / 1024
    return out


def _p90(values: list[float]) -> float:
    return statistics.quantiles(values, n=10)[-1]


def _own_bytes(requests: Any) -> int:
    """The bytes of the containers the requests themselves hold (each counted once)."""
    import sys

    seen: set[int] = set()
    total = 0
    from prefixlock.released_bodies import released

    for r in requests:
        body = {} if released(r) else r.body  # a released body holds nothing
        parts = [v for v in body.values() if isinstance(v, list | tuple | dict)]
        for obj in (r.units, *parts):
            if id(obj) not in seen:
                seen.add(id(obj))
                total += sys.getsizeof(obj)
    return total


def _census() -> dict[str, tuple[int, int]]:
    """Live objects tracked by the collector: type name -> (count, bytes of the objects
    themselves, as sys.getsizeof counts them)."""
    import sys

    out: dict[str, list[int]] = {}
    for obj in gc.get_objects():
        t = type(obj)
        key = f"{t.__module__}.{t.__qualname__}"
        row = out.setdefault(key, [0, 0])
        row[0] += 1
        row[1] += sys.getsizeof(obj)
    return {k: (v[0], v[1]) for k, v in out.items()}


def _print_growth(
    before: dict[str, tuple[int, int]], after: dict[str, tuple[int, int]], turns: int
) -> None:
    """What grew between two censuses, by type, in objects and bytes per turn (objgraph's
    growth, by hand). Strings and numbers are not tracked by the collector: their growth
    shows as the containers that hold them."""
    rows = []
    for key, (n, size) in after.items():
        n0, size0 = before.get(key, (0, 0))
        if n > n0 or size > size0:
            rows.append(((size - size0) / turns, (n - n0) / turns, key))
    rows.sort(reverse=True)
    print(f"\ngrowth over {turns} turns, by type (objects tracked by the collector):")
    for per, objs, key in rows[:20]:
        print(f"  {per:9,.0f} B/turn  {objs:7.2f} obj/turn  {key}")


def _print_sites(before: Any, after: Any, turns: int) -> None:
    """What stayed live between two tracemalloc snapshots, grouped by traceback, in bytes and
    blocks a turn; each site with its innermost frames inside the project (or, failing that, its
    innermost frames), the frames of the benchmark and asyncio's loop left out."""
    import tracemalloc

    keep = tracemalloc.Filter(False, tracemalloc.__file__)
    stats = after.filter_traces([keep]).compare_to(before.filter_traces([keep]), "traceback")
    grown = [s for s in stats if s.size_diff > 0]
    total = sum(s.size_diff for s in stats)
    print(f"\nlive heap over {turns} turns: {total / turns:,.0f} B/turn in all; top sites:")
    for stat in grown[:25]:
        print(f"  {stat.size_diff / turns:9,.0f} B/turn  {stat.count_diff / turns:7.2f} blk/turn")
        frames = [
            f
            for f in stat.traceback
            if "prefixlock" in f.filename or "/tui/" in f.filename or "/harness/" in f.filename
        ]
        for frame in (frames or list(stat.traceback))[:5]:
            print(f"      {frame.filename}:{frame.lineno}")


def _slope(points: list[tuple[int, float]]) -> float:
    if len(points) < 2:
        return float("nan")  # no slope to fit (a short run): not 0, which reads as flat
    xs, ys = [p[0] for p in points], [p[1] for p in points]
    mx, my = statistics.fmean(xs), statistics.fmean(ys)
    den = sum((x - mx) ** 2 for x in xs)
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True)) / den if den else 0.0


class _Paints:
    """The screen updates, each with the prompt's text at that moment: recorded only while key
    echo is measured. Recorded through the turns too, they grew the measured process by ~0.5
    KB a turn (a dozen updates a turn, each a tuple and a float: the benchmark's own growth)."""

    def __init__(self) -> None:
        self.on = False
        self.rows: list[tuple[float, str]] = []


async def _echo_ms(app: ChatApp, recorded: _Paints) -> list[float]:
    """Milliseconds from each key event to the first screen update that shows the prompt
    holding it (each update is recorded with the prompt's text at that moment)."""
    from textual import events

    prompt = app.query_one("#prompt", PromptInput)
    prompt.focus()
    out: list[float] = []
    recorded.on = True
    paints = recorded.rows
    for i in range(KEYS):
        if i % 20 == 0:
            prompt.value = ""
            await asyncio.sleep(0.05)
        ch = "abcdefghij"[i % 10]
        wanted = prompt.value + ch
        seen = len(paints)
        t0 = time.perf_counter()
        app.post_message(events.Key(ch, ch))
        while True:
            shown = [t for t, value in paints[seen:] if value == wanted]
            if shown:
                break
            await asyncio.sleep(0.0005)
        out.append((shown[0] - t0) * 1000)
        await asyncio.sleep(0.02)
    prompt.value = ""
    recorded.on = False
    paints.clear()
    return out


async def bench_long_chat(turns: int = TURNS) -> dict[str, Any]:
    with emulator_process() as url:
        return await _long_chat(turns, url)


async def _long_chat(turns: int, emulator_url: str) -> dict[str, Any]:
    tmp = Path(tempfile.mkdtemp())
    ws = tmp / "ws"
    (ws / "src").mkdir(parents=True)
    (ws / "README.md").write_text("# bench\n\nA small project.\n")
    (ws / "src" / "app.py").write_text("def main():\n    return 1\n")
    clock = ManualClock()

    async def no_sleep(seconds: float) -> None:
        clock.advance(seconds)

    opts = BackendOptions(
        emulator_url=emulator_url,
        workspace=ws,
        store_path=tmp / "s.sqlite",
        session_id="bench-long",
        api_key="",
        clock=clock,
        sleep=no_sleep,
    )
    if COMPACT:  # the chat's own setting, as `prefixlock chat` takes it
        opts = dataclasses.replace(opts, auto_compact_at=COMPACT_AT)
    app = ChatApp(ChatBackend(opts), blink=False, typeahead_grace=0.0)
    paints = _Paints()
    display = app._display

    def painted(screen: Any, renderable: Any) -> None:
        if paints.on and renderable is not None and app.is_running:
            prompts = screen.query("#prompt")
            paints.rows.append((time.perf_counter(), prompts.first().value if prompts else ""))
        display(screen, renderable)

    app._display = painted  # type: ignore[method-assign]
    async with app.run_test(size=(120, 40)) as pilot:
        await say(app, pilot, "hello")  # the first turn imports the provider's code
        fresh = await _echo_ms(app, paints)
        rss: list[tuple[int, float]] = []
        census: list[tuple[int, dict[str, tuple[int, int]]]] = []  # the first and the last
        peaks: list[tuple[int, float]] = []  # BENCH_PEAK: each turn's passing peak, KB
        if PEAK or SNAP:
            import tracemalloc

            tracemalloc.start(SNAP_FRAMES if SNAP else 1)
        snaps: list[tuple[int, Any]] = []  # BENCH_SNAP: the first and the last
        trims: list[tuple[int, float]] = []  # RSS right after each trim of the mounted window
        traced: list[tuple[int, float]] = []  # BENCH_PEAK: what tracemalloc holds then, MB
        kinds: list[tuple[int, dict[str, float]]] = []  # the same by kind (_rss_parts_mb)
        mounted = len(app.conversation.children)
        t0 = time.perf_counter()
        for n in range(1, turns + 1):
            if PEAK:
                live = tracemalloc.get_traced_memory()[0]
                tracemalloc.reset_peak()
            await say(app, pilot, "look around" if n % 3 == 0 else "hello")
            if PEAK:
                peaks.append((n, (tracemalloc.get_traced_memory()[1] - live) / 1e3))
            # The mounted window cycles between LIVE_KEEP and LIVE_LIMIT entries: RSS read at a
            # fixed turn catches that saw-tooth at whatever phase it is in, so it is also read
            # right after each trim (the window at LIVE_KEEP), always at the same phase.
            now_mounted = len(app.conversation.children)
            if n % SAMPLE == 0 or now_mounted < mounted:
                gc.collect()
                mb = _rss_mb()
                if n % SAMPLE == 0:
                    rss.append((n, mb))
                if now_mounted < mounted:
                    trims.append((n, mb))
                    kinds.append((n, _rss_parts_mb()))
                    if PEAK:
                        traced.append((n, tracemalloc.get_traced_memory()[0] / 1e6))
            # At trims only (the window at one phase): a census at another phase counts the
            # entries mounted since as growth.
            if TRACE and n >= TRACE_FROM and now_mounted < mounted:
                snap = (n, _census())
                census = [census[0], snap] if census else [snap]
            if SNAP and n >= TRACE_FROM and now_mounted < mounted:
                shot = (n, tracemalloc.take_snapshot())
                snaps = [snaps[0], shot] if snaps else [shot]
            mounted = now_mounted
        elapsed = time.perf_counter() - t0
        if PEAK or SNAP:
            tracemalloc.stop()
        if SNAP and len(snaps) == 2:
            (first, before_shot), (last, after_shot) = snaps
            _print_sites(before_shot, after_shot, last - first)
            snaps = []
        if TRACE and len(census) == 2 and census[1][0] > census[0][0]:
            (first, before), (last, after) = census
            _print_growth(before, after, last - first)
        late = await _echo_ms(app, paints)
        widgets = len(app.conversation.children)
        # What the SDK's Session holds of its own for the requests sent (each body's lists and
        # its units: references to the messages, which the transcript holds anyway): printed to
        # tell the chat's own growth from the session's. Not `body_bytes`, which would make and
        # cache every body's bytes here.
        held = _own_bytes(app.backend.session.requests)
        requests = len(app.backend.session.ledger)  # every request (the rows are bounded)
        compactions = app.backend.session.state.compactions
        # The conversation the model needs until a compaction: its JSON bytes a turn (what
        # stays in memory whatever the chat does; the session store has it on disk too).
        import json

        messages = [m.to_dict() for m in app.backend.session.transcript.messages]
        conversation = len(json.dumps(messages, default=str).encode())
        # The entries taken off screen, kept to come back on scrolling up: their text (the
        # conversation as shown) and the tuples that hold it.
        offscreen = sum(
            sys.getsizeof(row) + sys.getsizeof(row[0]) + sys.getsizeof(row[1])
            for row in app._earlier
        )
    warm = min(100, turns // 5)  # the turns that fill the mounted window: left out of slopes
    past = [p for p in rss if p[0] > warm] or rss
    # Too few trims for a slope (a short run): the trim figures say so, rather than print a
    # slope of nothing as 0 (the test then bounds the every-SAMPLE figure instead).
    past_trims = [p for p in trims if p[0] > warm]
    few = len(past_trims) < MIN_TRIMS
    too_few = f"too few trims ({len(past_trims)})"
    trim_slope = _slope(past_trims)
    peak_figures = {}
    if peaks:
        late_peaks = [p for p in peaks if p[0] > warm] or peaks
        peak_figures = {
            "peak_kb_per_turn": _slope(late_peaks),
            "peak_kb_last_turn": peaks[-1][1],
            # The Python heap's own growth (what tracemalloc holds right after each trim): the
            # rest of the RSS growth is the allocators' (pools, arenas, the C heap).
            "traced_mb_per_turn_trims": too_few
            if few
            else _slope([p for p in traced if p[0] > warm]),
        }
    return {
        "turns": turns,
        "requests": requests,
        "compactions": compactions,
        "seconds_per_turn": elapsed / turns,
        "echo_ms_fresh_p50": statistics.median(fresh),
        "echo_ms_fresh_p90": _p90(fresh),
        "echo_ms_fresh_max": max(fresh),
        "echo_ms_after_p50": statistics.median(late),
        "echo_ms_after_p90": _p90(late),
        "echo_ms_after_max": max(late),
        "rss_mb_first": rss[0][1] if rss else 0.0,
        "rss_mb_last": rss[-1][1] if rss else 0.0,
        "rss_mb_per_turn": _slope(past),
        "conversation_widgets": widgets,
        "session_requests_mb": held / 1e6,
        "conversation_kb_per_turn": conversation / 1e3 / (turns + 1),
        "offscreen_kb_per_turn": offscreen / 1e3 / (turns + 1),
        "rss_mb_per_turn_beyond": _slope(past) - conversation / 1e6 / (turns + 1),
        "trims_sampled": len(past_trims),
        "rss_mb_per_turn_trims": too_few if few else trim_slope,
        "rss_mb_per_turn_beyond_trims": too_few
        if few
        else trim_slope - conversation / 1e6 / (turns + 1),
        **{
            f"{kind}_mb_per_turn_trims": too_few
            if few
            else _slope([(n, parts.get(kind, 0.0)) for n, parts in kinds if n > warm])
            for kind in ("RssAnon", "RssFile", "RssShmem")
        },
        **peak_figures,
    }


def test_long_chat_keeps_echo_and_memory_flat() -> None:
    figures = asyncio.run(bench_long_chat())
    mode = f", auto-compaction at {COMPACT_AT}" if COMPACT else ""
    print(f"\nload average {os.getloadavg()[0]:.2f}; {TURNS} turns in one process{mode}")
    for k, v in figures.items():
        print(f"  {k:28} {v:10.4f}" if isinstance(v, float) else f"  {k:28} {v:10}")
    assert figures["echo_ms_fresh_p90"] < P90_MS
    assert figures["echo_ms_after_p90"] < P90_MS
    # Compacting, the conversation is bounded too: the bound is on the total.
    growth = figures["rss_mb_per_turn_trims" if COMPACT else "rss_mb_per_turn_beyond_trims"]
    if COMPACT and TURNS >= 500:
        assert figures["compactions"] >= MIN_COMPACTIONS
    if isinstance(growth, str):
        # A short run: its samples are the window filling, not growth past it; the every-
        # SAMPLE slope would fail or pass on that alone.
        print(f"  {growth}: memory not bounded by this run (the default 500 turns are)")
        return
    assert growth < MB_PER_TURN


if __name__ == "__main__":
    test_long_chat_keeps_echo_and_memory_flat()
