"""The proxy's guard after a stream cut before the provider reported usage (Chat Completions
and Responses report it only at the end): the request still gets its row ("billed, usage
unknown", the guard's estimate plus the output known), but the guard learns no cache entries
from it, so the next request is not predicted to read what the provider never stored, and no
false `unexplained` break follows."""

from __future__ import annotations

from typing import Any

import pytest

from prefixlock.billing.prices import PriceTable
from prefixlock.proxy.observe import Observer, wire_request

SYSTEM = "You are a careful agent. " * 400


def _body(api: str, turns: int) -> dict[str, Any]:
    msgs: list[dict[str, str]] = []
    for t in range(turns):
        msgs.append({"role": "user", "content": f"turn {t} " + "q" * 2000})
        if t < turns - 1:
            msgs.append({"role": "assistant", "content": f"answer {t} " + "a" * 500})
    if api == "openai-responses":
        return {"model": "gpt-5.4", "instructions": SYSTEM, "input": msgs, "prompt_cache_key": "k"}
    return {"model": "gpt-5.4", "messages": [{"role": "system", "content": SYSTEM}, *msgs]}


def _usage(api: str, total: int, read: int) -> dict[str, Any]:
    if api == "openai-responses":
        return {
            "input_tokens": total,
            "input_tokens_details": {"cached_tokens": read},
            "output_tokens": 5,
        }
    return {
        "prompt_tokens": total,
        "prompt_tokens_details": {"cached_tokens": read},
        "completion_tokens": 5,
    }


APIS = [("openai-chat", "/v1/chat/completions"), ("openai-responses", "/v1/responses")]


@pytest.mark.parametrize(("api", "path"), APIS)
def test_no_false_break_after_a_stream_cut_before_usage(api: str, path: str) -> None:
    obs = Observer(PriceTable.default())
    first = wire_request(api, path, _body(api, 1))
    p = obs.predict("s", first, 0.0)
    obs.observe("s", "c", first, p, _usage(api, p.input_total, 0), 0.0)
    stored_by_first = obs.guard("s").predict(wire_request(api, path, _body(api, 3)), 5.0).read
    cut = wire_request(api, path, _body(api, 2))
    p = obs.predict("s", cut, 10.0)
    seen = obs.observe("s", "c", cut, p, None, 10.0, output=40)
    assert seen.estimated and seen.usage.output == 40  # billed, usage unknown: a row all the same
    assert seen.usage.raw.get("billed_usage_unknown") is True
    nxt = wire_request(api, path, _body(api, 3))
    p = obs.predict("s", nxt, 20.0)
    # The provider stored nothing for the cut request: the next reads what the first stored.
    seen = obs.observe("s", "c", nxt, p, _usage(api, p.input_total, stored_by_first), 20.0)
    assert seen.cause is None, seen.detail
    assert obs.sessions["s"].requests == 3 and not obs.sessions["s"].breaks
