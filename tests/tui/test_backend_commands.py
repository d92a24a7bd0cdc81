"""What the chat's commands answer, on its backend: /cost, /sessions, /lint (this session's
requests as a trace), /agents (and a Claude Code agent file's unused keys), /compact (priced,
and the session goes on), /model (the picker's rows and quotes; an unknown model refused),
/resume of an unknown session (the open one goes on). (The commands typed on screen and their
dialogs: tests/tui/test_app_commands.py and test_model_picker.py.)"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from prefixlock.errors import PrefixlockError, UnknownModelError
from prefixlock.prefix import SUMMARY_HEADER
from prefixlock.tui.model_picker import row_text
from tests.helpers.backend_drive import ChatOpener

HAIKU, SONNET = "claude-haiku-4-5", "claude-sonnet-4-6"


async def test_cost_sessions_lint_agents_and_compact(open_chat: ChatOpener) -> None:
    async with open_chat() as chat:
        backend = chat.backend
        await chat.say("hello")
        await chat.say("look around")
        assert "saved by the cache" in backend.cost_text()
        assert "tui-test-session" in backend.sessions_text()
        # The linter reads this session's requests as a trace (not some other input), from the
        # store: the session keeps the newest body only.
        sent = len(backend.session.requests)
        assert sent == 4 and re.search(
            rf"lint: (no findings|\d+ finding\(s\)) in {sent} requests of this session",
            backend.lint_text(),
        )
        assert "explorer" in backend.agents_text()
        quote = backend.quote_compact()
        assert quote.tokens_rebilled > 0
        assert "compacted" in await backend.compact(quote)
        compacted = len(backend.session.requests)
        await chat.say("hello")  # the session goes on after compaction
        assert len(backend.session.requests) == compacted + 1


async def test_cost_sums_each_subagents_runs_rather_than_keep_a_row_a_run(
    open_chat: ChatOpener,
) -> None:
    """/cost names each subagent once, with its runs and their cost: a row a run grew the
    chat with every delegation, and made /cost as long as the session."""
    from decimal import Decimal

    from prefixlock.billing.usage import Usage
    from prefixlock.events import SubagentFinish

    def finish(name: str, cost: Decimal | None) -> SubagentFinish:
        return SubagentFinish(name, HAIKU, "done", Usage(10, 0, 0, 0, 5), cost, 0.0, 1.0)

    async with open_chat() as chat:
        backend = chat.backend
        for _ in range(50):
            backend.observe(finish("explorer", Decimal("0.001")))
        backend.observe(finish("reviewer", Decimal("0.002")))
        backend.observe(finish("reviewer", None))
        assert len(backend.sub_costs) == 2
        text = backend.cost_text()
        assert "  subagent explorer: $0.0500 (50 runs)" in text.splitlines()
        assert "  subagent reviewer: ? (2 runs)" in text.splitlines()
        assert text.count("subagent explorer") == 1


async def test_compact_on_gpt_5_keeps_the_instructions_and_tools(open_chat: ChatOpener) -> None:
    """/compact on OpenAI puts the summary in the messages, as the automatic compaction does
    (`compaction.resolve_placement`): the system prompt and tools the next request sends are
    the ones sent before, so its cache entry still serves."""
    async with open_chat(model="gpt-5") as chat:
        backend = chat.backend
        await chat.say("hello")
        before = dict(backend.session.requests[-1].body)  # copied: old bodies are released
        await backend.compact(backend.quote_compact())
        await chat.say("hello again")
        after = backend.session.requests[-1].body
        assert after["instructions"] == before["instructions"]
        assert after["tools"] == before["tools"]
        assert str(after["input"][0]["content"][0]["text"]).startswith(SUMMARY_HEADER)


async def test_agents_lists_a_claude_code_file_and_its_unused_keys(
    open_chat: ChatOpener, workspace: Path
) -> None:
    """A Claude Code agent file in the workspace is offered; a key prefixlock does not use is
    reported where the user looks (the listing), not only to a log nobody sees."""
    folder = workspace / ".claude" / "agents"
    folder.mkdir(parents=True)
    (folder / "reviewer.md").write_text(
        "---\nname: reviewer\ndescription: Reviews code.\nmodel: haiku\ncolor: blue\n"
        "tools: Read, Grep\n---\nReview the code you are given.\n"
    )
    async with open_chat() as chat:
        text = chat.backend.agents_text()
        assert "reviewer [haiku]: Reviews code." in text
        assert "reviewer.md: key 'color' is not used by prefixlock (kept, ignored)" in text


async def test_the_model_rows_show_prices_warm_caches_and_what_a_switch_rebills(
    open_chat: ChatOpener,
) -> None:
    async with open_chat() as chat:
        backend = chat.backend
        await chat.say("hello")
        rows = backend.model_rows()
        by = {r.model: r for r in rows}
        assert set(by) == {p.model for p in backend.prices}
        assert rows[0].model == SONNET and by[SONNET].current
        warm = backend.panel_view().warm_seconds
        assert warm is not None and by[SONNET].warm_seconds == warm > 0
        price = backend.prices.lookup(HAIKU)
        assert price is not None and by[HAIKU].input == price.input
        quote = backend.session.quote_switch(HAIKU)
        assert quote.warns and by[HAIKU].switch_dollars == quote.dollars
        assert by[HAIKU].warm_seconds == 0  # never used in this session
        shown = str(row_text(by[HAIKU]))
        assert f"${price.input:.2f}" in shown and "cold" in shown and "+$0.0" in shown


async def test_an_unknown_model_or_session_is_refused_and_the_session_goes_on(
    open_chat: ChatOpener,
) -> None:
    async with open_chat() as chat:
        backend = chat.backend
        with pytest.raises(UnknownModelError, match="/model lists the priced ones"):
            backend.quote_switch("not-a-model-id")
        with pytest.raises(PrefixlockError, match="no-such-session"):
            await backend.resume("no-such-session")
        assert backend.session_id == "tui-test-session"
        await chat.say("hello")
        assert backend.session.ledger.rows
