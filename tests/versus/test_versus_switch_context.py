"""The suite's switch check: a turn after a switch of model counts as done only when its work on
the new model carried the conversation, so a client that hands the turn to a context-free
subagent on a cheaper model cannot look cheap (a real model could not answer "Run the tests
again" without the session before it)."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from rich.console import Console

from prefixlock.emulator.model import summary_text
from prefixlock.versus.report import VersusResult, render
from prefixlock.versus.run import Billed, ClientRun, carries_context, switch_context_misses
from prefixlock.versus.scenario import SUMMARY_TOKENS, SWITCH_MODEL, Scenario
from tests.versus.short import short_turns

SC = Scenario("short", short_turns())
AWAY = next(t.index for t in SC.turns if t.model == SWITCH_MODEL)
BACK = AWAY + 1
BASE = SC.turns[0].model


def _row(turn: int, model: str, body: dict[str, Any]) -> dict[str, Any]:
    return {"turn": turn, "model": model, "body": body}


def _conversation(prompt: str) -> dict[str, Any]:
    return {
        "system": "You are a coding agent.",
        "messages": [
            {"role": "user", "content": "The test suite for the invoice service is failing."},
            {"role": "assistant", "content": [{"type": "text", "text": "Found it."}]},
            {"role": "user", "content": prompt},
        ],
    }


def test_a_switched_turn_with_the_conversation_is_done_and_one_without_it_is_not() -> None:
    prompt = SC.turns[AWAY].prompt
    whole = [_row(AWAY, SWITCH_MODEL, _conversation(prompt)), _row(BACK, BASE, _conversation("x"))]
    assert switch_context_misses(SC, whole) == []
    # The turn handed to a subagent: its own system prompt and the prompt alone.
    alone = {"system": "You are a subagent.", "messages": [{"role": "user", "content": prompt}]}
    subagent = [_row(AWAY, SWITCH_MODEL, alone), _row(BACK, BASE, _conversation("x"))]
    assert switch_context_misses(SC, subagent) == [AWAY]
    # A client that never sent the turn on the model the user picked did not make the switch.
    assert switch_context_misses(SC, [_row(AWAY, BASE, _conversation(prompt))]) == [AWAY, BACK]


def test_a_compacted_context_and_server_side_state_count_as_the_conversation() -> None:
    summary = summary_text(SUMMARY_TOKENS)
    compacted = {"system": ["rules", summary], "messages": [{"role": "user", "content": "go"}]}
    assert carries_context(compacted)
    assert carries_context({"input": "go", "previous_response_id": "resp_1"})
    # Chat Completions: the system message is not the conversation.
    chat = {"messages": [{"role": "system", "content": "rules"}, {"role": "user", "content": "go"}]}
    assert not carries_context(chat)
    assert carries_context({"input": [{"role": "developer", "content": "r"}, summary, "go"]})


def test_the_table_says_which_client_did_not_do_the_same_work() -> None:
    bill = [Billed(AWAY, SC.turns[AWAY].event, Decimal("0.01"), 0, 0, 100)]
    runs = [
        ClientRun("prefixlock", SC.name, list(bill)),
        ClientRun("shortcut", SC.name, list(bill), contextless=[AWAY]),
    ]
    result = VersusResult((SC,), runs, {})
    assert result.contextless() == {"shortcut": [f"short turn {AWAY + 1}"]}
    assert result.to_dict()["switch_turns_without_context"] == result.contextless()
    console = Console(record=True, width=100)
    render(result, console)
    text = console.export_text()
    assert "not the same work shortcut ran 1 switched turn(s) without the conversation" in text
