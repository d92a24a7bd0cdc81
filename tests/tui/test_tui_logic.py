"""The app's pure parts: command parsing and the cache panel's figures."""

from __future__ import annotations

from decimal import Decimal

from prefixlock.billing.usage import Usage
from prefixlock.events import CacheBreak, SubagentFinish, UsageReport
from prefixlock.tui.commands import COMMANDS, KEYS, complete, parse
from prefixlock.tui.screens import help_text
from prefixlock.tui.state import TURNS_KEPT, CacheState, format_countdown, sparkline


def test_parse_messages_and_commands() -> None:
    assert parse("hello there").command is None
    assert parse("hello there").text == "hello there"
    assert parse("//etc is a path").text == "/etc is a path"
    p = parse("/model claude-haiku-4-5")
    assert p.command == "model" and p.args == ("claude-haiku-4-5",) and p.error is None
    assert parse("/keepalive on").error is None
    assert "usage" in (parse("/keepalive maybe").error or "")
    assert "usage" in (parse("/resume").error or "")
    unknown = parse("/modle x")
    assert unknown.error and "/model" in unknown.error
    assert complete("/co") == ["/compact", "/cost"]


def test_help_lists_every_command_and_key() -> None:
    text = help_text().plain
    for c in COMMANDS:
        assert f"/{c.name}" in text
    for key, _ in KEYS:
        assert key in text


def _report(turn: int, req: int, usage: Usage, cost: str, nocache: str) -> UsageReport:
    return UsageReport(turn, req, "claude-sonnet-4-6", usage, Decimal(cost), Decimal(nocache))


def test_cache_state_folds_usage_per_turn() -> None:
    st = CacheState("claude-sonnet-4-6", ttl=300)
    st.apply(_report(1, 0, Usage(100, 0, 2000, 0, 50), "0.01", "0.008"), now=1000.0)
    st.apply(_report(2, 1, Usage(50, 2000, 100, 0, 40), "0.002", "0.007"), now=1010.0)
    st.apply(_report(2, 2, Usage(30, 2100, 80, 0, 20), "0.002", "0.007"), now=1020.0)
    v = st.view(now=1100.0)
    assert v.last_read == 4100 and v.last_written == 180 and v.last_uncached == 80
    total_in = 100 + 2000 + 50 + 2000 + 100 + 30 + 2100 + 80
    assert abs(v.hit_rate - 4100 / total_in) < 1e-12
    assert len(v.sparkline) == 2 and v.sparkline[0] == 0.0
    assert v.cost_main == Decimal("0.014") and v.saved == Decimal("0.008")
    assert v.warm_seconds == 220.0
    assert format_countdown(st.warm_seconds(1400.0)) == "cold"
    assert st.warm_seconds(-5_000.0) == 300.0  # a clock behind the requests: at most a TTL
    assert format_countdown(200.0) == "3:20 warm"
    st.apply(CacheBreak(3, "model", 4000, Decimal("0.01"), "sonnet -> haiku"))
    st.apply(
        SubagentFinish(
            "explorer", "claude-haiku-4-5", "s", Usage(10, 0, 0, 0, 1), Decimal("0.003"), 0.0, 11.0
        )
    )
    v = st.view(now=1100.0)
    assert v.last_miss and v.last_miss.startswith("model (4,000 tok")
    assert v.cost_sub == Decimal("0.003") and v.cost_main == Decimal("0.014")


def test_dollars_format() -> None:
    from prefixlock.tui.state import format_dollars

    assert format_dollars(Decimal("-0.0014")) == "-$0.0014"
    assert format_dollars(Decimal("12.404")) == "$12.40"


def test_sparkline_scales() -> None:
    assert sparkline([0.0, 0.5, 1.0]) == "▁▅█"
    assert len(sparkline([1.0] * 50, width=20)) == 20


def test_every_app_binding_is_in_the_help() -> None:
    from textual.binding import Binding

    from prefixlock.tui.app import ChatApp

    listed = " ".join(k for k, _ in KEYS)
    for b in ChatApp.BINDINGS:
        assert isinstance(b, Binding)
        for key in b.key.split(","):
            assert key in listed, f"{key} ({b.action}) is missing from the help screen"


def test_restore_folds_stored_rows_by_turn_pings_apart() -> None:
    from prefixlock.store.records import UsageRow

    def row(
        seq: int, turn: int, kind: str, read: int, new: int, cause: str | None = None
    ) -> UsageRow:
        return UsageRow(
            seq=seq,
            turn=turn,
            kind=kind,
            time=1000.0 + seq,
            model="claude-sonnet-4-6",
            api="anthropic",
            usage=Usage(uncached_input=new, cache_read=read, output=5),
            cost=Decimal("0.01"),
            cost_without_cache=Decimal("0.03"),
            predicted_read=None,
            cause=cause,
            rebilled=700 if cause else 0,
        )

    s = CacheState("claude-sonnet-4-6", ttl=300)
    s.restore(
        [
            row(0, 1, "turn", 0, 1000),
            row(1, 1, "turn", 1000, 100),
            row(2, 1, "ping", 1100, 1),
            row(3, 2, "turn", 300, 800, cause="tools"),
        ]
    )
    assert [t.turn for t in s.turns] == [1, 2] and s.turns[0].requests == 2
    assert s.requests == 3 and s.keepalive_cost == Decimal("0.01")  # the ping counted apart
    v = s.view(1003.0 + 100)
    assert (v.last_read, v.last_uncached) == (300, 800)
    assert v.warm_seconds == 200.0  # from the last stored request's time
    assert v.last_miss is not None and v.last_miss.startswith("tools (700 tok")
    assert v.cost_main == Decimal("0.04")


def test_a_subagent_answer_repeated_as_its_summary_is_recognised() -> None:
    from prefixlock.agents.runner import cap_summary
    from prefixlock.tui.widgets import repeats_summary

    answer = "One TODO: `README.md:3` (write docs). " * 40
    assert repeats_summary(answer, answer.strip())
    cut, _ = cap_summary(answer, 30)  # the summary cut at the definition's token cap
    assert "[summary cut at 30 tokens]" in cut and repeats_summary(answer, cut)
    body = "Found two of the three files."
    assert repeats_summary(body, f"[subagent explorer stopped at its turn limit 12] {body}")
    # A line of work before the answer, or an empty line, is not the answer.
    assert not repeats_summary("Searching the workspace for TODO.", answer)
    assert not repeats_summary("  ", answer)


def test_a_stored_tool_call_is_one_line_with_its_result() -> None:
    from prefixlock.transcript import tool_result_block, tool_use_block
    from prefixlock.tui.backend import stored_tool_line

    call = tool_use_block("t1", "delegate", {"task": "find TODOs", "agent": "explorer"})
    done = tool_result_block("t1", "One TODO: README.md:3\nmore")
    assert stored_tool_line(call, done) == (
        "▸ ✓ delegate ⎇ explorer → One TODO: README.md:3 (2 lines)"
    )
    refused = tool_result_block("t2", "path '../x' is outside the workspace", is_error=True)
    line = stored_tool_line(tool_use_block("t2", "read_file", {"path": "../x"}), refused)
    assert line.startswith("▸ ✗ read_file path=../x → path '../x' is outside")
    assert stored_tool_line(call, None) == "▸ delegate ⎇ explorer (no result stored)"


def test_a_prompt_below_the_models_minimum_is_not_cached_and_the_quote_says_so() -> None:
    """The sonnet-to-haiku case: haiku caches from 4,096 tokens; a 2,000-token prompt is
    never cached there, so the switch never breaks even and the panel does not say "warm"
    (the countdown was sonnet's)."""
    from prefixlock.guard.quote import Quote
    from prefixlock.tui.quotes import quote_rows

    floors = {"claude-sonnet-4-6": 1024, "claude-haiku-4-5": 4096}
    st = CacheState("claude-sonnet-4-6", ttl=300, min_tokens=floors.__getitem__)
    st.apply(_report(1, 0, Usage(100, 0, 2000, 0, 50), "0.01", "0.008"), now=1000.0)
    assert not st.view(now=1010.0).below_minimum
    haiku = UsageReport(2, 1, "claude-haiku-4-5", Usage(2100, 0, 0, 0, 30), None, None)
    st.apply(haiku, now=1020.0)
    view = st.view(now=1030.0)
    assert view.below_minimum
    quote = Quote(
        "switch_model", "s", "x", "claude-sonnet-4-6", "claude-haiku-4-5", 2000,
        Decimal("0.002"), Decimal("0.003"), Decimal("0.004"), 2, 280.0, 2100, 0.0,
    )  # fmt: skip
    rows = dict(quote_rows(quote, 4096).rows)
    assert rows["break-even"] == "never"
    assert rows["new model cache"] == "below minimum: not cached (2,100 < 4,096 tokens)"
    above = dict(quote_rows(quote, 1024).rows)
    assert above["break-even"] == "2 turns" and "new model cache" not in above


def test_a_long_session_keeps_a_bounded_number_of_turn_figures() -> None:
    # The per-turn figures feed the sparkline and the last turn's row; the session's totals
    # are folded as they come. 500 turns keep TURNS_KEPT of them, the totals all 500.
    s = CacheState("claude-sonnet-4-6", ttl=300)
    for turn in range(1, 501):
        usage = Usage(uncached_input=10, cache_read=90 if turn % 2 else 0, output=5)
        s.apply(UsageReport(turn, turn, "claude-sonnet-4-6", usage, Decimal("0.01"), None), 1000.0)
    assert len(s.turns) == TURNS_KEPT and s.turns[-1].turn == 500
    assert s.requests == 500 and s.total.cache_read == 250 * 90
    v = s.view(1000.0)
    assert len(v.sparkline) == 30 and v.last_read == 0 and v.last_uncached == 10


def test_the_panels_totals_cover_the_rows_a_bounded_ledger_folded() -> None:
    """The chat bounds its ledger (the oldest rows folded into sums): the panel's hit rate
    and savings (a keep-alive ping neither a hit nor a saving) are those of every request."""
    from prefixlock.billing.ledger import Ledger
    from prefixlock.tui.state import served_by_cache
    from prefixlock.wire import WireRequest

    req = WireRequest("anthropic", "claude-sonnet-4-6", "/v1/messages", {})
    full, bounded = Ledger(), Ledger()
    bounded.keep_rows = 2
    for ledger in (full, bounded):
        for i in range(9):
            kind = {"kind": "ping"} if i in (2, 3) else None
            usage = Usage(cache_read=900 * i, uncached_input=100 + 50 * (i % 3), output=10)
            ledger.record(req, usage, meta=kind)
    assert len(bounded.rows) == 2 and len(bounded) == 9
    hit, saved = served_by_cache(bounded)
    assert (hit, saved) == served_by_cache(full)
    assert saved is not None and saved > 0 and 0 < hit < 1
