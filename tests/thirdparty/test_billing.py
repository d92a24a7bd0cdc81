"""The compatibility suite's bill check can fail: a trace whose usage the emulator reported is
matched by the rules, a tampered one is not, and a `previous_response_id` continuation is only
matched when its stored context is prepended, from its latest compaction item on (the SDKs here
are our own venv's)."""

from __future__ import annotations

from typing import Any

import pytest

from prefixlock.emulator import Emulator
from tests.helpers.sdk import anthropic, openai
from tests.thirdparty.billing import bills, emulator_trace, mismatches

SYSTEM = "You review pull requests for a payments service. " * 400


@pytest.fixture
def trace(emulator: Emulator) -> list[dict[str, object]]:
    claude = anthropic.Anthropic(api_key="k-a", base_url=emulator.base_url, max_retries=0)
    system = [{"type": "text", "text": SYSTEM, "cache_control": {"type": "ephemeral"}}]
    messages: list[dict[str, str]] = []
    for question in ("Is this diff safe?", "And the migration?"):
        messages.append({"role": "user", "content": question})
        reply = claude.messages.create(
            model="claude-sonnet-4-6",
            max_tokens=64,
            system=system,  # type: ignore[arg-type]
            messages=messages,  # type: ignore[arg-type]
        )
        messages.append({"role": "assistant", "content": reply.content[0].text})  # type: ignore[union-attr]
    gpt = openai.OpenAI(api_key="k-o", base_url=emulator.openai_base_url, max_retries=0)
    first = gpt.responses.create(model="gpt-5.4", instructions=SYSTEM, input="Is this safe?")
    gpt.responses.create(
        model="gpt-5.4", instructions=SYSTEM, input="And now?", previous_response_id=first.id
    )
    return emulator_trace(emulator)


def test_the_emulators_bill_matches_the_rules(trace: list[dict[str, object]]) -> None:
    assert mismatches(trace) == []
    billed = list(bills(trace))
    assert [b.api for b in billed] == ["anthropic"] * 2 + ["openai-responses"] * 2
    assert billed[1].reported.cache_read > 0 and billed[3].reported.cache_read > 0


def test_a_tampered_usage_is_a_mismatch(trace: list[dict[str, object]]) -> None:
    usage = dict(trace[1]["usage"])  # type: ignore[call-overload]
    usage["cache_read_input_tokens"] -= 1
    trace[1] = {**trace[1], "usage": usage}
    assert [m.split(" (")[0] for m in mismatches(trace)] == ["request 1"]


def test_a_continuation_without_its_context_is_a_mismatch(trace: list[dict[str, object]]) -> None:
    trace[3] = {k: v for k, v in trace[3].items() if k != "context"}
    assert [m.split(" (")[0] for m in mismatches(trace)] == ["request 3"]


def test_a_compacted_continuation_is_billed_from_its_compaction_item(emulator: Emulator) -> None:
    gpt = openai.OpenAI(api_key="k-o", base_url=emulator.openai_base_url, max_retries=0)
    compact: Any = [{"type": "compaction", "compact_threshold": 6000}]
    first = gpt.responses.create(
        model="gpt-5.4",
        instructions=SYSTEM,
        input="Here is the diff, line by line. " * 400,
        context_management=compact,
    )
    assert first.output[0].type == "compaction"
    second = gpt.responses.create(
        model="gpt-5.4",
        instructions=SYSTEM,
        input="And now?",
        previous_response_id=first.id,
        context_management=compact,
    )
    assert [item.type for item in second.output] == ["message"]
    trace = emulator_trace(emulator)
    assert mismatches(trace) == []
    billed = list(bills(trace))
    # The continuation reads the instructions' blocks, and nothing of the compacted input.
    assert 0 < billed[1].reported.cache_read < billed[0].reported.input_total
