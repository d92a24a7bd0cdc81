"""The chat's prompt: multi-line input with paste, history and completion.

Enter sends; Shift+Enter (terminals that report it), Ctrl+J or Alt+Enter insert a newline; a
bracketed paste is inserted whole, newlines kept. Up on the first line and Down on the last
recall earlier messages (`prefixlock.tui.input_history`). Typing `/` at the start lists the
commands, `@` the workspace's files (`prefixlock.tui.completion`): Up/Down pick, Tab or Enter
take the highlighted one, Escape closes the list.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import ClassVar

from rich.text import Text
from textual import events, on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.message import Message
from textual.widgets import OptionList, TextArea
from textual.widgets.option_list import Option

from .commands import COMMANDS
from .completion import Candidate, Context, apply, candidates, context_at, workspace_files
from .input_history import InputHistory

_NO_ARGS = {f"/{c.name}" for c in COMMANDS if not c.args}


class CompletionList(OptionList):
    """The candidates for the word at the prompt's cursor; never focused (keys stay in the
    prompt, which moves the highlight)."""

    can_focus = False

    def __init__(self, **kwargs: object) -> None:
        super().__init__(**kwargs)  # type: ignore[arg-type]
        self.items: list[Candidate] = []
        self.display = False

    def show(self, items: list[Candidate]) -> None:
        self.items = items
        self.clear_options()
        self.add_options(
            Option(Text.assemble((c.value, "bold"), ("  " + c.help if c.help else "", "dim")))
            for c in items
        )
        self.display = bool(items)
        if items:
            self.highlighted = 0

    def hide(self) -> None:
        self.items = []
        self.display = False

    @property
    def chosen(self) -> Candidate | None:
        if not self.display or self.highlighted is None or not self.items:
            return None
        return self.items[self.highlighted]


class PromptInput(TextArea):
    """A TextArea that sends on Enter and completes commands and @file mentions."""

    # Shift+Enter, Ctrl+J and Alt+Enter insert a newline in `_on_key`, not through a binding:
    # bindings run only after the key has bubbled up the widget tree, so text typed right
    # behind the key (delivered in the same read) was inserted first.
    NEWLINE_KEYS = frozenset({"shift+enter", "ctrl+j", "alt+enter"})
    BINDINGS: ClassVar[list[BindingType]] = [
        # Page keys read back the conversation from the prompt (the app's action), as before.
        Binding("pageup", "app.page_conversation(-1)", "page up", show=False),
        Binding("pagedown", "app.page_conversation(1)", "page down", show=False),
    ]

    class Submitted(Message):
        """Enter on a non-empty prompt: the text to handle (already cleared from the prompt)."""

        def __init__(self, prompt: PromptInput, value: str) -> None:
            super().__init__()
            self.prompt = prompt
            self.value = value

        @property
        def control(self) -> PromptInput:
            return self.prompt

    def __init__(
        self,
        *,
        root: Path | None = None,
        history: InputHistory | None = None,
        placeholder: str = "",
        id: str | None = None,
    ) -> None:
        super().__init__(
            placeholder=placeholder,
            id=id,
            soft_wrap=True,
            tab_behavior="focus",
            show_line_numbers=False,
            highlight_cursor_line=False,
        )
        self.root = root
        self.input_history: InputHistory = history if history is not None else InputHistory()
        self.files: list[str] = []  # the workspace's files, listed in a thread
        # The custom commands (completion.custom_candidates), set once the session has them.
        self.custom_commands: list[Candidate] = []
        self._listing: asyncio.Task[None] | None = None
        self._word: Context | None = None

    # -- value ----------------------------------------------------------------------------------

    @property
    def value(self) -> str:
        return self.text

    @value.setter
    def value(self, text: str) -> None:
        """Replace the whole text, cursor at its end."""
        self.load_text(text)
        self.move_cursor(self.document.end)

    @property
    def completion(self) -> CompletionList | None:
        parent = self.parent
        if parent is None:
            return None
        found = parent.query(CompletionList)
        return found.first() if found else None

    # -- keys -----------------------------------------------------------------------------------

    async def _on_key(self, event: events.Key) -> None:
        listing = self.completion
        chosen = listing.chosen if listing is not None else None
        if event.key in ("enter", "tab") and chosen is not None:
            current = context_at(self.text, self._offset()) if self.selection.is_empty else None
            if current != self._word:
                # Keys came faster than the list refreshed: it shows what an earlier word
                # completes (`/mo` while `/model claude-haiku-4-5` is typed). Taking it would
                # replace that old word; the list is made again from the text as it is now.
                self.refresh_completion()
                chosen = listing.chosen if listing is not None else None
        if event.key in ("enter", "tab") and chosen is not None:
            event.stop()
            event.prevent_default()
            typed = self._context_text()
            self.take(chosen)
            # A command without arguments is complete once taken: Enter runs it as well.
            if event.key == "enter" and (chosen.value in _NO_ARGS or chosen.value == typed):
                self.submit()
            return
        if event.key == "escape" and chosen is not None and listing is not None:
            event.stop()
            event.prevent_default()
            listing.hide()
            return
        if event.key == "enter":
            event.stop()
            event.prevent_default()
            self.submit()
            return
        if event.key in self.NEWLINE_KEYS:
            event.stop()
            event.prevent_default()
            self.action_newline()
            return
        await super()._on_key(event)

    def action_newline(self) -> None:
        self._replace_via_keyboard("\n", *self.selection)

    def action_cursor_up(self, select: bool = False) -> None:
        listing = self.completion
        if not select and listing is not None and listing.chosen is not None:
            listing.action_cursor_up()
            return
        loc = self.cursor_location
        nav = self.navigator
        if not select and nav.is_first_document_line(loc) and nav.is_first_wrapped_line(loc):
            recalled = self.input_history.previous(self.text)
            if recalled is not None:
                self.value = recalled
            return
        super().action_cursor_up(select)

    def action_cursor_down(self, select: bool = False) -> None:
        listing = self.completion
        if not select and listing is not None and listing.chosen is not None:
            listing.action_cursor_down()
            return
        loc = self.cursor_location
        nav = self.navigator
        if (
            not select
            and self.input_history.browsing
            and nav.is_last_document_line(loc)
            and nav.is_last_wrapped_line(loc)
        ):
            recalled = self.input_history.next()
            if recalled is not None:
                self.value = recalled
            return
        super().action_cursor_down(select)

    def submit(self) -> None:
        text = self.text
        if listing := self.completion:
            listing.hide()
        if not text.strip():
            return
        self.input_history.add(text)
        self.load_text("")
        self.post_message(self.Submitted(self, text))

    # -- completion -----------------------------------------------------------------------------

    def _offset(self) -> int:
        return self._index(self.cursor_location)

    def _index(self, location: tuple[int, int]) -> int:
        """The offset in `self.text` of a (row, column) location."""
        row, col = location
        lines = self.document.lines
        return sum(len(line) for line in lines[:row]) + row * len(self.document.newline) + col

    def _location(self, index: int) -> tuple[int, int]:
        before = self.text[:index]
        newline = self.document.newline
        row = before.count(newline)
        return row, index - (before.rfind(newline) + len(newline) if row else 0)

    def _context_text(self) -> str:
        ctx = self._word
        return self.text[ctx.start : ctx.end] if ctx is not None else ""

    @on(TextArea.Changed)
    @on(TextArea.SelectionChanged)
    def _update_completion(self) -> None:
        self.refresh_completion()

    def refresh_completion(self) -> None:
        listing = self.completion
        if listing is None:
            return
        ctx = context_at(self.text, self._offset()) if self.selection.is_empty else None
        if ctx is not None and ctx.kind == "file" and self.root is not None:
            self._list_files(fresh=self._word is None or self._word.kind != "file")
        self._word = ctx
        found = candidates(ctx, self.files, self.custom_commands) if ctx is not None else []
        if [c.value for c in found] == [c.value for c in listing.items] and listing.display:
            return  # the same list: keep the highlight where the user moved it
        listing.show(found)

    def take(self, chosen: Candidate) -> None:
        """Replace the word at the cursor with `chosen`."""
        ctx = self._word
        if ctx is None:
            return
        text, offset = apply(self.text, ctx, chosen.value)
        start, end = self._location(ctx.start), self._location(ctx.end)
        self.replace(text[ctx.start : offset], start, end, maintain_selection_offset=False)
        self.move_cursor(self._location(offset))
        if listing := self.completion:
            listing.hide()
        self._word = None

    def _list_files(self, *, fresh: bool) -> None:
        """(Re)list the workspace's files in a thread when a mention starts; the list shows
        what it finds when it is done."""
        if self.root is None or (self._listing is not None and not self._listing.done()):
            return
        if not fresh and self.files:
            return
        root = self.root

        async def run() -> None:
            self.files = await asyncio.to_thread(workspace_files, root)
            self.refresh_completion()

        self._listing = asyncio.ensure_future(run())

    async def files_listed(self) -> None:
        """Wait for the listing in progress (tests, and anything that needs the files)."""
        if self._listing is not None:
            await self._listing


class PromptArea(Vertical):
    """The completion list above the prompt, docked at the bottom of the screen."""

    def __init__(
        self,
        *,
        root: Path | None,
        history: InputHistory,
        placeholder: str,
        blink: bool = True,
        id: str | None = None,
    ) -> None:
        super().__init__(id=id)
        self._prompt = PromptInput(root=root, history=history, placeholder=placeholder, id="prompt")
        # Off in snapshot tests: deterministic frames (a reactive: set before mounting).
        self._prompt.set_reactive(TextArea.cursor_blink, blink)

    def compose(self) -> ComposeResult:
        yield CompletionList(id="completion")
        yield self._prompt
