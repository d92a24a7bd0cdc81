"""Opt-in cache diagnostics: the provider's own miss reason travels beside the guard's cause.

The emulator answers the diagnostics request fields (harness.providers.diagnostics) from what it
remembers of the previous response, so a tools change is `tools_changed` on its side and
`tools` on ours; a model switch is `model_changed`; ordinary turns report no reason."""

from __future__ import annotations

import pytest
from guardkit import agent, grep, of, run_turns, sent, start_emulator, turn

from harness.events import CacheBreak
from harness.settings import Settings

DIAG = Settings(cache_diagnostics=True)


@pytest.mark.parametrize(
    ("model", "field", "ref"),
    [
        ("claude-opus-4-7", "cache_diagnostics", "previous_message_id"),
        ("gpt-5.4", "prompt_cache_diagnostics", "comparison_id"),
        ("openai-responses:gpt-5.4", "prompt_cache_diagnostics", "comparison_id"),
    ],
)
async def test_tools_change_has_both_verdicts(model: str, field: str, ref: str) -> None:
    with start_emulator() as emu:
        async with agent(emu, model=model, settings=DIAG).session() as s:
            await run_turns(emu, s, 3)
            s.change_tools(add=[grep], policy="allow")
            events = await turn(s, "now with grep")
            n = sent(emu)
            bodies = [r.body for r in emu.requests[:n]]
            stored = [r.body for r in s.requests]
    (brk,) = of(events, CacheBreak)
    assert brk.cause == "tools" and brk.provider_verdict == "tools_changed"
    # Every request asked, naming the response before it (the first has none to name).
    assert bodies[0][field] == {ref: None}
    assert all(b[field][ref] for b in bodies[1:])
    # The diagnostics field is the transport's: the session's wire bodies (what the store keeps
    # and the cache sees) do not carry it.
    assert not any(field in b for b in stored)


async def test_model_switch_is_model_changed_and_warm_turns_have_no_reason() -> None:
    with start_emulator() as emu:
        async with agent(emu, settings=DIAG).session() as s:
            await run_turns(emu, s, 2)
            s.switch_model("claude-sonnet-4-6", policy="allow")
            events = await turn(s, "on sonnet now")
    (brk,) = of(events, CacheBreak)
    assert brk.cause == "model" and brk.provider_verdict == "model_changed"


def test_emulator_reports_no_reason_on_a_hit_and_an_unknown_reference() -> None:
    import httpx

    body = {
        "model": "claude-opus-4-7",
        "max_tokens": 100,
        "cache_control": {"type": "ephemeral"},
        "system": "Rule: be brief. " * 800,
        "messages": [{"role": "user", "content": "hello"}],
    }
    headers = {"x-api-key": "test-key", "anthropic-version": "2023-06-01"}
    with start_emulator() as emu:
        url = emu.base_url + "/v1/messages"
        first = httpx.post(url, json={**body, "cache_diagnostics": {}}, headers=headers).json()
        ref = {"previous_message_id": first["id"]}
        again = httpx.post(url, json={**body, "cache_diagnostics": ref}, headers=headers).json()
        lost = {"previous_message_id": "msg_unknown"}
        other = httpx.post(url, json={**body, "cache_diagnostics": lost}, headers=headers).json()
    assert again["usage"]["cache_read_input_tokens"] > 0
    assert again["diagnostics"] == {**ref, "cache_miss_reason": None}
    assert other["diagnostics"]["cache_miss_reason"] == {"type": "previous_message_not_found"}


async def test_without_the_setting_nothing_is_asked() -> None:
    with start_emulator() as emu:
        async with agent(emu).session() as s:
            await run_turns(emu, s, 2)
            s.change_tools(add=[grep], policy="allow")
            events = await turn(s, "now with grep")
            n = sent(emu)
            bodies = [r.body for r in emu.requests[:n]]
    (brk,) = of(events, CacheBreak)
    assert brk.cause == "tools" and brk.provider_verdict is None
    assert not any("cache_diagnostics" in b for b in bodies)
