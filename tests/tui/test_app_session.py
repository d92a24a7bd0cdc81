"""A whole chat session on the emulator, driven through the app like a user would."""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path
from typing import Any

from prefixlock.billing.usage import Usage
from prefixlock.clock import ManualClock
from prefixlock.events import (
    Event,
    ProviderFault,
    SubagentEvent,
    SubagentFinish,
    SubagentStart,
    TextDelta,
    ToolCall,
    ToolResult,
    UsageReport,
)
from prefixlock.tui.screens import ApprovalScreen, HelpScreen, SwitchScreen
from prefixlock.tui.state import format_dollars
from prefixlock.tui.widgets import (
    AssistantMessage,
    CachePanel,
    SubagentEntry,
    SubagentText,
    ToolEntry,
)
from tests.helpers.backend_drive import ChatOpener
from tests.helpers.tui_drive import (
    AppFactory,
    conversation_text,
    open_dialog,
    ready,
    say,
    settle,
    wait_for_screen,
)


def panel_text(app: Any) -> str:
    return str(app.query_one("#cache-panel", CachePanel).render())


async def test_a_session_streams_folds_tools_asks_and_runs_the_next_task_in_a_subagent(
    make_app: AppFactory, workspace: Path
) -> None:
    """A session on screen: the answer streams into one entry, tool calls fold to a line each,
    a write asks first, the panel shows the ledger's figures, and the /model dialog's
    "subagent" runs the next task in a subagent entry. (The figures themselves:
    tests/tui/test_backend_session.py.)"""
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        backend = app.backend
        assert "EMULATOR" in str(app.query_one("#header").render())

        # Send a message and watch the answer stream in (several text deltas, one widget).
        seen: list[str] = []
        original = app.on_session_event

        async def spy(ev: Any) -> None:
            seen.append(type(ev).__name__)
            await original(ev)

        app.on_session_event = spy  # type: ignore[method-assign]
        await say(app, pilot, "hello")
        assert seen.count("TextDelta") > 1
        answers = list(app.query(AssistantMessage))
        assert len(answers) == 1 and "built-in emulator" in answers[-1].text

        # Tools fold to one line each; a write asks first and is approved with "y".
        await say(app, pilot, "look around")
        titles = [str(t.title) for t in app.query(ToolEntry)]
        assert any("list_dir" in t for t in titles) and any("read_file" in t for t in titles)
        assert all(t.collapsed for t in app.query(ToolEntry))
        await say(app, pilot, "add a note", answer="y")
        assert (workspace / "NOTES.md").read_text().startswith("# Notes")
        assert "create NOTES.md" in conversation_text(app)

        # The panel shows the ledger's numbers.
        ledger = backend.session.ledger
        text = panel_text(app)
        assert f"{ledger.hit_rate:.1%}".strip() in text
        assert ledger.cost is not None and format_dollars(ledger.cost) in text

        # /model: the quote, then "run the next task in a subagent".
        fp = backend.session.prefix.fingerprint
        await open_dialog(app, pilot, "/model claude-haiku-4-5", SwitchScreen)
        quote = backend.session.quote_switch("claude-haiku-4-5")
        dialog = str(app.screen.query_one(".quote").render())
        assert f"{quote.tokens_rebilled:,}" in dialog and "break-even" in dialog
        assert "cache warm for" in dialog
        await pilot.press("d")
        await settle(app, pilot)
        assert app.delegate_next == "claude-haiku-4-5"
        await say(app, pilot, "find the TODO notes")
        subs = list(app.query(SubagentEntry))
        assert subs and "haiku" in str(subs[-1].title)
        assert backend.session.model == "claude-sonnet-4-6"  # the main session did not switch
        assert backend.session.prefix.fingerprint == fp  # nor did its prefix change
        assert backend.panel_view().cost_sub > Decimal(0)
        assert app.delegate_next is None  # the one task only


async def test_a_resumed_session_shows_its_conversation_and_its_figures(
    make_app: AppFactory, open_chat: ChatOpener, clock: ManualClock
) -> None:
    async with open_chat() as chat:
        for text in ("hello", "look around"):
            await chat.say(text)
        session_id = chat.backend.session_id
    clock.advance(30)
    app = make_app(resume=session_id)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(app, pilot)
        assert app.backend.session_id == session_id
        assert session_id in str(app.query_one("#header").render())
        shown = conversation_text(app)
        assert "hello" in shown  # the stored conversation is shown
        # ... its tool calls folded with their results, as they were shown live
        assert "▸ ✓ list_dir path=. → README.md (2 lines)" in shown
        # The panel shows the restored ledger (the whole stored session).
        resumed = app.backend.session.ledger
        text = panel_text(app)
        assert f"{resumed.hit_rate:6.1%}".strip() in text
        assert resumed.cost is not None and format_dollars(resumed.cost) in text
        assert "warm" in text


async def test_outside_read_is_refused_and_the_model_sees_why(make_app: AppFactory) -> None:
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await say(app, pilot, "read the secret file")
        entries = list(app.query(ToolEntry))
        assert entries and entries[0].has_class("error")
        results = [
            b
            for m in app.backend.session.transcript.messages
            for b in m.blocks
            if b.get("type") == "tool_result"
        ]
        assert results and results[0].get("is_error") is True
        assert "outside the workspace" in str(results[0].get("content"))
        assert "top secret" not in conversation_text(app)


async def test_provider_fault_is_a_message_and_the_session_continues(
    make_app: AppFactory, chat_emulator: Any
) -> None:
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await say(app, pilot, "hello")
        chat_emulator.inject("500", count=50)
        await say(app, pilot, "hello again")
        text = conversation_text(app)
        assert "provider error" in text
        chat_emulator.clear_faults()
        await say(app, pilot, "look around")
        assert "src/app.py" in conversation_text(app)
        assert not app.busy


async def test_help_screen_and_declined_write(make_app: AppFactory, workspace: Path) -> None:
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("f1")
        assert isinstance(app.screen, HelpScreen)
        await pilot.press("escape")
        assert not isinstance(app.screen, HelpScreen)
        await say(app, pilot, "add a note", answer="n")
        assert not (workspace / "NOTES.md").exists()
        assert "declined" in conversation_text(app)
        assert not isinstance(app.screen, ApprovalScreen)


async def test_with_a_key_it_talks_to_the_configured_provider(
    workspace: Path,
    tmp_path: Path,
    clock: ManualClock,
    chat_emulator: Any,
    monkeypatch: Any,
) -> None:
    """With a key the app is online: no in-process emulator, the header names the provider.
    (The "provider" here is the emulator on its own port, standing in for the real API.)"""
    from prefixlock.tui.app import ChatApp
    from prefixlock.tui.backend import BackendOptions, ChatBackend

    monkeypatch.setenv("ANTHROPIC_API_KEY", "test-key")
    opts = BackendOptions(
        workspace=workspace,
        store_path=tmp_path / "s.sqlite",
        session_id="online",
        clock=clock,
        base_url=chat_emulator.base_url,
    )
    app = ChatApp(ChatBackend(opts), blink=False)
    async with app.run_test(size=(120, 40)) as pilot:
        assert not app.backend.offline and app.backend.emulator is None
        header = str(app.query_one("#header").render())
        assert "EMULATOR" not in header and "live" in header
        await say(app, pilot, "hello")
        assert "built-in emulator" in conversation_text(app)
        assert chat_emulator.requests[-1].status == 200


async def test_subagent_run_streams_live_into_a_nested_entry(make_app: AppFactory) -> None:
    """The model's `delegate` call: the subagent's entry appears and fills in (its own tool
    call) before the summary comes back as the call's result; the panel counts the subagent
    once, in the subagent dollars, and its main figures stay the parent ledger's."""
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        seen_at_result: list[tuple[str, bool, list[str]]] = []
        live_titles: list[str] = []
        call_lines: list[str] = []  # the folded `delegate` line while its subagent runs
        original = app.on_session_event

        def delegate_title() -> str:
            (line,) = [t for t in app.query(ToolEntry) if t.tool_name == "delegate"]
            return str(line.title)

        async def spy(ev: Any) -> None:
            if isinstance(ev, ToolResult) and ev.name == "delegate":
                # The summary is returning to the parent: the entry must be on screen already.
                for sub in app.query(SubagentEntry):
                    tools = [str(t.title) for t in sub.inner.query(ToolEntry)]
                    seen_at_result.append((str(sub.title), sub.finished, tools))
            await original(ev)
            if isinstance(ev, SubagentStart | SubagentEvent):
                call_lines.append(delegate_title())
            if isinstance(ev, SubagentEvent) and isinstance(ev.event, ToolResult):
                live_titles.extend(str(s.title) for s in app.query(SubagentEntry))

        app.on_session_event = spy  # type: ignore[method-assign]
        await say(app, pilot, "delegate")

        assert len(seen_at_result) == 1
        title, finished, tools = seen_at_result[0]
        assert finished and "hit" in title and "$" in title  # summary, cost and hit rate
        assert len(tools) == 1 and tools[0].startswith("✓ grep pattern=TODO")
        # While it ran, the entry was open and said so (working, its requests so far).
        assert live_titles and all("…" in t for t in live_titles)
        assert "1 req" in live_titles[0]
        (sub,) = app.query(SubagentEntry)
        assert sub.parent is not None and sub.has_class("depth-1")
        assert "README.md:3" in str(sub.summary.render())
        assert sub.collapsed  # one line once it finished
        # Its work as lines; its final answer once, as the summary (not also as a last line).
        texts = [t.text for t in sub.inner.query(SubagentText)]
        assert texts == ["Searching the workspace for TODO."]  # before its grep call
        assert str(sub.summary.render()) == 'One TODO: `README.md:3` ("TODO: write docs.").'
        # The call's folded line named the run and its progress while it ran (not a bare
        # "…"), then the summary it returned.
        assert call_lines[0].startswith("delegate ⎇ explorer … working (claude-haiku-4-5)")
        assert any(t.startswith("delegate ⎇ explorer … 1 req, $0.0") for t in call_lines)
        assert delegate_title().startswith("✓ delegate ⎇ explorer  → One TODO: `README.md:3`")
        # The main answer after the call is the parent's own, outside the entry.
        answers = [m for m in app.query(AssistantMessage) if sub not in m.ancestors]
        assert answers and "summary is above" in answers[-1].text

        ledger = app.backend.session.ledger
        view = app.backend.panel_view()
        assert view.hit_rate == ledger.hit_rate
        assert view.cost_main == ledger.cost
        assert view.saved == ledger.saved
        assert view.requests == len(ledger.rows) == 2  # the parent's two requests only
        assert len(ledger.subagents) == 1
        sub_cost = ledger.subagents.cost
        assert sub_cost is not None and view.cost_sub == sub_cost > Decimal(0)
        assert format_dollars(view.cost_sub) in panel_text(app)


async def test_nested_subagents_indent_by_depth_and_count_once(make_app: AppFactory) -> None:
    """A subagent's own subagent (its events arrive wrapped, tagged with depth 2) nests inside
    its parent's entry; only the outer run's finish (whose cost includes the inner run's)
    reaches the panel."""
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(app, pilot)
        u = Usage(uncached_input=100, cache_read=900, output=20)
        inner_cost, outer_cost = Decimal("0.0010"), Decimal("0.0035")  # outer includes inner
        events: list[Event] = [
            SubagentStart("explorer", "claude-haiku-4-5", "map the repo", 1),
            SubagentEvent("explorer", 1, TextDelta("Splitting the work.")),
            SubagentEvent(
                "explorer", 1, SubagentStart("summarizer", "claude-haiku-4-5", "summarize src", 2)
            ),
            SubagentEvent("summarizer", 2, ToolCall("t1", "read_file", {"path": "src/app.py"})),
            SubagentEvent("summarizer", 2, ToolResult("t1", "read_file", "def main():")),
            SubagentEvent(
                "summarizer",
                2,
                UsageReport(1, 0, "claude-haiku-4-5", u, inner_cost, Decimal("0.002")),
            ),
            SubagentEvent(
                "explorer",
                1,
                SubagentFinish(
                    "summarizer",
                    "claude-haiku-4-5",
                    "src has main()",
                    u,
                    inner_cost,
                    0.9,
                    10.0,
                    depth=2,
                ),
            ),
            SubagentEvent(
                "explorer",
                1,
                UsageReport(1, 0, "claude-haiku-4-5", u, Decimal("0.0025"), Decimal("0.004")),
            ),
            SubagentFinish(
                "explorer",
                "claude-haiku-4-5",
                "the repo has src/app.py",
                u + u,
                outer_cost,
                0.9,
                12.0,
            ),
        ]
        before = app.backend.panel_view()
        for ev in events[:5]:  # both running, the inner one's tool call done
            await app.on_session_event(ev)
        await pilot.pause()
        outer, inner = list(app.query(SubagentEntry))
        assert outer.depth == 1 and inner.depth == 2 and inner.has_class("depth-2")
        assert inner in outer.inner.children  # nested inside, so indented one level deeper
        assert inner.region.x > outer.region.x >= 0 and not outer.finished
        # As tall as what it shows (its text, the inner run's title, tool line and status),
        # not stretched to fill the conversation.
        assert outer.inner.outer_size.height == 4
        for ev in events[5:]:
            await app.on_session_event(ev)
        await pilot.pause()
        assert next(iter(inner.inner.query(ToolEntry))).title.startswith("✓ read_file")
        assert inner.finished and outer.finished and "src has main()" in str(inner.summary.render())
        view = app.backend.panel_view()
        assert view.cost_sub - before.cost_sub == outer_cost  # once, not outer + inner
        assert (view.requests, view.cost_main) == (before.requests, before.cost_main)
        assert not app._subagents  # nothing left open


async def test_the_approval_dialog_shows_the_diff_and_the_command_first(
    make_app: AppFactory, workspace: Path
) -> None:
    """Before a write the user sees its diff, before a command the command; nothing happens
    until they answer."""
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(app, pilot)
        for line, shown in (("add a note", "+# Notes"), ("run the tests", "echo 3 passed")):
            await open_dialog(app, pilot, line, ApprovalScreen)
            detail = "\n".join(str(w.render()) for w in app.screen.query(".dialog-detail *"))
            assert shown in detail
            if line == "add a note":
                assert "+++ b/NOTES.md" in detail
                assert not (workspace / "NOTES.md").exists()  # not before the answer
            await pilot.press("y")
            await settle(app, pilot)
        assert (workspace / "NOTES.md").exists()


async def test_a_delegate_line_follows_its_own_run_and_marks_a_failed_one(
    make_app: AppFactory,
) -> None:
    """Two parallel `delegate` calls: each folded line follows the run that has its task, and
    the one whose subagent stopped at a limit ends marked as failed."""
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(app, pilot)
        u = Usage(uncached_input=100, cache_read=900, output=20)
        haiku = "claude-haiku-4-5"
        events: list[Event] = [
            ToolCall("c1", "delegate", {"task": "map src", "agent": "explorer"}),
            ToolCall("c2", "delegate", {"task": "map docs", "agent": "explorer"}),
            SubagentStart("explorer", haiku, "map docs", 1, run_id="r2"),
            SubagentStart("explorer", haiku, "map src", 1, run_id="r1"),
            SubagentEvent(
                "explorer",
                1,
                UsageReport(1, 1, haiku, u, Decimal("0.0011"), Decimal("0.002")),
                "r2",
            ),
        ]
        for ev in events:
            await app.on_session_event(ev)
        lines = {t.call_id: t for t in app.query(ToolEntry)}
        assert str(lines["c1"].title).startswith("delegate ⎇ explorer … working (claude-haiku")
        assert str(lines["c2"].title).startswith("delegate ⎇ explorer … 1 req, $0.0011")
        for ev in (
            SubagentFinish(
                "explorer", haiku, "src: one module", u, Decimal("0.0011"), 0.9, 5.0, run_id="r1"
            ),
            SubagentFinish(
                "explorer",
                haiku,
                "[subagent explorer stopped at its turn limit 3]",
                u,
                Decimal("0.0011"),
                0.9,
                5.0,
                error="turns",
                run_id="r2",
            ),
            ToolResult("c1", "delegate", "src: one module"),
            ToolResult("c2", "delegate", "[subagent explorer stopped at its turn limit 3]"),
        ):
            await app.on_session_event(ev)
        await pilot.pause()
        assert str(lines["c1"].title).startswith("✓ delegate ⎇ explorer  → src: one module")
        assert str(lines["c2"].title).startswith("✗ delegate ⎇ explorer  → [subagent explorer")
        assert lines["c2"].has_class("error") and not lines["c1"].has_class("error")


async def test_a_retried_cut_stream_shows_the_answer_once(
    make_app: AppFactory, chat_emulator: Any
) -> None:
    """A stream cut mid-answer is retried and streams the answer again from its start: the
    failed attempt's partial text goes, the fault line stays, the answer shows once."""
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(app, pilot)
        seen: list[Event] = []
        original = app.on_session_event

        async def spy(ev: Any) -> None:
            seen.append(ev)
            await original(ev)

        app.on_session_event = spy  # type: ignore[method-assign]
        chat_emulator.inject("cut", count=1)
        await say(app, pilot, "hello")

        faults = [e for e in seen if isinstance(e, ProviderFault)]
        assert len(faults) == 1 and faults[0].retrying
        # The failed attempt did stream part of the answer before the cut (else this test
        # would pass without the fix).
        first_fault = seen.index(faults[0])
        partial = "".join(e.text for e in seen[:first_fault] if isinstance(e, TextDelta))
        answer = "".join(e.text for e in seen[first_fault:] if isinstance(e, TextDelta))
        assert partial and answer.startswith(partial) and len(answer) > len(partial)

        answers = list(app.query(AssistantMessage))
        assert [a.text for a in answers] == [answer]
        assert answer == app.backend.session.transcript.messages[-1].blocks[0]["text"]
        text = conversation_text(app)
        assert text.count(partial) == 1
        assert "provider fault" in text and "retrying" in text
        # The fault line comes before the answer that replaced the partial one.
        assert text.index("provider fault") < text.index(answer)


async def test_a_subagents_retried_request_shows_its_text_once(make_app: AppFactory) -> None:
    """Inside a subagent entry too: a retrying fault drops the failed attempt's text line."""
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(app, pilot)
        u = Usage(uncached_input=100, cache_read=900, output=20)
        done = UsageReport(1, 0, "claude-haiku-4-5", u, Decimal("0.001"), Decimal("0.002"))
        for ev in [
            SubagentStart("explorer", "claude-haiku-4-5", "map the repo", 1),
            SubagentEvent("explorer", 1, TextDelta("Looked at the first")),
            SubagentEvent("explorer", 1, ProviderFault(None, "stream cut", 1, retrying=True)),
            SubagentEvent("explorer", 1, TextDelta("Looked at the first file.")),
            SubagentEvent("explorer", 1, done),
            # A fault after a completed request removes nothing of that request.
            SubagentEvent("explorer", 1, ProviderFault(529, "Overloaded", 1, retrying=True)),
        ]:
            await app.on_session_event(ev)
        await pilot.pause()
        (entry,) = list(app.query(SubagentEntry))
        assert [t.text for t in entry.query(SubagentText)] == ["Looked at the first file."]
        notes = [str(n.render()) for n in entry.inner.query(".note")]
        assert len(notes) == 2 and "discarded" in notes[0] and "discarded" not in notes[1]


async def test_resume_with_another_model_offers_the_priced_switch(
    make_app: AppFactory, open_chat: ChatOpener, clock: ManualClock
) -> None:
    """`chat --resume ID --model M`: the session resumes on its stored model and M comes as the
    /model quote dialog; declined, nothing changes, taken, the switch is the priced one.
    (Which model a resume offers: tests/tui/test_backend_session.py.)"""
    async with open_chat() as chat:
        await chat.say("hello")
        session_id = chat.backend.session_id
        fp = chat.backend.session.prefix.fingerprint

    clock.advance(30)  # the cache is still warm: the switch has a price
    declined = make_app(resume=session_id, model="claude-haiku-4-5", switch_to="claude-haiku-4-5")
    async with declined.run_test(size=(120, 40)) as pilot:
        dialog = await wait_for_screen(declined, pilot, SwitchScreen)
        quote = declined.backend.session.quote_switch("claude-haiku-4-5")
        assert f"{quote.tokens_rebilled:,}" in str(dialog.query_one(".quote").render())
        assert declined.backend.session.model == "claude-sonnet-4-6"  # not before the choice
        await pilot.press("c")
        await settle(declined, pilot)
        text = conversation_text(declined)
        assert "--model claude-haiku-4-5: this session resumes on claude-sonnet-4-6" in text
        assert "kept claude-sonnet-4-6" in text
        assert declined.backend.session.model == "claude-sonnet-4-6"
        assert declined.backend.session.prefix.fingerprint == fp
        await pilot.press("ctrl+q")

    taken = make_app(resume=session_id, model="claude-haiku-4-5", switch_to="claude-haiku-4-5")
    async with taken.run_test(size=(120, 40)) as pilot:
        await wait_for_screen(taken, pilot, SwitchScreen)
        await pilot.press("s")
        await settle(taken, pilot)
        assert taken.backend.session.model == "claude-haiku-4-5"
        assert "switched to claude-haiku-4-5" in conversation_text(taken)
        assert "claude-haiku-4-5" in str(taken.query_one("#header").render())
