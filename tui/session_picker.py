"""`prefixlock chat --resume` without an id: a list of the stored sessions to continue, this
workspace's first (newest first), as Claude Code's `claude --resume` picker.

`picker_rows` is pure over the store's session records and the workspace's recent ids
(prefixlock.coding.recent_sessions); `SessionPickerApp` shows them before the chat opens and
returns the id chosen (None: the user left without choosing).
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import ClassVar

from rich.text import Text
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from prefixlock.store.records import SessionRecord

from .state import format_dollars

MAX_ROWS = 200


@dataclass(frozen=True)
class SessionRow:
    """One stored session as the picker shows it."""

    id: str
    here: bool  # started in this workspace
    updated: float
    model: str
    turns: int
    hit_rate: float
    cost: str


def picker_rows(records: Iterable[SessionRecord], recent_ids: Sequence[str]) -> list[SessionRow]:
    """This workspace's sessions (in `recent_ids` order), then the others, newest first."""
    rank = {sid: i for i, sid in enumerate(recent_ids)}
    rows = [
        SessionRow(
            r.id,
            r.id in rank,
            r.updated,
            r.model,
            r.turns,
            r.hit_rate,
            format_dollars(r.cost),
        )
        for r in records
    ]
    rows.sort(key=lambda r: (not r.here, rank.get(r.id, 0), -r.updated))
    return rows[:MAX_ROWS]


def ago(seconds: float) -> str:
    if seconds < 90:
        return "just now"
    if seconds < 90 * 60:
        return f"{seconds / 60:.0f} min ago"
    if seconds < 36 * 3600:
        return f"{seconds / 3600:.0f} h ago"
    return f"{seconds / 86400:.0f} d ago"


def row_text(row: SessionRow, now: float) -> Text:
    where = "here " if row.here else "other"
    return Text(
        f"{where}  {ago(now - row.updated):>11}  {row.turns:>4} turns  hit {row.hit_rate:>4.0%}  "
        f"{row.cost:>9}  {row.model}  {row.id}"
    )


class SessionPickerApp(App[str | None]):
    """Pick a stored session: Enter continues it, Escape leaves without one."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "leave", "leave")]

    def __init__(self, rows: Sequence[SessionRow], now: float | None = None) -> None:
        super().__init__()
        self.rows: list[SessionRow] = list(rows)
        self.now: float = time.time() if now is None else now

    def compose(self) -> ComposeResult:
        yield Static(
            "Resume which session? (Enter continues it, Escape leaves; 'here' ones were "
            "started in this workspace)",
            id="picker-title",
        )
        yield OptionList(
            *[Option(row_text(r, self.now), id=r.id) for r in self.rows], id="sessions"
        )

    def on_mount(self) -> None:
        self.query_one("#sessions", OptionList).focus()

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        self.exit(event.option.id)

    def action_leave(self) -> None:
        self.exit(None)
