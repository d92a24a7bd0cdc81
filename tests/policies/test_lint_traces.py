"""Trace rules (PL5xx and breakpoints seen in traffic) and the trace report."""

from __future__ import annotations

import json
from collections.abc import Callable
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from prefixlock.billing.prices import PriceTable
from prefixlock.policies.report import build_report, render_text
from prefixlock.policies.tracecheck import check_trace
from tests.policies.lint_tracegen import (
    CC,
    TOOLS,
    anthropic_bodies,
    openai_bodies,
    write_raw,
    write_trace,
)

PRICES = PriceTable.builtin()


def codes(path: Path) -> list[str]:
    return sorted(f.code for f in check_trace(str(path), PRICES))


def test_clean_anthropic_session_has_no_findings(tmp_path: Path) -> None:
    p = write_trace(tmp_path / "ok.jsonl", anthropic_bodies(6))
    assert codes(p) == []
    assert build_report(str(p), PRICES).sessions[0].breaks == []


def test_clean_openai_session_with_key_has_no_findings(tmp_path: Path) -> None:
    assert codes(write_trace(tmp_path / "ok.jsonl", openai_bodies(5))) == []


def test_raw_bodies_are_read_as_one_session(tmp_path: Path) -> None:
    assert codes(write_raw(tmp_path / "raw.jsonl", anthropic_bodies(4))) == []

    def late_model(t: int, body: dict[str, Any], rec: dict[str, Any]) -> None:
        if t == 2:
            body["model"] = "claude-haiku-4-5"

    assert codes(write_raw(tmp_path / "raw2.jsonl", anthropic_bodies(3, mutate=late_model))) == [
        "PL501"
    ]


def _mut(fn: Any) -> Any:
    return fn


CASES: dict[str, tuple[Any, list[str]]] = {}


Mutator = Callable[[int, dict[str, Any], dict[str, Any]], None]


def case(name: str, expected: list[str]) -> Callable[[Mutator], Mutator]:
    def deco(fn: Mutator) -> Mutator:
        CASES[name] = (fn, expected)
        return fn

    return deco


@case("model_changed", ["PL501"])
def _model(t: int, body: dict[str, Any], rec: dict[str, Any]) -> None:
    if t >= 2:
        body["model"] = "claude-haiku-4-5"


@case("system_changed", ["PL502"])
def _system(t: int, body: dict[str, Any], rec: dict[str, Any]) -> None:
    if t >= 2:
        body["system"][0]["text"] = "Updated. " + body["system"][0]["text"]


@case("tools_reordered", ["PL503"])
def _tools(t: int, body: dict[str, Any], rec: dict[str, Any]) -> None:
    if t >= 2:
        body["tools"] = list(reversed(body["tools"]))


@case("tool_choice_changed", ["PL504"])
def _settings(t: int, body: dict[str, Any], rec: dict[str, Any]) -> None:
    if t >= 2:
        body["tool_choice"] = {"type": "any"}


@case("history_rewritten", ["PL505"])
def _history(t: int, body: dict[str, Any], rec: dict[str, Any]) -> None:
    if t == 2:
        body["messages"][0]["content"] = "Reminder: be brief. " + body["messages"][0]["content"]


@case("idle_gap", ["PL508"])
def _gap(t: int, body: dict[str, Any], rec: dict[str, Any]) -> None:
    if t >= 2:
        rec["time"] += 600


@case("time_in_system_with_breakpoint", ["PL402", "PL502"])
def _clock(t: int, body: dict[str, Any], rec: dict[str, Any]) -> None:
    body["system"] = [
        {"type": "text", "text": body["system"][0]["text"]},
        {"type": "text", "text": f"Current time: 10:0{t}:00", "cache_control": CC},
    ]


@case("no_breakpoint", ["PL406"])
def _nobp(t: int, body: dict[str, Any], rec: dict[str, Any]) -> None:
    del body["cache_control"]
    body["system"] = body["system"][0]["text"]


@case("five_breakpoints", ["PL401"])
def _five(t: int, body: dict[str, Any], rec: dict[str, Any]) -> None:
    for tool in body["tools"]:
        tool["cache_control"] = dict(CC)
    body["messages"][0]["content"] = [{"type": "text", "text": "q", "cache_control": dict(CC)}]


@case("ttl_order", ["PL403"])
def _ttl(t: int, body: dict[str, Any], rec: dict[str, Any]) -> None:
    body["cache_control"] = {"type": "ephemeral", "ttl": "1h"}


@case("below_minimum", ["PL405"])
def _short(t: int, body: dict[str, Any], rec: dict[str, Any]) -> None:
    body["system"][0]["text"] = "Be brief."  # far under claude-sonnet-4-6's 1,024 tokens
    body["tools"] = []


@pytest.mark.parametrize("name", sorted(CASES))
def test_one_fault_per_trace(tmp_path: Path, name: str) -> None:
    mutate, expected = CASES[name]
    p = write_trace(tmp_path / f"{name}.jsonl", anthropic_bodies(4, mutate=mutate))
    assert codes(p) == expected


def test_lookback_exceeded(tmp_path: Path) -> None:
    # Each turn adds 25 blocks and the only message breakpoint is the automatic one at the end.
    p = write_trace(tmp_path / "lb.jsonl", anthropic_bodies(3, blocks_per_turn=25))
    assert codes(p) == ["PL404"]


def test_openai_without_key_and_with_changing_key(tmp_path: Path) -> None:
    assert codes(write_trace(tmp_path / "nokey.jsonl", openai_bodies(3, key=None))) == ["PL506"]

    def rotate(t: int, body: dict[str, Any], rec: dict[str, Any]) -> None:
        body["prompt_cache_key"] = f"req-{t}"

    assert codes(write_trace(tmp_path / "rot.jsonl", openai_bodies(3, mutate=rotate))) == ["PL507"]


def test_repeated_finding_reported_once_with_count(tmp_path: Path) -> None:
    def every(t: int, body: dict[str, Any], rec: dict[str, Any]) -> None:
        body["system"][0]["text"] += f" (turn {t})"

    found = check_trace(
        str(write_trace(tmp_path / "s.jsonl", anthropic_bodies(5, mutate=every))), PRICES
    )
    pl502 = [f for f in found if f.code == "PL502"]
    assert len(pl502) == 1
    assert pl502[0].line == 2 and "3 more times" in pl502[0].message


def test_sessions_are_compared_separately(tmp_path: Path) -> None:
    a = anthropic_bodies(3)
    b = anthropic_bodies(3, model="claude-haiku-4-5")
    items = [dict(x, session="A") for x in a] + [dict(x, session="B") for x in b]
    items = [items[0], items[3], items[1], items[4], items[2], items[5]]  # interleaved
    assert codes(write_trace(tmp_path / "two.jsonl", items)) == []


def test_truncated_line_reported_rest_still_checked(tmp_path: Path) -> None:
    p = write_trace(tmp_path / "t.jsonl", anthropic_bodies(3, mutate=CASES["model_changed"][0]))
    text = p.read_text()
    p.write_text(text + text.splitlines()[0][:150])  # a cut-off last line, no newline
    found = check_trace(str(p), PRICES)
    assert sorted(f.code for f in found) == ["PL501", "PL904"]
    bad = next(f for f in found if f.code == "PL904")
    assert bad.line == 4 and "truncated" in bad.message


# --- the report -------------------------------------------------------------------------------


def test_report_names_first_divergent_byte_cause_tokens_and_dollars(tmp_path: Path) -> None:
    p = write_trace(tmp_path / "s.jsonl", anthropic_bodies(4, mutate=CASES["system_changed"][0]))
    rep = build_report(str(p), PRICES)
    (br,) = rep.sessions[0].breaks
    assert br.seq == 2 and br.cause == "system prompt changed"
    tools_bytes = sum(len(json.dumps(t, sort_keys=True, separators=(",", ":"))) for t in TOOLS)
    # The byte offset counts the tools' canonical bytes, then the system block up to "text":"
    assert br.byte is not None and tools_bytes < br.byte < tools_bytes + 40
    assert br.rebilled_tokens > 1000
    price = PRICES.require("claude-sonnet-4-6")
    expected = price.input_cost(br.rebilled_tokens, "write_5m") - price.input_cost(
        br.rebilled_tokens, "read"
    )
    assert br.dollars == expected.quantize(Decimal("0.000001"))
    text = render_text(rep)
    assert "system prompt changed" in text and "$" in text


def test_report_ttl_expiry_rebills_everything_without_a_byte(tmp_path: Path) -> None:
    p = write_trace(tmp_path / "g.jsonl", anthropic_bodies(3, mutate=CASES["idle_gap"][0]))
    (br,) = build_report(str(p), PRICES).sessions[0].breaks
    assert br.cause == "ttl expired" and br.byte is None and br.rebilled_tokens > 1000


def test_report_append_only_session_has_no_breaks(tmp_path: Path) -> None:
    p = write_trace(tmp_path / "ok.jsonl", openai_bodies(4))
    assert build_report(str(p), PRICES).sessions[0].breaks == []


def test_raw_openai_chat_and_responses_bodies(tmp_path: Path) -> None:
    def drift(t: int, body: dict[str, Any], rec: dict[str, Any]) -> None:
        body["messages"][0]["content"] += f" (request {t})"

    assert codes(write_raw(tmp_path / "chat.jsonl", openai_bodies(3, mutate=drift))) == ["PL502"]
    responses: list[dict[str, Any]] = [
        {
            "body": {
                "model": "gpt-5.4",
                "instructions": "Be brief. " * 200,
                "input": [{"role": "user", "content": f"q{i}"} for i in range(n)],
            }
        }
        for n in (1, 2, 3)
    ]
    for i, r in enumerate(responses):
        r["seq"], r["time"] = i, 0.0
    assert codes(write_raw(tmp_path / "resp.jsonl", responses)) == ["PL506"]


def test_other_jsonl_is_not_a_trace(tmp_path: Path) -> None:
    p = tmp_path / "mooncake.jsonl"
    p.write_text(
        "".join(json.dumps({"timestamp": i, "hash_ids": [1, 2]}) + "\n" for i in range(500))
    )
    (only,) = check_trace(str(p), PRICES)
    assert only.code == "PL904" and "not a request trace" in only.message


def test_many_bad_lines_are_capped(tmp_path: Path) -> None:
    p = write_trace(tmp_path / "t.jsonl", anthropic_bodies(2))
    p.write_text(p.read_text() + "{broken\n" * 50)
    found = [f for f in check_trace(str(p), PRICES) if f.code == "PL904"]
    assert len(found) == 20 and "30 more unreadable lines" in found[-1].message


def test_report_shows_reported_cache_reads(tmp_path: Path) -> None:
    p = write_trace(tmp_path / "s.jsonl", anthropic_bodies(3, mutate=CASES["system_changed"][0]))
    lines = [json.loads(x) for x in p.read_text().splitlines()]
    for rec in lines:  # raw Anthropic usage only: parsed with prefixlock.billing.usage
        rec["usage"] = {}
        rec["raw_usage"] = {
            "input_tokens": 5,
            "cache_read_input_tokens": 0,
            "cache_creation_input_tokens": 4000,
            "output_tokens": 9,
        }
    p.write_text("".join(json.dumps(x) + "\n" for x in lines))
    (br,) = build_report(str(p), PRICES).sessions[0].breaks
    assert br.reported_cache_read == 0
    assert "(reported cache read 0)" in render_text(build_report(str(p), PRICES))


def test_provider_default_decides_ambiguous_raw_bodies() -> None:
    from prefixlock.policies.tracecheck import detect_api

    body = {"model": "my-proxy-model", "messages": [{"role": "user", "content": "hi"}]}
    assert detect_api(body) == "openai-chat"
    assert detect_api(body, "anthropic") == "anthropic"
    assert detect_api({"model": "gpt-5.4", "input": "hi"}, "anthropic") == "openai-responses"
