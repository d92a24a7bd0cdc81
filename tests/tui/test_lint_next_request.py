"""/lint before the first turn lints the next request's body as the SDK sends it: the builders
put tool definitions in canonical key order, so PL204 ("schema keys not sorted") has nothing
to find on prefixlock's own tools, as the same session's trace lints clean afterwards."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from prefixlock.clock import ManualClock
from prefixlock.tui.backend import BackendOptions, ChatBackend


@pytest.mark.parametrize("model", ["claude-sonnet-4-6", "gpt-5.4", "gpt-5.6-terra"])
async def test_lint_before_the_first_turn_finds_nothing_in_prefixlock_tools(
    workspace: Path, tmp_path: Path, clock: ManualClock, chat_emulator: Any, model: str
) -> None:
    backend = ChatBackend(
        BackendOptions(
            model=model,
            workspace=workspace,
            store_path=tmp_path / "sessions.sqlite",
            session_id="lint-test",
            api_key="",
            clock=clock,
            emulator=chat_emulator,
        )
    )
    await backend.start()
    try:
        assert backend.session.prefix.tools  # the built-in tools (and delegate) are linted
        text = backend.lint_text()
        assert text.startswith("lint: no findings in the next request"), text
    finally:
        await backend.close()
