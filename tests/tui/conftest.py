"""Fixtures for the chat app's tests: a small workspace, a deterministic app on the emulator,
and helpers that drive it like a user (type, press enter, answer dialogs)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from harness.clock import ManualClock
from tui.app import ChatApp
from tui.backend import BackendOptions, ChatBackend


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    (root / "src").mkdir(parents=True)
    (root / "README.md").write_text("# demo\n\nA tiny project. TODO: write docs.\n")
    (root / "src" / "app.py").write_text("def main():\n    return 1\n")
    (tmp_path / "secret.txt").write_text("top secret\n")
    return root


AppFactory = Callable[..., ChatApp]


@pytest.fixture
def make_app(workspace: Path, tmp_path: Path) -> AppFactory:
    """A ChatApp on the in-process emulator with a ManualClock and a fixed session id."""

    def build(
        *,
        session_id: str | None = "tui-test-session",
        resume: str | None = None,
        clock: ManualClock | None = None,
        faults: list[dict[str, Any]] | None = None,
        model: str = "claude-sonnet-4-6",
    ) -> ChatApp:
        opts = BackendOptions(
            model=model,
            workspace=workspace,
            store_path=tmp_path / "sessions.sqlite",
            session_id=session_id,
            resume=resume,
            api_key="",
            clock=clock or ManualClock(),
            emulator_faults=faults or [],
        )
        return ChatApp(ChatBackend(opts), blink=False)

    return build
