"""The prompt of the first frame: a one-line `Input` that stands in for `PromptInput`.

`PromptInput` is a TextArea, whose import, styles and first drawing are a good part of what
the chat pays before its prompt shows over a bare Textual app. `prefixlock chat` opening a new
session in a terminal shows this stand-in first (`ChatApp(opener=...)`) and swaps the real
prompt in behind the idle gate, before the session opens (`ChatApp.upgrade_prompt`), text and
cursor carried over. Only plain typing reaches the stand-in: any other key (Enter, a new line,
Up/Down, Tab, a binding, a paste) or a `/` or `@` (completion lists) swaps the prompt in first
and goes to it, so the chat behaves the same whichever prompt took the first keys.
"""

from __future__ import annotations

from textual.widgets import Input

# What the stand-in does as PromptInput would: editing one line; and ctrl+@ (a NUL, which
# some terminals send as the app starts), which neither binds.
EDITING_KEYS = frozenset({"backspace", "delete", "left", "right", "home", "end", "ctrl+@"})
# Characters that open a completion list in PromptInput.
COMPLETING = frozenset("/@")


def typed_here(key: str, character: str | None) -> bool:
    """Whether the stand-in takes this key (as PromptInput would): a printable character that
    opens no completion list, or a key of EDITING_KEYS."""
    if key in EDITING_KEYS:
        return True
    return (
        character is not None
        and len(character) == 1
        and character.isprintable()
        and character not in COMPLETING
    )


class FirstPrompt(Input):
    """The stand-in: an Input with the prompt's placeholder and its place on screen."""
