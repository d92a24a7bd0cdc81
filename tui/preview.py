"""A dialog that shows a text (a drafted file, a diff) and asks yes or no before acting on it."""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Button, Static


class PreviewScreen(ModalScreen[bool]):
    """`title`, then `body` (scrollable, shown as text, never markup); y writes, n cancels."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("y", "answer(True)", "yes"),
        Binding("n", "answer(False)", "no"),
        Binding("escape", "answer(False)", "no", show=False),
    ]

    def __init__(self, title: str, body: str, yes: str = "Write (y)") -> None:
        super().__init__(classes="dialog-screen")
        self.title_text = title
        self.body = body
        self.yes = yes

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog", id="preview"):
            yield Static(Text(self.title_text, style="bold"), classes="dialog-title")
            with VerticalScroll(classes="dialog-detail"):
                yield Static(Text(self.body[:40_000]), markup=False)
            with Horizontal(classes="dialog-buttons"):
                yield Button(self.yes, id="yes", variant="warning")
                yield Button("Cancel (n)", id="no")

    def on_button_pressed(self, event: Button.Pressed) -> None:
        self.dismiss(event.button.id == "yes")

    def action_answer(self, value: bool) -> None:
        self.dismiss(value)
