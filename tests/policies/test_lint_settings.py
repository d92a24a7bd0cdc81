"""PL504 and the report's "settings changed": each prefix setting the issue names (tool_choice,
thinking, effort) changed in the middle of a session, on the Anthropic and the OpenAI wire."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from prefixlock.billing.prices import PriceTable
from prefixlock.policies.report import build_report
from prefixlock.policies.tracecheck import check_trace
from tests.policies.lint_tracegen import anthropic_bodies, openai_bodies, write_trace

PRICES = PriceTable.builtin()

ANTHROPIC: dict[str, dict[str, Any]] = {
    "tool_choice": {"tool_choice": {"type": "any"}},
    "thinking": {"thinking": {"type": "enabled", "budget_tokens": 2048}},
    "effort": {"output_config": {"effort": "low"}},
}
OPENAI: dict[str, dict[str, Any]] = {
    "reasoning_effort": {"reasoning_effort": "high"},
    "parallel_tool_calls": {"parallel_tool_calls": False},
}


def _from_turn_2(setting: dict[str, Any]) -> Any:
    def mutate(t: int, body: dict[str, Any], rec: dict[str, Any]) -> None:
        if t >= 2:
            body.update(setting)

    return mutate


@pytest.mark.parametrize("name", sorted(ANTHROPIC))
def test_anthropic_setting_changed_mid_session(tmp_path: Path, name: str) -> None:
    path = write_trace(
        tmp_path / "t.jsonl", anthropic_bodies(4, mutate=_from_turn_2(ANTHROPIC[name]))
    )
    (found,) = check_trace(str(path), PRICES)
    assert found.code == "PL504" and found.line == 3
    key = next(iter(ANTHROPIC[name]))
    assert f"{key} changed" in found.message
    (br,) = build_report(str(path), PRICES).sessions[0].breaks
    # The tools and system stay readable; the message level is re-billed.
    assert br.cause == "settings changed" and br.seq == 2 and br.rebilled_tokens > 0
    assert br.dollars is not None and br.dollars > 0


@pytest.mark.parametrize("name", sorted(OPENAI))
def test_openai_setting_changed_mid_session(tmp_path: Path, name: str) -> None:
    path = write_trace(tmp_path / "t.jsonl", openai_bodies(4, mutate=_from_turn_2(OPENAI[name])))
    (found,) = check_trace(str(path), PRICES)
    assert found.code == "PL504" and found.line == 3 and f"{name} changed" in found.message
    (br,) = build_report(str(path), PRICES).sessions[0].breaks
    assert br.cause == "settings changed" and br.seq == 2 and br.rebilled_tokens > 1000


def test_unchanged_settings_are_not_flagged(tmp_path: Path) -> None:
    setting = ANTHROPIC["thinking"]
    path = write_trace(
        tmp_path / "t.jsonl", anthropic_bodies(4, mutate=lambda t, body, rec: body.update(setting))
    )
    assert check_trace(str(path), PRICES) == []
    assert build_report(str(path), PRICES).sessions[0].breaks == []
