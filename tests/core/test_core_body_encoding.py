"""A request's body goes to the SDK as bytes encoded once, an item at a time: the bytes and the
whole HTTP request are the ones the SDK makes from the dict, and a long body's passing peak is
about one copy of its bytes (the SDK given the dict copied it whole and then encoded it in
one piece: several times the conversation's size at every request)."""

from __future__ import annotations

import asyncio
import datetime
import json
import math
import tracemalloc
from pathlib import Path
from typing import Any

import httpx2
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from prefixlock.providers.body import encode_body
from prefixlock.providers.transport import Transport
from prefixlock.settings import Settings
from prefixlock.transcript import FrozenDict
from prefixlock.wire import WireRequest
from tests.helpers import sse_responses as sse
from tests.helpers.sdk import anthropic, openai


def _sdk_bytes(body: dict[str, Any]) -> bytes:
    """What each SDK sends for `body` given as a dict (they agree on plain JSON)."""
    from anthropic._utils._json import openapi_dumps as anthropic_dumps
    from anthropic._utils._prepare import prepare_request_data
    from openai._utils._json import openapi_dumps as openai_dumps

    a = anthropic_dumps(prepare_request_data(body, location="body"))
    assert openai_dumps(body) == a
    return a


scalars = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.text()
    | st.floats(allow_nan=False, allow_infinity=False)
)
values = st.recursive(
    scalars,
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.lists(inner, max_size=3).map(tuple)
        | st.dictionaries(st.text(max_size=6), inner, max_size=4)
        | st.dictionaries(st.text(max_size=6), inner, max_size=3).map(FrozenDict)
    ),
    max_leaves=12,
)
bodies = st.dictionaries(
    st.sampled_from(["model", "messages", "system", "tools", "max_tokens", "stream", "input"])
    | st.text(max_size=8),
    values | st.lists(values, max_size=5) | st.lists(values, max_size=3).map(tuple),
    max_size=6,
)


@settings(max_examples=150, deadline=None)
@given(bodies)
def test_the_bytes_are_the_ones_either_sdk_makes_from_the_dict(body: dict[str, Any]) -> None:
    assert encode_body(body) == _sdk_bytes(body)


def _body(messages: int) -> dict[str, Any]:
    """A conversation as the builders make it: frozen blocks, a breakpoint, tools, non-ASCII."""
    convo = [
        FrozenDict(
            role="user" if i % 2 == 0 else "assistant",
            content=(FrozenDict(type="text", text=f'turn {i}: héllo “{i}” \u2028 "q" ✓'),),
        )
        for i in range(messages)
    ]
    tool = {"name": "read_file", "input_schema": {"type": "object", "properties": {}}}
    return {
        "model": "claude-haiku-4-5",
        "max_tokens": 4096,
        "system": [{"type": "text", "text": "You help.", "cache_control": {"type": "ephemeral"}}],
        "tools": [tool],
        "messages": convo,
        "stream": True,
        "temperature": 0.5,
    }


@pytest.mark.parametrize(
    "odd",
    [
        math.nan,
        math.inf,
        {1, 2},
        datetime.date(2026, 1, 2),
        Path("a.png"),
        "NOT_GIVEN",  # the SDK's sentinel (taken from the SDK in the test)
        object(),
    ],
    ids=["nan", "inf", "set", "date", "path", "not-given", "object"],
)
def test_what_only_the_sdk_can_encode_is_left_to_it(odd: Any) -> None:
    if odd == "NOT_GIVEN":
        odd = anthropic.NOT_GIVEN
    body = _body(2)
    assert encode_body({**body, "extra": odd}) is None
    assert encode_body({**body, "messages": [*body["messages"], {"content": [odd]}]}) is None
    odd_key: dict[Any, Any] = {1: "a key the encoder would turn into text"}
    assert encode_body(odd_key) is None


def _sse(api: str) -> httpx2.Response:
    if api == "anthropic":
        data = sse._frames(sse.anthropic_events("ok"), True)
    else:
        data = sse.chat("ok").content
    return httpx2.Response(200, headers=sse.SSE, content=data)


async def _sent(api: str, body: dict[str, Any], through_transport: bool) -> httpx2.Request:
    seen: list[httpx2.Request] = []

    async def handler(request: httpx2.Request) -> httpx2.Response:
        seen.append(request)
        return _sse(api)

    client = httpx2.AsyncClient(transport=httpx2.MockTransport(handler))
    path = "/v1/messages" if api == "anthropic" else "/v1/chat/completions"
    t = Transport(api, "sk-test", "https://example.test", Settings(), http_client=client)
    if through_transport:
        async for _ in t.stream(WireRequest(api, "m", path, body)):
            pass
    else:  # the SDK's own way: the dict as `body`
        sdk = anthropic if api == "anthropic" else openai
        stream = await t.client().post(
            path.removeprefix("/v1") if api != "anthropic" else path,
            body=body,
            cast_to=object,
            stream=True,
            stream_cls=sdk.AsyncStream[object],
        )
        await stream.close()
    await t.aclose()
    (request,) = seen
    return request


@pytest.mark.parametrize("api", ["anthropic", "openai-chat"])
def test_the_request_on_the_wire_is_the_one_the_sdk_makes_from_the_dict(api: str) -> None:
    body = _body(40)
    ours = asyncio.run(_sent(api, body, through_transport=True))
    theirs = asyncio.run(_sent(api, body, through_transport=False))
    assert ours.method == theirs.method == "POST"
    assert ours.url == theirs.url
    assert ours.content == theirs.content
    assert json.loads(ours.content) == json.loads(json.dumps(body))
    assert list(ours.headers.multi_items()) == list(theirs.headers.multi_items())


def test_a_body_only_the_sdk_can_encode_is_still_sent_by_it() -> None:
    body = {**_body(3), "metadata": {"day": datetime.date(2026, 1, 2)}}
    sent = asyncio.run(_sent("anthropic", body, through_transport=True))
    assert json.loads(sent.content)["metadata"] == {"day": "2026-01-02"}


def test_a_long_bodys_passing_peak_is_about_one_copy_of_its_bytes() -> None:
    """The whole send (encoding, the SDK, the HTTP request) of a 3,000-message body stays
    under twice its bytes above what was live before (1.15x here; the dict given to the SDK:
    13x)."""
    body = _body(3000)
    size = len(_sdk_bytes(body))

    async def send() -> None:
        await _sent("anthropic", body, through_transport=True)

    asyncio.run(send())  # the SDK's imports and first-use caches, outside the measure
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        asyncio.run(send())
        peak = tracemalloc.get_traced_memory()[1] - before
    finally:
        tracemalloc.stop()
    assert size > 200_000
    assert peak < 2 * size, (peak, size)
