"""The dialog that asks before a repository's own hooks run (its .claude/settings*.json): they
are shell commands that would run on this machine, outside the sandbox, on every tool call or
prompt. Once (this session), always for exactly these hooks (kept outside the repository,
prefixlock.coding.hooks.HookConsent), or not at all."""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.widgets import Button, Static

from prefixlock.coding.hooks import Hook

from .screens import FreshKeysScreen


def hook_lines(hooks: Sequence[Hook]) -> str:
    """Each hook as the user should read it: when it fires, what it runs, where it is set."""
    lines = []
    for h in hooks:
        when = f"{h.event} ({h.matcher})" if h.matcher not in ("", "*") else h.event
        lines.append(f"{when}: {h.command}\n    from {h.source}")
    return "\n".join(lines)


class HookConsentScreen(FreshKeysScreen[str]):
    """Run the hooks the repository's files declare? Answers "once", "always" or "no"."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("y", "answer('once')", "run this session"),
        Binding("a", "answer('always')", "always for this repository"),
        Binding("n", "answer('no')", "do not run"),
        Binding("escape", "answer('no')", "no", show=False),
    ]

    def __init__(self, hooks: Sequence[Hook]) -> None:
        super().__init__(classes="dialog-screen")
        self.hooks: list[Hook] = list(hooks)

    def compose(self) -> ComposeResult:
        n = len(self.hooks)
        with Vertical(classes="dialog", id="hook-consent"):
            yield Static(
                Text(f"Run the repository's {n} hook{'s' if n != 1 else ''}?", style="bold"),
                classes="dialog-title",
            )
            yield Static(
                Text("they run on this machine, outside the sandbox"), classes="dialog-summary"
            )
            with VerticalScroll(classes="dialog-detail"):
                yield Static(Text(hook_lines(self.hooks)), markup=False)
            with Horizontal(classes="dialog-buttons"):
                yield Button("This session (y)", id="once", variant="warning")
                yield Button("Always (a)", id="always")
                yield Button("Don't run (n)", id="no")

    def on_button_pressed(self, event: Button.Pressed) -> None:
        self.dismiss(event.button.id or "no")

    def action_answer(self, value: str) -> None:
        self.dismiss(value)
