"""/lint before the first turn lints the next request's body as the SDK sends it: the builders
put tool definitions in canonical key order, so PL204 ("schema keys not sorted") has nothing
to find on prefixlock's own tools, as the same session's trace lints clean afterwards."""

from __future__ import annotations

import pytest

from tests.helpers.backend_drive import ChatOpener


@pytest.mark.parametrize("model", ["claude-sonnet-4-6", "gpt-5.4", "gpt-5.6-terra"])
async def test_lint_before_the_first_turn_finds_nothing_in_prefixlock_tools(
    open_chat: ChatOpener, model: str
) -> None:
    async with open_chat(model=model, session_id="lint-test") as chat:
        assert chat.backend.session.prefix.tools  # the built-in tools (and delegate) are linted
        text = chat.backend.lint_text()
        assert text.startswith("lint: no findings in the next request"), text
