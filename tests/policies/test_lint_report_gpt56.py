"""The trace report reads gpt-5.6 requests as their cache does: a `prompt_cache_breakpoint`
mark is not part of the hashed bytes, and what a request leaves readable ends at a breakpoint."""

from __future__ import annotations

from typing import Any

from prefixlock.billing.prices import PriceTable
from prefixlock.cache.units import openai_units
from prefixlock.policies.report import readable_tokens, unit_bytes, units_of

SYSTEM = "You are a meticulous assistant for the invoice service repository. " * 110


def _body(marked: bool, mode: str = "implicit") -> dict[str, Any]:
    part: dict[str, Any] = {"type": "text", "text": SYSTEM}
    if marked:
        part["prompt_cache_breakpoint"] = {"mode": "explicit"}
    return {
        "model": "gpt-5.6-terra",
        "messages": [
            {"role": "system", "content": [part]},
            {"role": "user", "content": "Why does test_parse fail?"},
        ],
        "prompt_cache_options": {"mode": mode},
    }


def test_marks_are_not_hashed() -> None:
    assert unit_bytes("openai-chat", _body(True)) == unit_bytes("openai-chat", _body(False))
    assert units_of("openai-chat", _body(True)) == openai_units(_body(True))


def test_readable_tokens_end_at_a_breakpoint() -> None:
    price = PriceTable.default().require("gpt-5.6-terra")
    implicit = units_of("openai-chat", _body(True))
    assert readable_tokens("openai-chat", implicit, price) == implicit[-1].end  # not rounded
    explicit = units_of("openai-chat", _body(True, "explicit"))
    assert readable_tokens("openai-chat", explicit, price) == explicit[-2].end  # the system mark
    older = units_of("openai-chat", {**_body(False), "model": "gpt-5.4"})
    total = older[-1].end
    assert readable_tokens("openai-chat", older, PriceTable.default().require("gpt-5.4")) == (
        total // 128 * 128
    )
