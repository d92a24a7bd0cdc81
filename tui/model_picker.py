"""The `/model` picker: every priced model with its prices, whether this session's cache is
warm on it, and what switching to it would re-bill (the cache guard's quote), before any switch.

`picker_rows` is pure over the price table and the guard's quotes; the screen lists the rows and
returns the model chosen. Choosing one goes through the app's priced switch (`/model M`): the
quote dialog opens when the switch would lose a warm cache.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from decimal import Decimal
from typing import TYPE_CHECKING, ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from prefixlock.billing.prices import Price
from prefixlock.errors import PrefixlockError

from .state import format_dollars

if TYPE_CHECKING:  # the guard loads with the session, after the first frame
    from prefixlock.guard.quote import Quote


@dataclass(frozen=True)
class ModelRow:
    """One model as the picker shows it."""

    model: str
    provider: str
    input: Decimal  # $ per million tokens
    cache_read: Decimal
    output: Decimal
    current: bool
    warm_seconds: float  # how long this session's cache on the model stays warm (0: cold)
    switch_dollars: Decimal | None  # what the switch re-bills (0 when nothing cached is lost)
    note: str = ""  # why there is no quote (the guard refused to price it)


def picker_rows(
    prices: Iterable[Price],
    current: str,
    current_warm: float,
    quote: Callable[[str], Quote],
    now: float,
) -> list[ModelRow]:
    """A row per priced model, the current one first, then by provider and price."""
    rows: list[ModelRow] = []
    for p in prices:
        is_current = p.model == current
        warm = current_warm if is_current else 0.0
        dollars: Decimal | None = Decimal(0)
        note = ""
        if not is_current:
            try:
                q = quote(p.model)
            except PrefixlockError as exc:
                dollars, note = None, str(exc)
            else:
                dollars = q.dollars if q.warns else Decimal(0)
                ahead = q.with_action
                # The guard predicts a cache read on that model: this session left a prefix
                # there (an earlier switch) that is still warm.
                if ahead is not None and ahead.read > 0 and ahead.expires_at is not None:
                    warm = max(0.0, ahead.expires_at - now)
        rows.append(
            ModelRow(
                p.model,
                p.provider,
                p.input,
                p.cache_read,
                p.output,
                is_current,
                warm,
                dollars,
                note,
            )
        )
    rows.sort(key=lambda r: (not r.current, r.provider, r.input, r.model))
    return rows


def _money(d: Decimal) -> str:
    if d >= 100:
        return f"${d:.0f}"
    # Cents, unless that would show a real price as $0.00 (cache reads of the cheap models).
    return f"${d:.2f}" if d == d.quantize(Decimal("0.01")) or d >= 1 else f"${d:.3f}"


NAME_WIDTH = 17


def row_text(row: ModelRow) -> Text:
    """`● claude-sonnet-4-6  $3.00  $0.30  $15.00  warm 4:59  current`: one line that fits
    the dialog at 80 columns."""
    t = Text()
    t.append("● " if row.current else "  ", style="bold")
    name = row.model if len(row.model) <= NAME_WIDTH else row.model[: NAME_WIDTH - 1] + "…"
    t.append(f"{name:<{NAME_WIDTH}}", style="bold" if row.current else "")
    t.append(f"{_money(row.input):>6}{_money(row.cache_read):>7}{_money(row.output):>8}")
    if row.warm_seconds > 0:
        left = int(row.warm_seconds)
        t.append(f"  warm{left // 60:>3}:{left % 60:02d}", style="green")
    else:
        t.append("  cold     ", style="dim")
    if row.current:
        t.append("  current", style="bold")
    elif row.switch_dollars is None:
        t.append("  no quote", style="dim")
    elif row.switch_dollars > 0:
        t.append(f"  +{format_dollars(row.switch_dollars)}", style="yellow")
    else:
        t.append("  free", style="dim")
    return t


HEADER = "  model              input   read  output  cache      switch"
HINT = (
    "USD per 1M tokens; switch: what moving re-bills now (the guard's quote)\n"
    "enter: switch (the quote dialog first if it re-bills)  escape: cancel"
)


class ModelPickerScreen(ModalScreen[str | None]):
    """Pick a model; Enter returns it (the app then quotes and switches), Escape cancels."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", "cancel"),
    ]

    def __init__(self, rows: list[ModelRow]) -> None:
        super().__init__(classes="dialog-screen")
        self.rows = rows

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog", id="model-picker"):
            yield Static(Text("Switch model", style="bold"), classes="dialog-title")
            yield Static(Text(HEADER, style="dim"), classes="picker-header")
            yield OptionList(*(Option(row_text(r), id=r.model) for r in self.rows), id="model-list")
            yield Static(Text(HINT), classes="dialog-hint")

    def on_mount(self) -> None:
        listing = self.query_one("#model-list", OptionList)
        listing.highlighted = 0
        listing.focus()

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.dismiss(event.option.id)

    def action_cancel(self) -> None:
        self.dismiss(None)
