"""Modal screens: tool approval, the priced model switch, compaction confirm, help, text pages."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar, TypeVar

from rich.text import Text
from textual import _time
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widget import Widget
from textual.widgets import Button, Static
from textual.widgets.button import ButtonVariant

from .commands import COMMANDS, KEYS
from .quotes import QuoteRows

if TYPE_CHECKING:  # the dialogs draw before the SDK loads (`ChatApp.open_backend`)
    from prefixlock.coding.custom_commands import CustomCommand
    from prefixlock.coding.workspace import ApprovalRequest, Decision

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
        grace = getattr(self.app, "typeahead_grace", None)
        return TYPEAHEAD_GRACE if grace is None else float(grace)

    def typeahead_hint(self) -> Static | None:
        """The line that says the dialog does not take answers yet (None: it takes them at
        once). A subclass composes it into its dialog, so that no frame shows the dialog
        without it before it arms (a frame without it reads as armed)."""
        if self.grace <= 0:
            return None
        return Static(
            Text("finish typing: keys go to the prompt", style="dim italic"),
            classes="dialog-hint",
            id="typeahead-hint",
        )

    def on_mount(self) -> None:
        if self.grace <= 0:
            self.armed = True
            return
        if not self.query("#typeahead-hint"):
            hint = self.typeahead_hint()
            if hint is not None:
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


@dataclass(frozen=True)
class Choice:
    """One answer of a dialog: the key that gives it, its button (`label`, `variant`), the
    name the dialog answers with (also the button's id), and the key's description."""

    key: str
    label: str
    answer: str
    help: str
    variant: ButtonVariant = "default"


def choice_bindings(choices: Sequence[Choice]) -> list[BindingType]:
    """A key per choice, and Escape for the last one (each dialog's "no")."""
    last = choices[-1]
    return [
        *(Binding(c.key, f"answer({c.answer!r})", c.help) for c in choices),
        Binding("escape", f"answer({last.answer!r})", last.help, show=False),
    ]


class ChoiceScreen(FreshKeysScreen[ResultT]):
    """The chat's dialogs: a bold heading, a summary line, a detail (scrolled text or a quote's
    table), and a button and a key per choice (`CHOICES`, the last one the "no" that Escape
    gives). A subclass says what it shows and what each answer returns (`result`)."""

    DIALOG_ID: ClassVar[str] = "dialog"
    CHOICES: ClassVar[tuple[Choice, ...]] = ()

    def __init__(self) -> None:
        super().__init__(classes="dialog-screen")

    def heading(self) -> str:
        raise NotImplementedError

    def summary(self) -> str | None:
        return None

    def detail(self) -> Widget:
        raise NotImplementedError

    def result(self, answer: str) -> ResultT:
        raise NotImplementedError

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog", id=self.DIALOG_ID):
            yield Static(Text(self.heading(), style="bold"), classes="dialog-title")
            summary = self.summary()
            if summary is not None:
                yield Static(Text(summary), classes="dialog-summary")
            yield self.detail()
            with Horizontal(classes="dialog-buttons"):
                for c in self.CHOICES:
                    yield Button(c.label, id=c.answer, variant=c.variant)
            hint = self.typeahead_hint()
            if hint is not None:
                yield hint

    def on_button_pressed(self, event: Button.Pressed) -> None:
        self.action_answer(event.button.id or self.CHOICES[-1].answer)

    def action_answer(self, answer: str) -> None:
        self.dismiss(self.result(answer))


def scrolled(text: str) -> Widget:
    """A dialog's detail as plain text (never markup) that scrolls when long."""
    return VerticalScroll(Static(Text(text), markup=False), classes="dialog-detail")


def quoted(rows: QuoteRows) -> Widget:
    """A dialog's detail as a quote's table."""
    return Static(quote_table(rows), classes="dialog-detail quote")


class ApprovalScreen(ChoiceScreen["Decision"]):
    """Ask before a write, an edit or a command: yes once, allow for the session, or no."""

    DIALOG_ID = "approval"
    CHOICES = (
        Choice("y", "Yes (y)", "once", "yes", "primary"),
        Choice("a", "Always (a)", "session", "allow for session"),
        Choice("n", "No (n)", "deny", "no", "error"),
    )
    BINDINGS: ClassVar[list[BindingType]] = choice_bindings(CHOICES)

    def __init__(self, request: ApprovalRequest | McpCallRequest) -> None:
        super().__init__()
        self.request = request

    def heading(self) -> str:
        kind = {"write": "write a file", "mcp": "call an MCP tool"}.get(
            self.request.action, "run a command"
        )
        return f"The agent wants to {kind}"

    def summary(self) -> str:
        return self.request.summary

    def detail(self) -> Widget:
        return scrolled(self.request.detail[:20_000])

    def result(self, answer: str) -> Decision:
        return "session" if answer == "session" else answer == "once"


class McpConsentScreen(ChoiceScreen[bool]):
    """Start an MCP server that the project's files declare? (a cloned repository's command
    would run on the user's machine). Answered once per server and project."""

    DIALOG_ID = "mcp-consent"
    CHOICES = (
        Choice("y", "Start (y)", "yes", "start it", "warning"),
        Choice("n", "Don't start (n)", "no", "do not start"),
    )
    BINDINGS: ClassVar[list[BindingType]] = choice_bindings(CHOICES)

    def __init__(self, name: str, command: str, source: str) -> None:
        super().__init__()
        self.server: str = name
        self.command: str = command
        self.source: str = source

    def heading(self) -> str:
        return f"Start the project's MCP server {self.server!r}?"

    def summary(self) -> str:
        return f"declared by {self.source}"

    def detail(self) -> Widget:
        return scrolled(f"it runs: {self.command}")

    def result(self, answer: str) -> bool:
        return answer == "yes"


class SwitchScreen(ChoiceScreen[str]):
    """The cache guard's price of a model switch, and three ways out: switch, delegate, cancel."""

    DIALOG_ID = "switch"
    CHOICES = (
        Choice("s", "Switch (s)", "switch", "switch", "warning"),
        Choice("d", "Subagent (d)", "delegate", "subagent", "primary"),
        Choice("c", "Cancel (c)", "cancel", "cancel"),
    )
    BINDINGS: ClassVar[list[BindingType]] = choice_bindings(CHOICES)

    def __init__(self, current: str, target: str, rows: QuoteRows) -> None:
        super().__init__()
        self.current = current
        self.target = target
        self.rows = rows

    def heading(self) -> str:
        return f"Switch {self.current} → {self.target}?"

    def detail(self) -> Widget:
        return quoted(self.rows)

    def result(self, answer: str) -> str:
        return answer


class ConfirmScreen(ChoiceScreen[bool]):
    """A priced action (compaction) shown before it happens: go ahead or cancel."""

    DIALOG_ID = "confirm"
    CHOICES = (
        Choice("y", "Yes (y)", "yes", "yes", "warning"),
        Choice("n", "No (n)", "no", "no"),
    )
    BINDINGS: ClassVar[list[BindingType]] = choice_bindings(CHOICES)

    def __init__(self, title: str, rows: QuoteRows) -> None:
        super().__init__()
        self.title_text = title
        self.rows = rows

    def heading(self) -> str:
        return self.title_text

    def detail(self) -> Widget:
        return quoted(self.rows)

    def result(self, answer: str) -> bool:
        return answer == "yes"


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
