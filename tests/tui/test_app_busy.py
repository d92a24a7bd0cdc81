"""The screen never freezes on the first message: the provider SDK is imported and its client
made in a thread, with 'connecting…' in the header; messages typed while a turn runs are
queued and sent in order; ctrl+c cancels a running turn."""

from __future__ import annotations

import asyncio
import threading
from typing import Any

from prefixlock.tui.prompt_input import PromptInput
from prefixlock.tui.widgets import UserMessage
from tests.helpers.tui_drive import AppFactory, conversation_text, ready, settle, type_keys, until


async def test_slow_client_preparation_leaves_the_screen_live_and_queues_input(
    make_app: AppFactory,
) -> None:
    app = make_app()
    release = threading.Event()
    main_thread = threading.get_ident()
    ran_on: list[int] = []
    prepare = app.backend.prepare_client

    def slow_prepare() -> None:  # stands in for a 12 s `import anthropic` under load
        ran_on.append(threading.get_ident())
        release.wait(30)
        prepare()

    app.backend.prepare_client = slow_prepare  # type: ignore[method-assign]
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(app, pilot)
        assert "connecting…" in str(app.query_one("#header").render())
        prompt = app.query_one("#prompt", PromptInput)
        prompt.focus()
        await type_keys(pilot, *"hello")
        await pilot.press("enter")
        # The loop is free while the client is prepared: keys still reach the prompt.
        await type_keys(pilot, *"look around")
        assert prompt.value == "look around"
        await pilot.press("enter")
        await until(lambda: bool(app.queued), "the message to be queued")
        assert app.queued == ["look around"]
        assert "queued" in conversation_text(app)
        assert "1 queued" in str(app.query_one("#header").render())
        release.set()
        await settle(app, pilot)
        assert ran_on and ran_on[0] != main_thread
        users = [str(u.render()) for u in app.query(UserMessage)]
        assert users == ["› hello", "› look around"]
        # Both turns reached the model, in order.
        texts = [
            b.get("text")
            for m in app.backend.session.transcript.messages
            if m.role == "user"
            for b in m.blocks
            if b.get("type") == "text"
        ]
        assert texts == ["hello", "look around"]
        assert "connecting" not in str(app.query_one("#header").render())


async def test_ctrl_c_cancels_a_running_turn_and_keeps_what_was_queued(
    make_app: AppFactory,
) -> None:
    app = make_app()
    gate = asyncio.Event()
    send = app.backend.send

    async def held(text: str, images: Any = ()):  # type: ignore[no-untyped-def]
        await gate.wait()  # a turn that is still running when ctrl+c comes
        async for ev in send(text, images):
            yield ev

    app.backend.send = held  # type: ignore[method-assign]
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(app, pilot)
        prompt = app.query_one("#prompt", PromptInput)
        prompt.focus()
        prompt.value = "hello"
        await pilot.press("enter")
        prompt.value = "and then this"
        await pilot.press("enter")
        await until(lambda: bool(app.queued), "the message to be queued")
        assert app.busy and app.queued == ["and then this"]
        await pilot.press("ctrl+c")
        await settle(app, pilot)
        assert not app.busy
        assert "turn cancelled" in conversation_text(app)
        assert prompt.value == "and then this"  # not dropped: back in the prompt
        app.backend.send = send
        await pilot.press("enter")
        await settle(app, pilot)
        assert len(app.backend.session.ledger.rows) == 1
