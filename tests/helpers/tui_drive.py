"""Drive the chat app like a user: type a line, press enter, answer dialogs, wait for the turn.

The waits end on what they wait for (a flag, a worker, a dialog), looked at every few
milliseconds, never on a fixed delay; only `still` compares screenshots, and only tests that
then read the screen's layout (scroll positions, regions, snapshots) call it.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import Any, TypeVar

from textual import events
from textual.keys import _character_to_key
from textual.pilot import Pilot
from textual.screen import Screen

from prefixlock.tui.app import ChatApp
from prefixlock.tui.prompt_input import PromptInput
from prefixlock.tui.screens import ApprovalScreen

AppFactory = Callable[..., ChatApp]
S = TypeVar("S", bound=Screen[Any])

# How often a wait looks again: short, as looking costs nothing next to a turn on the emulator.
POLL = 0.005
# How long a wait may take before it fails: only against a hang. Every wait ends on the state it
# waits for, so on a loaded machine (a load average near 15 on 2 cores) a dialog may take many
# seconds to open and the test still passes; a tighter bound only made such tests flaky.
HANG = 60.0


async def until(check: Callable[[], bool], what: str, limit: float = HANG) -> None:
    """Wait until `check()` holds (bounded: fails naming `what` after `limit` seconds)."""
    deadline = time.monotonic() + limit
    while not check():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {limit}s waiting for {what}")
        await asyncio.sleep(POLL)


def _turn_running(app: ChatApp) -> bool:
    return app.busy or any(
        w.group in ("turn", "dialog", "palette") and not w.is_finished for w in app.workers
    )


async def settle(
    app: ChatApp, pilot: Pilot[None], *, answer: str = "y", limit: float = HANG
) -> None:
    """Wait until no turn or dialog worker runs; press `answer` on approval dialogs. What the
    turn put in the conversation is mounted then; its layout may trail (see `still`)."""
    await ready(app, pilot)
    deadline = time.monotonic() + limit
    while True:
        await until(
            lambda: isinstance(app.screen, ApprovalScreen) or not _turn_running(app),
            "the turn to end",
            max(deadline - time.monotonic(), 0.0),
        )
        if not isinstance(app.screen, ApprovalScreen):
            break
        await pilot.press(answer)
    await pilot.pause()  # messages the turn's end posted (the header, the prompt's focus)


async def still(app: ChatApp, pilot: Pilot[None], limit: float = 5.0) -> None:
    """Wait until the screen stops changing: Markdown lays out its blocks after the stream
    ends, a tool entry's new title is laid out on a later pass, the anchored scroll follows;
    on a loaded machine these can trail the turn's end, and a screenshot or a scroll position
    must not catch them half done. Call it before reading the screen's layout."""
    previous = None
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        # Waits for the animations and then for the process to idle (no work pending).
        await pilot.wait_for_scheduled_animations()
        await pilot.pause()
        shot = app.export_screenshot()
        if shot == previous:
            return
        previous = shot


async def ready(app: ChatApp, pilot: Pilot[None], limit: float = HANG) -> None:
    """Wait until the app has opened its session."""
    if not app.ready:
        await until(lambda: app.ready, "the app to open its session", limit)
        await pilot.pause()  # what opening posted (the prompt's focus, the notes' layout)


async def say(app: ChatApp, pilot: Pilot[None], text: str, *, answer: str = "y") -> None:
    """Type `text` into the prompt, press enter and wait for the turn to finish."""
    await ready(app, pilot)
    prompt = app.query_one("#prompt", PromptInput)
    prompt.focus()
    prompt.value = text
    await pilot.press("enter")
    await settle(app, pilot, answer=answer)


async def type_keys(pilot: Pilot[None], *keys: str) -> None:
    """Press `keys` (characters or key names, as `Pilot.press` takes them) the way a terminal
    delivers fast typing: all at once, then one wait. `Pilot.press` waits for the app to
    idle after each key (40 ms a key); the prompt keeps keys that arrive together in order
    (tests/tui/test_prompt_input.py pins it)."""
    app = pilot.app
    for key in keys:
        if len(key) == 1:
            app.post_message(events.Key(_character_to_key(key), key))
        else:
            app.post_message(events.Key(key, None))
    await pilot.pause()


async def open_dialog(
    app: ChatApp, pilot: Pilot[None], line: str, kind: type[S], limit: float = HANG
) -> S:
    """Type `line` into the prompt, press enter and wait for the `kind` dialog it opens."""
    prompt = app.query_one("#prompt", PromptInput)
    prompt.value = line
    await pilot.press("enter")
    return await wait_for_screen(app, pilot, kind, limit)


async def wait_for_screen(
    app: ChatApp, pilot: Pilot[None], kind: type[S], limit: float = HANG
) -> S:
    """Wait until the app shows a `kind` screen (a dialog opening), composed."""
    await until(lambda: isinstance(app.screen, kind), f"a {kind.__name__} to open", limit)
    await pilot.pause()
    screen = app.screen
    assert isinstance(screen, kind)
    return screen


def conversation_text(app: ChatApp) -> str:
    """The plain text of every entry in the conversation (titles of folded entries included)."""
    from textual.widgets import Collapsible, Static

    from prefixlock.tui.widgets import AssistantMessage

    parts: list[str] = []
    for w in app.query("#conversation *"):
        if isinstance(w, Collapsible):
            parts.append(str(w.title))
        elif isinstance(w, AssistantMessage):
            parts.append(w.text)
        elif isinstance(w, Static) and "entry" in w.classes:
            parts.append(str(w.render()))
    return "\n".join(parts)
