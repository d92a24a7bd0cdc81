"""Drive the chat's backend (`prefixlock.tui.backend.ChatBackend`) without the screen, the way
the app drives it: every event of a turn observed (the cache panel's figures), the tool calls a
turn stops on decided, the turn resumed until it ends; what a setting decided on its own kept as
a note. Tests of the chat's logic use it; tests of what the app shows (rendering, dialogs and
their keys, focus, scrolling, snapshots) drive the app itself (tests/helpers/tui_drive.py).
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager
from typing import Literal

from prefixlock.coding.workspace import ApprovalRequest, Decision
from prefixlock.events import Event, ToolCall
from prefixlock.tui.backend import BackendOptions, ChatBackend

# "rules": nobody answers; the call is let through and the workspace applies the settings when
# it runs, asking the backend's `approve` callback where they say "ask" (what the app does with
# a call that a setting decides, or that can only fail).
Answer = Decision | Literal["rules"]
OptionsFactory = Callable[..., BackendOptions]  # the chat's options, by keyword


def never_asked(call: ToolCall) -> Answer:
    """The answer for a turn none of whose calls may wait for the user: fails if one does."""
    raise AssertionError(f"{call.name} waited for the user")


class BackendChat:
    """A started backend, and what the app would have shown of it besides the turns' events."""

    def __init__(self, backend: ChatBackend) -> None:
        self.backend = backend
        self.notes: list[str] = []  # what the backend said through `notify`
        # What reached the user through `approve` (declined: these tests let the settings
        # decide, or answer the calls a turn stops on, as the app's dialog does).
        self.asked: list[ApprovalRequest] = []
        backend.notify = self._note
        backend.approve = self._ask

    async def _note(self, text: str) -> None:
        self.notes.append(text)

    async def _ask(self, request: ApprovalRequest) -> Decision:
        self.asked.append(request)
        return False

    async def say(
        self, text: str, answer: Answer | Callable[[ToolCall], Answer] = "once"
    ) -> list[Event]:
        """One turn (the message as the app sends it once its offers and mentions are done):
        its events, each observed by the backend; each call the turn stops on is decided by
        `answer` (or by what `answer(call)` returns), and the turn goes on until it ends."""
        b = self.backend
        events = [ev async for ev in b.send(text)]
        for ev in events:
            b.observe(ev)
        while calls := b.pending_approvals():
            for call in calls:
                decision = answer(call) if callable(answer) else answer
                if decision == "rules":
                    b.decide(call, "once", ask_again=True)
                else:
                    b.decide(call, decision)
            resumed = [ev async for ev in b.resume_turn()]
            for ev in resumed:
                b.observe(ev)
            events.extend(resumed)
        return events

    def tool_results(self) -> list[tuple[str, bool]]:
        """(content, is_error) of every tool result the model was sent, in order."""
        return tool_results(self.backend)

    def last_user_text(self) -> str:
        """The text of the newest user message the model got (tool results aside)."""
        return last_user_text(self.backend)


def tool_results(backend: ChatBackend) -> list[tuple[str, bool]]:
    """(content, is_error) of every tool result the model was sent, in order (the app's
    tests pass `app.backend`)."""
    out: list[tuple[str, bool]] = []
    for msg in backend.session.transcript.messages:
        for block in msg.blocks:
            if block.get("type") == "tool_result":
                content = block.get("content", "")
                text = (
                    content
                    if isinstance(content, str)
                    else " ".join(str(b.get("text", "")) for b in content)
                )
                out.append((text, bool(block.get("is_error"))))
    return out


def last_user_text(backend: ChatBackend) -> str:
    """The text of the newest user message the model got (tool results aside)."""
    for msg in reversed(backend.session.transcript.messages):
        texts = [str(b.get("text", "")) for b in msg.blocks if b.get("type") == "text"]
        if msg.role == "user" and texts:
            return "\n".join(texts)
    raise AssertionError("no user message")


ChatOpener = Callable[..., AbstractAsyncContextManager[BackendChat]]


@contextlib.asynccontextmanager
async def started(options: BackendOptions) -> AsyncIterator[BackendChat]:
    """A backend on `options`, started (its session open) and closed after."""
    backend = ChatBackend(options)
    await backend.start()
    try:
        yield BackendChat(backend)
    finally:
        await backend.close()
