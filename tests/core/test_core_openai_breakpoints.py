"""gpt-5.6-family request building: where the builders put `prompt_cache_breakpoint`, what they
send instead of `prompt_cache_retention`, and that older models' requests are unchanged."""

from __future__ import annotations

import json
from typing import Any

import pytest

from prefixlock.cache.units import (
    BREAKPOINT_FIELD,
    IMPLICIT,
    breakpoint_eligible,
    openai_explicit_cache,
    openai_items,
)
from prefixlock.errors import ConfigError
from prefixlock.prefix import FrozenPrefix
from prefixlock.providers import SessionInfo, cache_key_for, make_builder
from prefixlock.settings import Settings
from prefixlock.transcript import Message, Transcript, text_block, tool_result_block, tool_use_block
from prefixlock.wire import WireRequest

APIS = ["openai-chat", "openai-responses"]
SESSION = SessionInfo("s-1")
MODEL = "gpt-5.6-terra"
MODES = [
    Settings(),  # hybrid: implicit + the stable-boundary mark
    Settings(openai_breakpoints=False),  # OpenAI's default: the implicit breakpoint only
    Settings(openai_cache_mode="explicit"),
]


def _prefix() -> FrozenPrefix:
    tools = [
        {
            "name": n,
            "description": f"{n} tool",
            "input_schema": {"type": "object", "properties": {"path": {"type": "string"}}},
        }
        for n in ("read_file", "grep")
    ]
    return FrozenPrefix(system=["You are careful.", "Keep it stable."], tools=tools)


def _conversation(turns: int) -> Transcript:
    t = Transcript()
    for i in range(turns):
        t.append(Message.user(f"question {i}"))
        call = tool_use_block(f"t{i}", "read_file", {"path": f"f{i}.py"})
        t.append(Message.assistant([text_block(f"looking {i}"), call]))
        t.append(Message.user([tool_result_block(f"t{i}", f"body {i}")]))
        t.append(Message.assistant(f"answer {i}"))
    return t


def _marked(req: WireRequest) -> list[int]:
    """Indexes of the input items that carry an explicit breakpoint on the wire."""
    return [
        i for i, item in enumerate(openai_items(req.body)) if BREAKPOINT_FIELD in json.dumps(item)
    ]


def test_model_family() -> None:
    for model in ("gpt-5.6-terra", "gpt-5.6", "gpt-5.7", "gpt-6", "openai:gpt-5.6-terra"):
        assert openai_explicit_cache(model), model
    for model in ("gpt-5.5", "gpt-5.4-mini", "gpt-5", "gpt-4o", "claude-opus-4-7", "o3"):
        assert not openai_explicit_cache(model), model


@pytest.mark.parametrize("api", APIS)
@pytest.mark.parametrize("settings", MODES, ids=["hybrid", "implicit", "explicit"])
def test_incremental_units_equal_recomputed(api: str, settings: Settings) -> None:
    builder = make_builder(api, MODEL)
    full = _conversation(4)
    for n in range(1, len(full) + 1):
        messages = full.messages[:n]
        if messages[-1].role != "user":
            continue
        for volatile in ((), ("Now: 12:00",)):
            req = builder.build_request(_prefix(), messages, settings, SESSION, volatile)
            assert req.units == req.recomputed_units()
            fresh = make_builder(api, MODEL).build_request(
                _prefix(), messages, settings, SESSION, volatile
            )
            assert fresh.body_bytes == req.body_bytes


@pytest.mark.parametrize("api", APIS)
def test_hybrid_marks_the_stable_boundary_and_the_tail_before_volatile_text(api: str) -> None:
    builder = make_builder(api, MODEL)
    t = _conversation(2)
    plain = builder.build_request(_prefix(), t.messages[:-1], Settings(), SESSION)
    items = openai_items(plain.body)
    assert _marked(plain) == [0]  # the system/developer message, after the tools
    assert items[0]["role"] == ("system" if api == "openai-chat" else "developer")
    assert "instructions" not in plain.body  # a string cannot carry a mark
    labels = [u.breakpoint for u in plain.breakpoints()]
    assert labels == ["30m", IMPLICIT]  # OpenAI's own breakpoint covers the growing tail
    assert plain.breakpoints()[-1] == plain.units[-1]

    vol = builder.build_request(_prefix(), t.messages[:-1], Settings(), SESSION, ["Now: 12:00"])
    vitems = openai_items(vol.body)
    # The last stable message (a tool result) is marked; the volatile text never is.
    assert _marked(vol) == [0, len(vitems) - 2]
    assert breakpoint_eligible(vitems[-2])
    assert [u.breakpoint for u in vol.breakpoints()] == ["30m", "30m", IMPLICIT]


@pytest.mark.parametrize("api", APIS)
def test_explicit_mode_marks_system_and_tail_and_never_assistant_output(api: str) -> None:
    builder = make_builder(api, MODEL)
    t = _conversation(3)
    settings = Settings(openai_cache_mode="explicit")
    for n in range(1, len(t) + 1):
        if t[n - 1].role != "user":
            continue
        req = builder.build_request(_prefix(), t.messages[:n], settings, SESSION, ["Now: 12:00"])
        items = openai_items(req.body)
        marked = _marked(req)
        assert marked == [0, len(items) - 2]
        assert all(breakpoint_eligible(items[i]) for i in marked)
        assert IMPLICIT not in [u.breakpoint for u in req.units]
        assert len(req.breakpoints()) <= 4
        assert req.body["prompt_cache_options"] == {"mode": "explicit", "ttl": "30m"}


@pytest.mark.parametrize("api", APIS)
def test_cache_options_replace_retention_and_the_key_stays(api: str) -> None:
    builder = make_builder(api, MODEL)
    req = builder.build_request(_prefix(), _conversation(1), Settings(retention="24h"), SESSION)
    assert req.body["prompt_cache_options"] == {"mode": "implicit", "ttl": "30m"}
    assert "prompt_cache_retention" not in req.body  # OpenAI refuses both on one request
    assert req.body["prompt_cache_key"] == cache_key_for("s-1")


@pytest.mark.parametrize("api", APIS)
def test_older_models_are_built_as_before(api: str) -> None:
    req = make_builder(api, "gpt-5.5").build_request(
        _prefix(), _conversation(2), Settings(retention="24h"), SESSION, ["Now: 12:00"]
    )
    text = json.dumps(req.body)
    assert "prompt_cache_options" not in text and BREAKPOINT_FIELD not in text
    assert req.body["prompt_cache_retention"] == "24h"
    assert not req.breakpoints()
    if api == "openai-chat":
        assert req.body["messages"][0] == {
            "role": "system",
            "content": "You are careful.\n\nKeep it stable.",
        }
    else:
        assert req.body["instructions"] == "You are careful.\n\nKeep it stable."


def test_marking_changes_no_hashed_byte() -> None:
    # The tail mark moves every turn; the unit chains must not move with it.
    builder = make_builder("openai-chat", MODEL)
    t = _conversation(2)
    marked = builder.build_request(_prefix(), t, Settings(), SESSION, ["Now: 12:00"])
    bare = builder.build_request(
        _prefix(), t, Settings(openai_breakpoints=False), SESSION, ["Now: 12:00"]
    )
    assert [u.chain for u in marked.units] == [u.chain for u in bare.units]
    assert marked.body_bytes != bare.body_bytes


def test_settings_refuse_explicit_mode_without_breakpoints() -> None:
    with pytest.raises(ConfigError) as err:
        Settings(openai_cache_mode="explicit", openai_breakpoints=False)
    assert err.value.where == "settings.openai_breakpoints"
    with pytest.raises(ConfigError) as bad:
        Settings(openai_cache_mode="always")  # type: ignore[arg-type]
    assert bad.value.where == "settings.openai_cache_mode"


def _user_contents(req: WireRequest) -> list[Any]:
    return [i.get("content") for i in openai_items(req.body) if i.get("role") in ("user", "tool")]


def test_markable_messages_are_part_lists() -> None:
    req = make_builder("openai-chat", MODEL).build_request(
        _prefix(), _conversation(2), Settings(), SESSION
    )
    assert all(isinstance(c, list) for c in _user_contents(req))
