"""Fixtures for the chat app's tests: a small workspace, a deterministic app on the emulator,
and helpers that drive it like a user (type, press enter, answer dialogs)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from prefixlock.clock import ManualClock
from prefixlock.coding.sandbox import SandboxOptions
from prefixlock.tui.app import ChatApp
from prefixlock.tui.backend import SCRIPT_PATH, BackendOptions, ChatBackend
from tests.helpers.sandbox import BWRAP_PROBLEM


@pytest.fixture(autouse=True)
def _no_api_keys(monkeypatch: pytest.MonkeyPatch) -> None:
    """The app runs on the emulator and says why; a key in the environment must not change
    what the tests (and the snapshots) see."""
    from prefixlock.providers.registry import KEY_VAR_NAMES

    for var in KEY_VAR_NAMES:
        monkeypatch.delenv(var, raising=False)


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    (root / "src").mkdir(parents=True)
    (root / "README.md").write_text("# demo\n\nA tiny project. TODO: write docs.\n")
    (root / "src" / "app.py").write_text("def main():\n    return 1\n")
    (tmp_path / "secret.txt").write_text("top secret\n")
    return root


from tests.helpers.tui_drive import AppFactory  # noqa: E402


@pytest.fixture
def clock() -> ManualClock:
    return ManualClock(1_800_000_000.0)


@pytest.fixture
def chat_emulator(clock: ManualClock) -> Iterator[Any]:
    """The emulator with the chat's script, shared by every app a test opens (so a resumed
    session finds the cache its first run wrote)."""
    from prefixlock.emulator import Emulator, Script

    with Emulator.start(clock=clock, script=Script.load(SCRIPT_PATH)) as emu:
        yield emu


@pytest.fixture
def make_app(workspace: Path, tmp_path: Path, clock: ManualClock, chat_emulator: Any) -> AppFactory:
    """A ChatApp on the emulator with a ManualClock, a fixed session id and a store in tmp."""

    async def no_sleep(seconds: float) -> None:
        clock.advance(seconds)  # retries wait on the test's clock, never in real time

    def build(
        *,
        session_id: str | None = "tui-test-session",
        resume: str | None = None,
        model: str = "claude-sonnet-4-6",
        switch_to: str | None = None,
    ) -> ChatApp:
        opts = BackendOptions(
            model=model,
            workspace=workspace,
            store_path=tmp_path / "sessions.sqlite",
            session_id=None if resume else session_id,
            resume=resume,
            switch_to=switch_to,
            api_key="",
            clock=clock,
            emulator=chat_emulator,
            sleep=no_sleep,
            # Commands run in bubblewrap where this machine can run it, unconfined elsewhere:
            # these tests pin the chat's behaviour; the sandbox has its own suite.
            sandbox=SandboxOptions(mode="bwrap" if BWRAP_PROBLEM is None else "off"),
        )
        return ChatApp(ChatBackend(opts), blink=False)

    return build
