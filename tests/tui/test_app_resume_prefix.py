"""A resumed session stored with another prefix than the chat's: kept, and the chat says so.
(When the backend finds the prefixes differ, and what moving costs:
tests/tui/test_backend_session.py.)"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from prefixlock.clock import ManualClock
from prefixlock.tui.backend import SYSTEM_PROMPT
from tests.helpers.stored_chat import store_chat_session
from tests.helpers.tui_drive import AppFactory, conversation_text, ready


async def test_resuming_a_session_with_another_prefix_shows_a_note_with_the_cost(
    make_app: AppFactory, tmp_path: Path, workspace: Path, chat_emulator: Any, clock: ManualClock
) -> None:
    sid = await store_chat_session(
        tmp_path / "sessions.sqlite",
        workspace,
        chat_emulator.base_url,
        clock,
        1,
        session_id="older-prompt",
        system=SYSTEM_PROMPT + " (an older version of the prompt)",
    )
    app = make_app(resume=sid)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(app, pilot)
        session = app.backend.session
        assert session is not None and session.resumed_prefix_differs
        text = conversation_text(app)
        assert "resumes on its stored prefix" in text and "prefix differs" in text
        assert "cached tokens" in text
