"""Modal screens: tool approval, the priced model switch, compaction confirm, help, text pages."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, ClassVar, TypeVar

from rich.text import Text
from textual import _time
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Button, Static

from .commands import COMMANDS, KEYS
from .quotes import QuoteRows

if TYPE_CHECKING:  # the dialogs draw before the SDK loads (`ChatApp.open_backend`)
    from prefixlock.coding.custom_commands import CustomCommand
    from prefixlock.coding.workspace import (
        ApprovalRequest,
        Decision,  # noqa: F401  (ApprovalScreen's base)
    )

    from .approval_flow import McpCallRequest

ResultT = TypeVar("ResultT")

#: Seconds without a key a dialog waits before it takes answers: a key typed within them is the
#: typing that began before the dialog appeared (people type 3-8 keys a second), and goes to
#: the prompt. The app passes its own (`ChatApp(typeahead_grace=...)`).
TYPEAHEAD_GRACE = 0.4
#: Keys that could answer a dialog or are text: taken from the dialog while it is not armed.
_TEXT_KEYS = frozenset({"enter", "space", "backspace", "escape", "tab"})


class FreshKeysScreen(ModalScreen[ResultT]):
    """A dialog that answers only keys typed after it was shown.

    A key typed before the dialog appeared (queued while the app was busy) is never an
    answer; nor is one that continues that typing: the dialog arms once `grace` seconds pass
    without a key, and until then says so in a line of its own. The app hands the keys the
    dialog does not take to the prompt (`ChatApp.on_event`), where typed-ahead text belongs.
    """

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        # Made right before it is pushed: a key read after this was typed with the dialog
        # coming up (the grace covers those the user could not have seen it for).
        self.shown_at: float = _time.get_time()
        self.armed: bool = False
        self._arm_at = 0.0

    @property
    def grace(self) -> float:
        return float(getattr(self.app, "typeahead_grace", TYPEAHEAD_GRACE))

    def on_mount(self) -> None:
        if self.grace <= 0:
            self.armed = True
            return
        hint = Static(
            Text("finish typing: keys go to the prompt", style="dim italic"),
            classes="dialog-hint",
            id="typeahead-hint",
        )
        self.query_one(".dialog").mount(hint)
        self._wait(self.shown_at)

    def _wait(self, since: float) -> None:
        self._arm_at = since + self.grace
        self.set_timer(self.grace, self._maybe_arm)

    def _maybe_arm(self) -> None:
        if self.armed or _time.get_time() < self._arm_at:
            return
        self.armed = True
        for hint in self.query("#typeahead-hint"):
            hint.remove()

    def typed_ahead(self, key: str, character: str | None, at: float) -> bool:
        """Is this key (pressed at `at`) typing that began before the dialog? Such a key
        restarts the wait before the dialog arms."""
        if not (key in _TEXT_KEYS or (character is not None and character.isprintable())):
            return False  # ctrl+c and the like act as always
        if at < self.shown_at:
            return True
        if self.armed or self.grace <= 0:
            return False
        if self.is_mounted:  # else on_mount starts the wait
            self._wait(at)
        return True


def quote_table(rows: QuoteRows) -> Text:
    """A quote's rows as an aligned two-column text, its advice in italics (both dialogs)."""
    table = Text()
    for label, value in rows.rows:
        table.append(f"{label:<22}", style="bold")
        table.append(f"{value}\n")
    if rows.advice:
        table.append(rows.advice, style="italic")
    return table


class ApprovalScreen(FreshKeysScreen["Decision"]):
    """Ask before a write, an edit or a command: yes once, allow for the session, or no."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("y", "answer('once')", "yes"),
        Binding("a", "answer('session')", "allow for session"),
        Binding("n", "answer('deny')", "no"),
        Binding("escape", "answer('deny')", "no", show=False),
    ]

    def __init__(self, request: ApprovalRequest | McpCallRequest) -> None:
        super().__init__(classes="dialog-screen")
        self.request = request

    def compose(self) -> ComposeResult:
        kind = {"write": "write a file", "mcp": "call an MCP tool"}.get(
            self.request.action, "run a command"
        )
        with Vertical(classes="dialog", id="approval"):
            yield Static(Text(f"The agent wants to {kind}", style="bold"), classes="dialog-title")
            yield Static(Text(self.request.summary), classes="dialog-summary")
            with VerticalScroll(classes="dialog-detail"):
                yield Static(Text(self.request.detail[:20_000]), markup=False)
            with Horizontal(classes="dialog-buttons"):
                yield Button("Yes (y)", id="once", variant="primary")
                yield Button("Always (a)", id="session")
                yield Button("No (n)", id="deny", variant="error")

    def on_button_pressed(self, event: Button.Pressed) -> None:
        self.action_answer(event.button.id or "deny")

    def action_answer(self, decision: str) -> None:
        self.dismiss("session" if decision == "session" else decision == "once")


class McpConsentScreen(FreshKeysScreen[bool]):
    """Start an MCP server that the project's files declare? (a cloned repository's command
    would run on the user's machine). Answered once per server and project."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("y", "answer(True)", "start it"),
        Binding("n", "answer(False)", "do not start"),
        Binding("escape", "answer(False)", "no", show=False),
    ]

    def __init__(self, name: str, command: str, source: str) -> None:
        super().__init__(classes="dialog-screen")
        self.server: str = name
        self.command: str = command
        self.source: str = source

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog", id="mcp-consent"):
            yield Static(
                Text(f"Start the project's MCP server {self.server!r}?", style="bold"),
                classes="dialog-title",
            )
            yield Static(Text(f"declared by {self.source}"), classes="dialog-summary")
            with VerticalScroll(classes="dialog-detail"):
                yield Static(Text(f"it runs: {self.command}"), markup=False)
            with Horizontal(classes="dialog-buttons"):
                yield Button("Start (y)", id="yes", variant="warning")
                yield Button("Don't start (n)", id="no")

    def on_button_pressed(self, event: Button.Pressed) -> None:
        self.dismiss(event.button.id == "yes")

    def action_answer(self, value: bool) -> None:
        self.dismiss(value)


class SwitchScreen(FreshKeysScreen[str]):
    """The cache guard's price of a model switch, and three ways out: switch, delegate, cancel."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("s", "choose('switch')", "switch"),
        Binding("d", "choose('delegate')", "subagent"),
        Binding("c", "choose('cancel')", "cancel"),
        Binding("escape", "choose('cancel')", "cancel", show=False),
    ]

    def __init__(self, current: str, target: str, rows: QuoteRows) -> None:
        super().__init__(classes="dialog-screen")
        self.current = current
        self.target = target
        self.rows = rows

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog", id="switch"):
            yield Static(
                Text(f"Switch {self.current} → {self.target}?", style="bold"),
                classes="dialog-title",
            )
            yield Static(quote_table(self.rows), classes="dialog-detail quote")
            with Horizontal(classes="dialog-buttons"):
                yield Button("Switch (s)", id="switch", variant="warning")
                yield Button("Subagent (d)", id="delegate", variant="primary")
                yield Button("Cancel (c)", id="cancel")

    def on_button_pressed(self, event: Button.Pressed) -> None:
        self.action_choose(event.button.id or "cancel")

    def action_choose(self, choice: str) -> None:
        self.dismiss(choice)


class ConfirmScreen(FreshKeysScreen[bool]):
    """A priced action (compaction) shown before it happens: go ahead or cancel."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("y", "answer(True)", "yes"),
        Binding("n", "answer(False)", "no"),
        Binding("escape", "answer(False)", "no", show=False),
    ]

    def __init__(self, title: str, rows: QuoteRows) -> None:
        super().__init__(classes="dialog-screen")
        self.title_text = title
        self.rows = rows

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog", id="confirm"):
            yield Static(Text(self.title_text, style="bold"), classes="dialog-title")
            yield Static(quote_table(self.rows), classes="dialog-detail quote")
            with Horizontal(classes="dialog-buttons"):
                yield Button("Yes (y)", id="yes", variant="warning")
                yield Button("No (n)", id="no")

    def on_button_pressed(self, event: Button.Pressed) -> None:
        self.dismiss(event.button.id == "yes")

    def action_answer(self, value: bool) -> None:
        self.dismiss(value)


def help_text(custom: Mapping[str, CustomCommand] | None = None) -> Text:
    t = Text()
    t.append("Commands\n", style="bold underline")
    for c in COMMANDS:
        t.append(f" /{c.name} {c.args}".ljust(22), style="bold")
        t.append(f"{c.help}\n")
    if custom:
        t.append(
            "\nCustom commands (.claude/commands, .prefixlock/commands)\n", style="bold underline"
        )
        for name in sorted(custom):
            cmd = custom[name]
            t.append(f" /{name} {cmd.argument_hint}".ljust(22), style="bold")
            t.append(f"{cmd.description}\n")
    t.append("\nKeys\n", style="bold underline")
    for key, what in KEYS:
        t.append(f" {key}".ljust(22), style="bold")
        t.append(f"{what}\n")
    t.append("\nThe cache panel: session hit rate, per-turn sparkline, the last\n")
    t.append("turn's read/written/new tokens, time until the cache goes cold,\n")
    t.append("dollars main/subagents, saved vs no cache, cause of the last miss.")
    return t


class TextScreen(ModalScreen[None]):
    """A scrollable page of text (help, /cost, /sessions, /lint); any close key returns."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "close", "close"),
        Binding("q", "close", "close", show=False),
        Binding("f1", "close", "close", show=False),
    ]

    def __init__(self, title: str, body: Text, screen_id: str = "page") -> None:
        super().__init__(classes="dialog-screen")
        self.title_text = title
        self.body = body
        self.screen_id = screen_id

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog page", id=self.screen_id):
            yield Static(Text(self.title_text, style="bold"), classes="dialog-title")
            with VerticalScroll(classes="page-body"):
                yield Static(self.body, markup=False)
            yield Static(Text("escape: close", style="dim"), classes="dialog-hint")

    def action_close(self) -> None:
        self.dismiss(None)


class HelpScreen(TextScreen):
    def __init__(self, custom: Mapping[str, CustomCommand] | None = None) -> None:
        super().__init__("prefixlock chat: help", help_text(custom), "help")
