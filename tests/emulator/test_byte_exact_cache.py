"""Byte-exact caching through the official SDKs: the cache hashes what the client sent.

Anthropic documents that its prompt cache matches byte for byte and that a `tool_use` input
re-sent with its keys in another order (as some languages' JSON encoders do) breaks it. The
emulator and the guard hash free-form JSON (tool inputs, schemas) in the client's key order and
the API's own structure (block keys) in a fixed one, so reordering the structure changes nothing.
"""

from __future__ import annotations

from typing import Any

from prefixlock.billing.usage import Usage
from prefixlock.cache.units import anthropic_units, unit_bytes
from prefixlock.canonical import canonical_bytes
from prefixlock.emulator import Emulator
from prefixlock.guard.cacheguard import CacheGuard
from prefixlock.wire import WireRequest
from tests.helpers.sdk import anthropic, openai

SYSTEM = "You are a careful coding assistant. Follow the repository conventions. " * 120
EPH = {"type": "ephemeral"}


def _conversation(tool_input: dict[str, Any], *, swap_block_keys: bool = False) -> dict[str, Any]:
    use: dict[str, Any] = {"type": "tool_use", "id": "toolu_1", "name": "read", "input": tool_input}
    if swap_block_keys:  # the API's structure in another order: not part of the prompt
        use = {"input": tool_input, "name": "read", "id": "toolu_1", "type": "tool_use"}
    return {
        "model": "claude-sonnet-4-6",
        "max_tokens": 64,
        "system": [{"type": "text", "text": SYSTEM, "cache_control": EPH}],
        "messages": [
            {"role": "user", "content": "Read the settings module, please. " * 30},
            {"role": "assistant", "content": [{"type": "text", "text": "Reading it."}, use]},
            {
                "role": "user",
                "content": [
                    {
                        "type": "tool_result",
                        "tool_use_id": "toolu_1",
                        "content": "settings: ttl=5m " * 40,
                        "cache_control": EPH,
                    }
                ],
            },
        ],
    }


ORDERED = {"path": "harness/settings.py", "start": 1, "end": 200}
REORDERED = {"end": 200, "path": "harness/settings.py", "start": 1}


def _read(client: anthropic.Anthropic, body: dict[str, Any]) -> Usage:
    u = client.messages.create(**body).usage
    w = u.cache_creation
    return Usage(
        u.input_tokens,
        u.cache_read_input_tokens or 0,
        w.ephemeral_5m_input_tokens if w else 0,
        w.ephemeral_1h_input_tokens if w else 0,
        u.output_tokens,
    )


def _wire(body: dict[str, Any]) -> WireRequest:
    units = tuple(anthropic_units(body))
    return WireRequest("anthropic", body["model"], "/v1/messages", body, units)


def test_unit_bytes_keep_free_form_order_and_sort_structure() -> None:
    a = {"type": "tool_use", "input": ORDERED}
    b = {"input": REORDERED, "type": "tool_use"}
    assert canonical_bytes(a) == canonical_bytes(b)
    assert unit_bytes(a) != unit_bytes(b)
    assert unit_bytes({"input": ORDERED, "type": "tool_use"}) == unit_bytes(a)
    # A canonical body (what prefixlock sends) hashes as its canonical bytes.
    canonical = {"input": dict(sorted(ORDERED.items())), "type": "x"}
    assert unit_bytes(canonical) == canonical_bytes(canonical)


def test_reordered_tool_input_misses_from_that_block_and_the_guard_names_it(
    emulator: Emulator,
) -> None:
    client = anthropic.Anthropic(api_key="k", base_url=emulator.base_url, max_retries=0)
    guard = CacheGuard()
    first = _conversation(ORDERED)
    req = _wire(first)
    guard.observe(req, guard.predict(req, 0.0), _read(client, first), 0.0)
    assert guard.last_cached_tokens == req.input_tokens

    # The structure reordered: the same prompt, read in full.
    same = _conversation(ORDERED, swap_block_keys=True)
    assert _read(client, same).cache_read == req.input_tokens

    again = _conversation(REORDERED)
    pred = guard.predict(_wire(again), 0.0)
    assert pred.cause == "key_order"
    assert "another order" in pred.detail
    units = anthropic_units(again)
    system_end = [u for u in units if u.section == "system"][-1].end
    assert pred.read == system_end  # the tool_use block and everything after it miss
    got = _read(client, again)
    assert got.cache_read == system_end
    assert got.cache_write_5m == units[-1].end - system_end
    brk = guard.observe(_wire(again), pred, got, 0.0)
    assert brk is not None and brk.cause == "key_order"
    assert brk.tokens_rebilled == req.input_tokens - system_end


def test_openai_tool_schema_reordered_misses_from_that_tool(emulator: Emulator) -> None:
    client = openai.OpenAI(api_key="k", base_url=emulator.base_url + "/v1", max_retries=0)

    def body(props: dict[str, Any]) -> dict[str, Any]:
        tool = {
            "type": "function",
            "function": {
                "name": "read",
                "description": "read a file",
                "parameters": {"type": "object", "properties": props},
            },
        }
        return {
            "model": "gpt-4.1",
            "messages": [
                {"role": "system", "content": SYSTEM},
                {"role": "user", "content": "What changed in the settings module?"},
            ],
            "tools": [tool],
        }

    props = {"path": {"type": "string"}, "start": {"type": "integer"}}
    first = body(props)
    client.chat.completions.create(**first)

    def cached(b: dict[str, Any]) -> int:
        u = client.chat.completions.create(**b).usage
        assert u is not None and u.prompt_tokens_details is not None
        return u.prompt_tokens_details.cached_tokens or 0

    full = cached(first)
    assert full > 1024
    # The function's own keys in another order: structure, the same prompt.
    tool = first["tools"][0]
    function = dict(reversed(tool["function"].items()))
    turned = {**first, "tools": [{"function": function, "type": "function"}]}
    assert cached(turned) == full
    # Its parameter schema's keys in another order: the tool, and all after it, miss.
    assert cached(body(dict(reversed(list(props.items()))))) == 0
