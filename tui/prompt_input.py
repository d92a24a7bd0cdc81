"""The prompt line: an `Input` that empties itself the moment Enter submits it.

Textual's `Input` posts `Submitted` and leaves its text in place until the app handles the
message; keys typed in between (a fast typist, a paste, a terminal replaying buffered input)
were appended to the old text, so the next Enter sent the first message again glued to the new
one (seen under tmux: "fix the bug" then "status please" sent "fix the bugstatus please").
Emptied here, in the widget's own queue, in order with the keys, nothing typed is lost or sent
twice; the app must not clear it again.
"""

from __future__ import annotations

from textual.widgets import Input


class PromptInput(Input):
    async def action_submit(self) -> None:
        value = self.value
        self.value = ""
        self.post_message(self.Submitted(self, value, None))
