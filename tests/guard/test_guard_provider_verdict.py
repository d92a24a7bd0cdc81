"""Opt-in cache diagnostics: the provider's own miss reason travels beside the guard's cause.

The emulator answers the documented diagnostics fields (prefixlock.providers.diagnostics: Anthropic
`diagnostics.previous_message_id`, OpenAI Responses `prompt_cache_options.comparison_response_id`)
from what it remembers of the previous response, so a tools change is `tools_changed` on its side
and `tools` on ours; a model switch is `model_changed`; ordinary turns report no reason. Chat
Completions and models before gpt-5.6 have no diagnostics: nothing is asked there."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from prefixlock.events import CacheBreak
from prefixlock.guard.cacheguard import provider_verdict
from prefixlock.providers.diagnostics import ANTHROPIC_BETA, diagnostics_request
from prefixlock.settings import Settings
from tests.helpers.guardkit import agent, grep, of, run_turns, sent, start_emulator, turn

DIAG = Settings(cache_diagnostics=True)


@pytest.mark.parametrize(
    ("model", "field", "ref"),
    [
        ("claude-opus-4-7", "diagnostics", "previous_message_id"),
        ("openai-responses:gpt-5.6-terra", "prompt_cache_options", "comparison_response_id"),
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
    assert bodies[0][field][ref] is None
    assert all(b[field][ref] for b in bodies[1:])
    # The reference is the transport's: the session's wire bodies (what the store keeps and
    # the cache sees) do not carry it.
    assert not any(ref in (b.get(field) or {}) for b in stored)


@pytest.mark.parametrize(
    "model", ["openai-chat:gpt-5.4", "openai-responses:gpt-5.4", "openai-chat:gpt-5.6-terra"]
)
async def test_nothing_is_asked_where_the_api_has_no_diagnostics(model: str) -> None:
    # Chat Completions has none; the Responses API only from gpt-5.6, and older models refuse
    # prompt_cache_options outright.
    with start_emulator() as emu:
        async with agent(emu, model=model, settings=DIAG).session() as s:
            await run_turns(emu, s, 2)
            n = sent(emu)
            bodies = [r.body for r in emu.requests[:n]]
    assert n == 4
    assert not any(
        "comparison_response_id" in (b.get("prompt_cache_options") or {}) for b in bodies
    )
    assert not any("prompt_cache_diagnostics" in b or "diagnostics" in b for b in bodies)


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
        opt_in = {"previous_message_id": None}
        first = httpx.post(url, json={**body, "diagnostics": opt_in}, headers=headers).json()
        ref = {"previous_message_id": first["id"]}
        again = httpx.post(url, json={**body, "diagnostics": ref}, headers=headers).json()
        lost = {"previous_message_id": "msg_unknown"}
        other = httpx.post(url, json={**body, "diagnostics": lost}, headers=headers).json()
        changed = {**body, "system": "Rule: be terse. " * 800, "diagnostics": ref}
        system = httpx.post(url, json=changed, headers=headers).json()
    assert again["usage"]["cache_read_input_tokens"] > 0
    assert first["diagnostics"] is None and again["diagnostics"] is None  # nothing diverged
    assert other["diagnostics"]["cache_miss_reason"] == {"type": "previous_message_not_found"}
    reason = system["diagnostics"]["cache_miss_reason"]
    assert reason["type"] == "system_changed"
    assert reason["cache_missed_input_tokens"] == first["usage"]["cache_creation_input_tokens"]


def test_the_documented_request_fields_are_sent() -> None:
    body: dict[str, Any] = {"model": "claude-opus-4-7", "messages": []}
    sent_body, headers = diagnostics_request("anthropic", body, "msg_1")
    assert sent_body["diagnostics"] == {"previous_message_id": "msg_1"}
    assert headers == {"anthropic-beta": ANTHROPIC_BETA} and "diagnostics" not in body
    # gpt-5.6's own cache options stay beside the comparison id.
    body = {"model": "gpt-5.6-terra", "input": [], "prompt_cache_options": {"mode": "explicit"}}
    sent_body, headers = diagnostics_request("openai-responses", body, "resp_1")
    assert sent_body["prompt_cache_options"] == {
        "mode": "explicit",
        "comparison_response_id": "resp_1",
    }
    assert headers == {} and body["prompt_cache_options"] == {"mode": "explicit"}
    for api, model in [("openai-chat", "gpt-5.6-terra"), ("openai-responses", "gpt-5.4")]:
        assert diagnostics_request(api, {"model": model}, "x") == ({"model": model}, {})


def test_the_documented_reply_shapes_are_read() -> None:
    # As the providers' SDK types describe them (anthropic.types.Diagnostics,
    # openai.types.responses.Response.prompt_cache_diagnostics).
    anth = {
        "diagnostics": {
            "cache_miss_reason": {"type": "tools_changed", "cache_missed_input_tokens": 9000}
        }
    }
    assert provider_verdict("anthropic", anth) == "tools_changed"
    pending = {"diagnostics": {"cache_miss_reason": None}}
    assert provider_verdict("anthropic", pending) is None
    assert provider_verdict("anthropic", {"diagnostics": None}) is None
    miss = {"type": "cache_miss", "reason": "reasoning_effort_changed", "cache_missed_tokens": 5}
    assert provider_verdict("openai-responses", {"prompt_cache_diagnostics": miss}) == (
        "reasoning_effort_changed"
    )
    hit = {"prompt_cache_diagnostics": {"type": "cache_hit"}}
    assert provider_verdict("openai-responses", hit) is None
    gone = {"prompt_cache_diagnostics": {"type": "comparison_response_not_found"}}
    assert provider_verdict("openai-responses", gone) == "comparison_response_not_found"
    assert provider_verdict("openai-chat", {}) is None


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
    assert not any("diagnostics" in b for b in bodies)


def test_the_emulator_refuses_diagnostics_fields_the_api_does_not_have() -> None:
    import httpx

    headers = {"authorization": "Bearer test-key"}
    chat = {"model": "gpt-5.6-terra", "messages": [{"role": "user", "content": "hi"}]}
    with start_emulator() as emu:
        url = emu.base_url + "/v1/chat/completions"
        options = {**chat, "prompt_cache_options": {"comparison_response_id": "resp_1"}}
        no_chat = httpx.post(url, json=options, headers=headers)
        made_up = httpx.post(url, json={**chat, "prompt_cache_diagnostics": {}}, headers=headers)
        fine = httpx.post(
            url, json={**chat, "prompt_cache_options": {"ttl": "30m"}}, headers=headers
        )
    assert no_chat.status_code == 400
    assert "prompt_cache_options.comparison_response_id" in no_chat.text
    assert made_up.status_code == 400 and "prompt_cache_diagnostics" in made_up.text
    assert fine.status_code == 200


async def test_the_store_keeps_both_verdicts(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from prefixlock.cli.main import main
    from prefixlock.store.database import SessionStore

    db = tmp_path / "s.sqlite"
    # The store is closed here: a SessionStore left to the garbage collector is an unclosed
    # sqlite3 connection (a ResourceWarning from Python 3.13 on).
    with SessionStore(db) as store, start_emulator() as emu:
        async with agent(emu, settings=DIAG, store=store).session("v") as s:
            await run_turns(emu, s, 2)
            s.change_tools(add=[grep], policy="allow")
            await turn(s, "now with grep")
    assert main(["sessions", "--store", str(db), "show", "v", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)["requests"]
    (miss,) = [r for r in rows if r["cause"]]
    assert miss["cause"] == "tools" and miss["detail"].endswith("; provider: tools_changed")
