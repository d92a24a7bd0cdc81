"""Fixtures for the chat's tests: a small workspace (and a small Python project), the emulator
with a ManualClock, and on them a deterministic app (driven like a user,
tests/helpers/tui_drive.py) or a started backend (driven without the screen,
tests/helpers/backend_drive.py)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import AbstractAsyncContextManager
from pathlib import Path
from typing import Any

import pytest

from prefixlock.clock import ManualClock
from prefixlock.coding.sandbox import SandboxOptions
from prefixlock.coding.settings_files import ChatSettings
from prefixlock.tui.app import ChatApp
from prefixlock.tui.backend import SCRIPT_PATH, BackendOptions, ChatBackend
from tests.helpers.backend_drive import BackendChat, ChatOpener, OptionsFactory, started
from tests.helpers.sandbox import BWRAP_PROBLEM
from tests.helpers.tmux import Tmux
from tests.helpers.tui_drive import AppFactory
from tests.tui.project_script import PROJECT_SCRIPT, make_project


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
def chat_options(
    workspace: Path, tmp_path: Path, clock: ManualClock, chat_emulator: Any
) -> OptionsFactory:
    """The chat's options on the emulator with a ManualClock, a fixed session id and a store
    in tmp (what `make_app` and `open_chat` run on)."""

    async def no_sleep(seconds: float) -> None:
        clock.advance(seconds)  # retries wait on the test's clock, never in real time

    def build(
        *,
        session_id: str | None = "tui-test-session",
        resume: str | None = None,
        model: str = "claude-sonnet-4-6",
        switch_to: str | None = None,
    ) -> BackendOptions:
        return BackendOptions(
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

    return build


@pytest.fixture
def make_app(chat_options: OptionsFactory) -> AppFactory:
    """A ChatApp on `chat_options` (the keywords are theirs)."""

    def build(**options: Any) -> ChatApp:
        # Dialogs arm at once (a pilot answers right after one shows); the typed-ahead rule
        # itself is tested with its own grace in test_app_approvals.py and under tmux.
        return ChatApp(ChatBackend(chat_options(**options)), blink=False, typeahead_grace=0.0)

    return build


@pytest.fixture
def open_chat(chat_options: OptionsFactory) -> ChatOpener:
    """`async with open_chat(**options) as chat:` a started backend on `chat_options`, driven
    without the screen (tests/helpers/backend_drive.py)."""

    def open_(**options: Any) -> AbstractAsyncContextManager[BackendChat]:
        return started(chat_options(**options))

    return open_


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A small Python project (tests/tui/project_script.py)."""
    return make_project(tmp_path / "proj")


@pytest.fixture
def project_options(project: Path, tmp_path: Path) -> Iterator[OptionsFactory]:
    """Options for the chat in `project`, on an emulator running the project's script (its
    edits, writes, commands and MCP calls); `store` names the store under tmp."""
    from prefixlock.emulator import Emulator

    clock = ManualClock(1_800_000_000.0)

    async def no_sleep(seconds: float) -> None:
        clock.advance(seconds)

    with Emulator.start(clock=clock, script=PROJECT_SCRIPT) as emu:

        def build(settings: ChatSettings | None = None, store: str = "s.sqlite") -> BackendOptions:
            return BackendOptions(
                workspace=project,
                store_path=tmp_path / store,
                session_id="proj-session",
                api_key="",
                clock=clock,
                emulator=emu,
                sleep=no_sleep,
                chat_settings=settings,
                sandbox=SandboxOptions(mode="bwrap" if BWRAP_PROBLEM is None else "off"),
            )

        yield build


@pytest.fixture
def tmux() -> Iterator[Tmux]:
    """A private tmux server for a real-terminal test, killed at the end."""
    t = Tmux()
    try:
        yield t
    finally:
        t("kill-server")
