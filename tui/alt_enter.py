"""Alt+Enter read as Alt+Enter by the terminal driver (the prompt adds a line on it)."""

from __future__ import annotations

import sys
from collections.abc import Iterable

from textual import events
from textual._xterm_parser import XTermParser


class AltEnterParser(XTermParser):
    """Textual's terminal parser, but Alt+Enter stays Alt+Enter.

    tmux, xterm and most terminals send Alt+Enter as ESC CR; Textual reads the ESC as "alt"
    and then looks CR up as plain Enter, dropping the modifier, so Alt+Enter sent the message
    instead of adding a line. Installed by `use_alt_enter_parser` (the chat app, at start)."""

    def _sequence_to_key_events(self, sequence: str, alt: bool = False) -> Iterable[events.Key]:
        if alt and sequence in ("\r", "\n"):
            return [events.Key("alt+enter", None)]
        return super()._sequence_to_key_events(sequence, alt)


def use_alt_enter_parser() -> None:
    """Make the Linux/macOS terminal driver read keys with AltEnterParser. The driver names
    its parser class at module level and offers no hook; the chat owns its process."""
    if sys.platform == "win32":
        return
    from textual.drivers import linux_driver

    setattr(linux_driver, "XTermParser", AltEnterParser)  # noqa: B010 (no typed attribute)
