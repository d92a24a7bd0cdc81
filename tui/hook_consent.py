"""The dialog that asks before a repository's own hooks run (its .claude/settings*.json): they
are shell commands that would run on this machine, outside the sandbox, on every tool call or
prompt. Once (this session), always for exactly these hooks (kept outside the repository,
prefixlock.coding.hooks.HookConsent), or not at all."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, ClassVar

from textual.binding import BindingType
from textual.widget import Widget

from .screens import Choice, ChoiceScreen, choice_bindings, scrolled

if TYPE_CHECKING:
    from prefixlock.coding.hooks import Hook


def hook_lines(hooks: Sequence[Hook]) -> str:
    """Each hook as the user should read it: when it fires, what it runs, where it is set."""
    lines = []
    for h in hooks:
        when = f"{h.event} ({h.matcher})" if h.matcher not in ("", "*") else h.event
        lines.append(f"{when}: {h.command}\n    from {h.source}")
    return "\n".join(lines)


class HookConsentScreen(ChoiceScreen[str]):
    """Run the hooks the repository's files declare? Answers "once", "always" or "no"."""

    DIALOG_ID = "hook-consent"
    CHOICES = (
        Choice("y", "This session (y)", "once", "run this session", "warning"),
        Choice("a", "Always (a)", "always", "always for this repository"),
        Choice("n", "Don't run (n)", "no", "do not run"),
    )
    BINDINGS: ClassVar[list[BindingType]] = choice_bindings(CHOICES)

    def __init__(self, hooks: Sequence[Hook]) -> None:
        super().__init__()
        self.hooks: list[Hook] = list(hooks)

    def heading(self) -> str:
        n = len(self.hooks)
        return f"Run the repository's {n} hook{'s' if n != 1 else ''}?"

    def summary(self) -> str:
        return "they run on this machine, outside the sandbox"

    def detail(self) -> Widget:
        return scrolled(hook_lines(self.hooks))

    def result(self, answer: str) -> str:
        return answer
