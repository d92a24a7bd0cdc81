"""Retries: 429 with retry-after, 529, 500, a cut stream and a mid-stream SSE error are retried
with an injected sleep (never a real one); the turn is recovered with no duplicated or lost
transcript entry; faults surface as events; exhausted retries end in ProviderError; 4xx is not
retried; the API key never appears in an error."""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest
import respx

from prefixlock.agent import Agent
from prefixlock.errors import ProviderError
from prefixlock.events import ProviderFault, TurnComplete
from prefixlock.prefix import FrozenPrefix
from prefixlock.settings import Settings
from tests.helpers import sse_responses as sse
from tests.helpers.httpx_bridge import cut_response

KEY = "sk-ant-very-secret-key"
URL = "https://api.anthropic.com/v1/messages"
PREFIX = FrozenPrefix(system="You help.", tools=[])


def _agent(http_client: Any, sleep: Any, model: str = "claude-haiku-4-5", **settings: Any) -> Agent:
    return Agent(
        PREFIX,
        model=model,
        api_key=KEY,
        http_client=http_client,
        sleep=sleep,
        settings=Settings(**settings),
    )


def _error(status: int, kind: str, headers: dict[str, str] | None = None) -> httpx.Response:
    return httpx.Response(
        status,
        headers=headers or {},
        json={"type": "error", "error": {"type": kind, "message": f"{kind} {KEY[:5]}"}},
    )


FAULTS = {
    "429-retry-after": (_error(429, "rate_limit_error", {"retry-after": "7"}), 7.0),
    "429-retry-after-ms": (
        _error(429, "rate_limit_error", {"retry-after-ms": "1500", "retry-after": "2"}),
        1.5,
    ),
    "529": (_error(529, "overloaded_error"), None),
    "500": (_error(500, "api_error"), None),
    "cut-stream": (
        cut_response(
            200, sse._frames(sse.anthropic_events("partial answer", stop=False)[:3], True)
        ),
        None,
    ),
    "sse-error": (
        httpx.Response(
            200,
            headers=sse.SSE,
            content=sse._frames(
                [
                    *sse.anthropic_events("hal", stop=False)[:2],
                    {
                        "type": "error",
                        "error": {"type": "overloaded_error", "message": "Overloaded"},
                    },
                ],
                True,
            ),
        ),
        None,
    ),
}


_BEGUN = ("cut-stream", "sse-error")  # faults after the stream's message_start


@pytest.mark.parametrize("fault", list(FAULTS))
async def test_fault_is_retried_without_duplicating_the_turn(
    fault: str, router: respx.Router, http_client: Any, sleeps: Any
) -> None:
    waited, sleep = sleeps
    response, expected_wait = FAULTS[fault]
    route = router.post(URL).mock(
        side_effect=[sse.anthropic("first"), response, sse.anthropic("second")]
    )
    async with _agent(http_client, sleep).session() as s:
        await s.ask("one")
        events = [e async for e in s.send("two")]
    faults = [e for e in events if isinstance(e, ProviderFault)]
    assert len(faults) == 1 and faults[0].retrying and faults[0].attempt == 1
    assert KEY not in faults[0].message
    assert isinstance(events[-1], TurnComplete) and events[-1].text == "second"
    assert len(waited) == 1
    if expected_wait is not None:
        assert waited == [expected_wait]
    assert route.call_count == 3
    # The retried request is byte-identical to the failed one; the transcript has each entry once.
    assert route.calls[1].request.content == route.calls[2].request.content
    assert [m.text for m in s.transcript] == ["one", "first", "two", "second"]
    # A stream that stopped after message_start had reported its usage: it was billed, so it
    # is a ledger row of its own (kind "abandoned", retried), never a transcript entry.
    kinds = [r.meta.get("kind", "turn") for r in s.ledger.rows]
    assert kinds == (["turn", "abandoned", "turn"] if fault in _BEGUN else ["turn", "turn"])


async def test_529_status_is_retryable_and_exhaustion_raises(
    router: respx.Router, http_client: Any, sleeps: Any
) -> None:
    waited, sleep = sleeps
    router.post(URL).mock(return_value=_error(529, "overloaded_error"))
    events: list[Any] = []
    async with _agent(http_client, sleep, retries=3).session() as s:
        with pytest.raises(ProviderError) as info:
            async for e in s.send("hello"):
                events.append(e)
    assert info.value.status == 529 and info.value.retryable
    assert KEY not in str(info.value)
    faults = [e for e in events if isinstance(e, ProviderFault)]
    assert [f.retrying for f in faults] == [True, True, True, False]
    assert len(waited) == 3 and waited == sorted(waited)  # exponential backoff
    assert len(s.transcript) == 0 and len(s.ledger) == 0  # nothing half-recorded


async def test_client_errors_are_not_retried(
    router: respx.Router, http_client: Any, sleeps: Any
) -> None:
    waited, sleep = sleeps
    route = router.post(URL).mock(return_value=_error(400, "invalid_request_error"))
    async with _agent(http_client, sleep).session() as s:
        with pytest.raises(ProviderError) as info:
            await s.ask("hello")
    assert info.value.status == 400 and not info.value.retryable
    assert route.call_count == 1 and waited == []


async def test_retry_after_is_capped(router: respx.Router, http_client: Any, sleeps: Any) -> None:
    waited, sleep = sleeps
    router.post(URL).mock(
        side_effect=[_error(429, "rate_limit_error", {"retry-after": "3600"}), sse.anthropic("ok")]
    )
    async with _agent(http_client, sleep, retry_max_wait=30).session() as s:
        assert await s.ask("hello") == "ok"
    assert waited == [30.0]


async def test_connection_error_is_retried(
    router: respx.Router, http_client: Any, sleeps: Any
) -> None:
    waited, sleep = sleeps
    router.post(URL).mock(side_effect=[httpx.ConnectError("refused"), sse.anthropic("ok")])
    async with _agent(http_client, sleep).session() as s:
        assert await s.ask("hello") == "ok"
    assert len(waited) == 1


@pytest.mark.parametrize(
    ("model", "url", "ok"),
    [
        ("openai-chat:gpt-5", "https://api.openai.com/v1/chat/completions", sse.chat),
        ("gpt-5", "https://api.openai.com/v1/responses", sse.responses),
    ],
)
async def test_openai_faults_are_retried(
    model: str, url: str, ok: Any, router: respx.Router, http_client: Any, sleeps: Any
) -> None:
    waited, sleep = sleeps
    cut = cut_response(
        200, b'data: {"id":"c","choices":[{"index":0,"delta":{"content":"par"}}]}\n\n'
    )
    stream_error = httpx.Response(
        200,
        headers=sse.SSE,
        content=(
            b'data: {"error": {"message": "server had an error", "type": "server_error"}}\n\n'
            if "chat" in url
            else b"event: error\n"
            b'data: {"type": "error", "code": "server_error", "message": "boom"}\n\n'
        ),
    )
    route = router.post(url).mock(
        side_effect=[
            httpx.Response(
                429,
                headers={"retry-after-ms": "250"},
                json={"error": {"message": "slow down", "type": "rate_limit_error"}},
            ),
            httpx.Response(503, json={"error": {"message": "unavailable"}}),
            cut,
            stream_error,
            ok(text="fine"),
        ]
    )
    agent = Agent(PREFIX, model=model, api_key=KEY, http_client=http_client, sleep=sleep)
    async with agent.session() as s:
        events = [e async for e in s.send("hello")]
    assert route.call_count == 5
    assert waited[0] == 0.25 and len(waited) == 4
    assert [type(e).__name__ for e in events if isinstance(e, ProviderFault)] == [
        "ProviderFault"
    ] * 4
    assert isinstance(events[-1], TurnComplete) and events[-1].text == "fine"
    assert [m.text for m in s.transcript] == ["hello", "fine"]
    bodies = {c.request.content for c in route.calls}
    assert len(bodies) == 1 and json.loads(bodies.pop())["stream"] is True


async def test_failed_tool_followup_keeps_results_for_next_turn(
    router: respx.Router, http_client: Any, sleeps: Any
) -> None:
    """The model's tool call is in the transcript; if the request carrying the results fails for
    good, the results go out with the next turn instead of being lost."""
    _, sleep = sleeps
    from prefixlock.tools import tool

    @tool
    def ping() -> str:
        """Ping."""
        return "pong"

    prefix = FrozenPrefix(system="s", tools=[ping])
    route = router.post(URL).mock(
        side_effect=[
            sse.anthropic(tools=[("t1", "ping", {})]),
            _error(500, "api_error"),
            sse.anthropic("done"),
        ]
    )
    agent = Agent(
        prefix,
        model="claude-haiku-4-5",
        api_key=KEY,
        http_client=http_client,
        sleep=sleep,
        settings=Settings(retries=0),
    )
    async with agent.session() as s:
        with pytest.raises(ProviderError):
            await s.ask("ping it")
        assert [m.role for m in s.transcript] == ["user", "assistant"]
        assert await s.ask("again") == "done"
    last = json.loads(route.calls[2].request.content)["messages"][-1]["content"]
    assert [b["type"] for b in last] == ["tool_result", "text"]
    assert [m.role for m in s.transcript] == ["user", "assistant", "user", "assistant"]
