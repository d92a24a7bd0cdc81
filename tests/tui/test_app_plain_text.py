"""Dynamic text (tool arguments, results, file names, model text) is shown as text, never parsed
as Textual/Rich markup: a `[` in a grep pattern must not raise MarkupError, and
`app/[id]/page.tsx` must show whole."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from prefixlock.clock import ManualClock
from prefixlock.tui.backend import SCRIPT_PATH
from prefixlock.tui.widgets import SubagentEntry, ToolEntry
from tests.helpers.tui_drive import AppFactory, conversation_text, say


@pytest.fixture
def chat_emulator(clock: ManualClock) -> Iterator[Any]:
    """The chat's own script plus rules whose tool calls carry brackets."""
    from prefixlock.emulator import Emulator, Rule, Script, Step

    base = Script.load(SCRIPT_PATH)
    rules = [
        Rule(
            match="bracket grep",
            steps=[
                Step(text="Searching.", tool="grep", input={"pattern": "main([", "path": "."}),
                Step(text="Searched for `main([` [bold]done[/bold]."),
            ],
        ),
        Rule(
            match="bracket path",
            steps=[
                Step(text="Reading.", tool="read_file", input={"path": "app/[id]/page.tsx"}),
                Step(text="Read it."),
            ],
        ),
    ]
    script = base.model_copy(update={"rules": rules + list(base.rules)})
    with Emulator.start(clock=clock, script=script) as emu:
        yield emu


async def test_a_bracket_in_tool_arguments_is_shown_not_parsed(make_app: AppFactory) -> None:
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await say(app, pilot, "bracket grep please")
        entries = list(app.query(ToolEntry))
        assert entries and entries[-1].done
        text = conversation_text(app)
        assert "pattern=main([" in text
        # The bad regex is the model's error, reported to it, not a crash of the app.
        assert "bad regular expression" in str(entries[-1].body.render())
        assert app.is_running


async def test_a_bracketed_path_displays_intact(make_app: AppFactory, workspace: Path) -> None:
    page = workspace / "app" / "[id]" / "page.tsx"
    page.parent.mkdir(parents=True)
    page.write_text("export default function Page() { return [1]; }\n")
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await say(app, pilot, "bracket path please")
        text = conversation_text(app)
        assert "path=app/[id]/page.tsx" in text
        entry = list(app.query(ToolEntry))[-1]
        # What is painted, not only the title's string: the visible line keeps the brackets.
        assert "read_file path=app/[id]/page.tsx" in str(entry._title.render())
        assert "return [1]" in str(entry.body.render())


async def test_brackets_in_a_subagent_entry_title_are_text(make_app: AppFactory) -> None:
    from prefixlock.events import SubagentStart

    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await say(app, pilot, "hello")
        await app.on_session_event(
            SubagentStart("ex[plorer]", "m[1]", "find [red]x[/red] in app/[id]", 1, run_id="r1")
        )
        await pilot.pause()
        sub = list(app.query(SubagentEntry))[-1]
        assert "find [red]x[/red] in app/[id]" in str(sub._title.render())
