"""Drive the chat app like a user: type a line, press enter, answer dialogs, wait for the turn."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from textual.pilot import Pilot
from textual.screen import Screen

from prefixlock.tui.app import ChatApp
from prefixlock.tui.prompt_input import PromptInput
from prefixlock.tui.screens import ApprovalScreen

AppFactory = Callable[..., ChatApp]
S = TypeVar("S", bound=Screen[Any])


async def settle(
    app: ChatApp, pilot: Pilot[None], *, answer: str = "y", limit: float = 30.0
) -> None:
    """Wait until no turn or dialog worker runs; press `answer` on approval dialogs."""
    await ready(app, pilot)
    waited = 0.0
    while waited < limit:
        await pilot.pause(0.02)
        waited += 0.02
        if isinstance(app.screen, ApprovalScreen):
            await pilot.press(answer)
            continue
        if not app.busy and not any(
            w.group in ("turn", "dialog") and not w.is_finished for w in app.workers
        ):
            await still(app, pilot)
            return
    raise AssertionError(f"the app did not settle in {limit}s")


async def still(app: ChatApp, pilot: Pilot[None], limit: float = 5.0) -> None:
    """Wait until the screen stops changing: Markdown lays out its blocks after the stream
    ends, a tool entry's new title is laid out on a later pass, the anchored scroll follows;
    on a loaded machine these can trail the turn's end, and a screenshot must not catch them
    half done."""
    previous = None
    waited = 0.0
    while waited < limit:
        await pilot.wait_for_scheduled_animations()
        await pilot.pause(0.05)
        waited += 0.05
        shot = app.export_screenshot()
        if shot == previous:
            return
        previous = shot


async def ready(app: ChatApp, pilot: Pilot[None], limit: float = 30.0) -> None:
    """Wait until the app has opened its session."""
    waited = 0.0
    while not app.ready:
        if waited > limit:
            raise AssertionError("the app did not open its session")
        await pilot.pause(0.02)
        waited += 0.02
    await pilot.pause()


async def say(app: ChatApp, pilot: Pilot[None], text: str, *, answer: str = "y") -> None:
    """Type `text` into the prompt, press enter and wait for the turn to finish."""
    await ready(app, pilot)
    prompt = app.query_one("#prompt", PromptInput)
    prompt.focus()
    prompt.value = text
    await pilot.press("enter")
    await settle(app, pilot, answer=answer)


async def open_dialog(
    app: ChatApp, pilot: Pilot[None], line: str, kind: type[S], limit: float = 10.0
) -> S:
    """Type `line` into the prompt, press enter and wait for the `kind` dialog it opens."""
    prompt = app.query_one("#prompt", PromptInput)
    prompt.value = line
    await pilot.press("enter")
    return await wait_for_screen(app, pilot, kind, limit)


async def wait_for_screen(
    app: ChatApp, pilot: Pilot[None], kind: type[S], limit: float = 10.0
) -> S:
    """Wait until the app shows a `kind` screen (a dialog opening)."""
    waited = 0.0
    while waited < limit:
        await pilot.pause(0.02)
        waited += 0.02
        if isinstance(app.screen, kind):
            return app.screen
    raise AssertionError(f"no {kind.__name__} opened in {limit}s")


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
