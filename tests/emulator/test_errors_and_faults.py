"""Provider-shaped errors for bad input, injected faults, and the SDKs' own retries."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

import httpx
import httpx2
import pytest

from prefixlock.clock import ManualClock
from prefixlock.emulator import Emulator, EmulatorConfig, FaultSpec
from tests.helpers.sdk import anthropic, openai

if TYPE_CHECKING:  # SDK types only: the SDKs load on first use (tests.helpers.sdk)
    from anthropic.types import TextBlockParam
    from anthropic.types.message_create_params import MessageCreateParamsBase
    from openai.types.chat.completion_create_params import CompletionCreateParamsBase


GOOD_ANTHROPIC: MessageCreateParamsBase = {
    "model": "claude-sonnet-4-6",
    "max_tokens": 64,
    "messages": [{"role": "user", "content": "hello"}],
}
GOOD_CHAT: CompletionCreateParamsBase = {
    "model": "gpt-5.4",
    "messages": [{"role": "user", "content": "hello"}],
}
LIMIT = 20_000


@pytest.fixture
def small_emu() -> Iterator[Emulator]:
    with Emulator.start(config=EmulatorConfig(max_body_bytes=LIMIT), clock=ManualClock()) as emu:
        yield emu


def _post(
    emu: Emulator,
    path: str,
    content: bytes,
    *,
    key: str | None = "test-key",
    ctype: str = "application/json",
) -> httpx.Response:
    headers = {"content-type": ctype}
    if key is not None:
        headers["x-api-key"] = key
        headers["authorization"] = f"Bearer {key}"
    return httpx.post(emu.base_url + path, content=content, headers=headers, timeout=10)


def _j(obj: Any) -> bytes:
    return json.dumps(obj).encode()


BAD_INPUT = [
    # (id, path, body bytes, kwargs, status, error type)
    ("malformed-json", "/v1/messages", b'{"model": "claude', {}, 400, "invalid_request_error"),
    (
        "unknown-field",
        "/v1/messages",
        _j({**GOOD_ANTHROPIC, "temprature": 1}),
        {},
        400,
        "invalid_request_error",
    ),
    (
        "wrong-block-type",
        "/v1/messages",
        _j(
            {
                **GOOD_ANTHROPIC,
                "messages": [{"role": "user", "content": [{"type": "txt", "text": "x"}]}],
            }
        ),
        {},
        400,
        "invalid_request_error",
    ),
    (
        "content-not-list",
        "/v1/messages",
        _j({**GOOD_ANTHROPIC, "messages": [{"role": "user", "content": 42}]}),
        {},
        400,
        "invalid_request_error",
    ),
    (
        "wrong-content-type",
        "/v1/messages",
        _j(GOOD_ANTHROPIC),
        {"ctype": "text/plain"},
        400,
        "invalid_request_error",
    ),
    (
        "oversized",
        "/v1/messages",
        _j({**GOOD_ANTHROPIC, "system": "x " * LIMIT}),
        {},
        413,
        "request_too_large",
    ),
    ("no-key", "/v1/messages", _j(GOOD_ANTHROPIC), {"key": None}, 401, "authentication_error"),
    (
        "unknown-model",
        "/v1/messages",
        _j({**GOOD_ANTHROPIC, "model": "claude-nope"}),
        {},
        404,
        "not_found_error",
    ),
    (
        "openai-model-on-anthropic",
        "/v1/messages",
        _j({**GOOD_ANTHROPIC, "model": "gpt-5.4"}),
        {},
        404,
        "not_found_error",
    ),
    ("chat-malformed-json", "/v1/chat/completions", b"{not json", {}, 400, "invalid_request_error"),
    (
        "chat-unknown-field",
        "/v1/chat/completions",
        _j({**GOOD_CHAT, "foo": 1}),
        {},
        400,
        "invalid_request_error",
    ),
    (
        "chat-wrong-part-type",
        "/v1/chat/completions",
        _j({**GOOD_CHAT, "messages": [{"role": "user", "content": [{"type": "bogus"}]}]}),
        {},
        400,
        "invalid_request_error",
    ),
    (
        "chat-no-key",
        "/v1/chat/completions",
        _j(GOOD_CHAT),
        {"key": None},
        401,
        "invalid_request_error",
    ),
    (
        "chat-unknown-model",
        "/v1/chat/completions",
        _j({**GOOD_CHAT, "model": "gpt-0"}),
        {},
        404,
        "invalid_request_error",
    ),
    (
        "chat-oversized",
        "/v1/chat/completions",
        _j({**GOOD_CHAT, "messages": [{"role": "user", "content": "y " * LIMIT}]}),
        {},
        413,
        "invalid_request_error",
    ),
    (
        "responses-bad-item",
        "/v1/responses",
        _j({"model": "gpt-5.4", "input": [{"type": "telepathy"}]}),
        {},
        400,
        "invalid_request_error",
    ),
]


TOOL = {"name": "read_file", "input_schema": {"type": "object"}}
# Known Anthropic fields with a value of the wrong type: (extra body fields, field named first).
WRONG_TYPES: dict[str, tuple[dict[str, Any], str]] = {
    "stream-not-bool": ({"stream": "yes"}, "stream"),
    "temperature-not-number": ({"temperature": "hot"}, "temperature"),
    "stop-sequences-not-list": ({"stop_sequences": "END"}, "stop_sequences"),
    "metadata-not-object": ({"metadata": "user-1"}, "metadata"),
    "tool-choice-string": ({"tools": [TOOL], "tool_choice": "any"}, "tool_choice"),
    "tool-without-schema": ({"tools": [{"name": "read_file"}]}, "tools.0.input_schema"),
    "tool-names-repeated": ({"tools": [TOOL, TOOL]}, "tools"),
}
BAD_INPUT += [
    (
        f"anthropic-{name}",
        "/v1/messages",
        _j({**GOOD_ANTHROPIC, **extra}),
        {},
        400,
        "invalid_request_error",
    )
    for name, (extra, _) in WRONG_TYPES.items()
]

# OpenAI-side fields the emulator reads, with the wrong type (these used to drop the connection).
BAD_INPUT += [
    (
        f"{api}-{name}",
        path,
        _j({**good, **extra}),
        {},
        400,
        "invalid_request_error",
    )
    for api, path, good in (
        ("chat", "/v1/chat/completions", GOOD_CHAT),
        ("responses", "/v1/responses", {"model": "gpt-5.4", "input": "hello"}),
    )
    for name, extra in (
        ("cache-key-not-string", {"prompt_cache_key": 42}),
        ("stream-options-not-object", {"stream": True, "stream_options": "usage"}),
        ("retention-unknown", {"prompt_cache_retention": "forever"}),
    )
]


@pytest.mark.parametrize(("extra", "field"), WRONG_TYPES.values(), ids=list(WRONG_TYPES))
def test_wrong_field_type_names_the_field(
    small_emu: Emulator, extra: dict[str, Any], field: str
) -> None:
    resp = _post(small_emu, "/v1/messages", _j({**GOOD_ANTHROPIC, **extra}))
    assert resp.status_code == 400
    assert resp.json()["error"]["message"].startswith(f"{field}: ")
    # null is as if the field were absent
    resp = _post(small_emu, "/v1/messages", _j({**GOOD_ANTHROPIC, field.split(".")[0]: None}))
    assert resp.status_code == 200


@pytest.mark.parametrize(
    ("path", "content", "kwargs", "status", "kind"),
    [case[1:] for case in BAD_INPUT],
    ids=[case[0] for case in BAD_INPUT],
)
def test_bad_input_gets_provider_error_and_server_keeps_serving(
    small_emu: Emulator, path: str, content: bytes, kwargs: dict[str, Any], status: int, kind: str
) -> None:
    resp = _post(small_emu, path, content, **kwargs)
    assert resp.status_code == status
    err = resp.json()
    if path == "/v1/messages":
        assert err["type"] == "error" and err["error"]["type"] == kind
    else:
        assert err["error"]["type"] == kind and err["error"]["message"]
    good = _post(
        small_emu,
        path if path != "/v1/responses" else "/v1/chat/completions",
        _j(GOOD_ANTHROPIC if path == "/v1/messages" else GOOD_CHAT),
    )
    assert good.status_code == 200


def test_sdk_maps_errors_to_its_exception_types(small_emu: Emulator) -> None:
    client = anthropic.Anthropic(api_key="k", base_url=small_emu.base_url, max_retries=0)
    with pytest.raises(anthropic.NotFoundError):
        unknown_model: MessageCreateParamsBase = {**GOOD_ANTHROPIC, "model": "claude-nope"}
        client.messages.create(**unknown_model)
    with pytest.raises(anthropic.BadRequestError):
        client.messages.create(**GOOD_ANTHROPIC, extra_body={"surprise": True})
    oai = openai.OpenAI(api_key="k", base_url=small_emu.base_url + "/v1", max_retries=0)
    with pytest.raises(openai.NotFoundError):
        unknown_chat: CompletionCreateParamsBase = {**GOOD_CHAT, "model": "gpt-0"}
        oai.chat.completions.create(**unknown_chat)


def test_count_tokens_is_free_and_touches_no_cache(emulator: Emulator) -> None:
    client = anthropic.Anthropic(api_key="k", base_url=emulator.base_url, max_retries=0)
    system: list[TextBlockParam] = [
        {"type": "text", "text": "Rules. " * 800, "cache_control": {"type": "ephemeral"}}
    ]
    counted = client.messages.count_tokens(
        model="claude-sonnet-4-6", system=system, messages=[{"role": "user", "content": "hi"}]
    )
    usage = client.messages.create(
        model="claude-sonnet-4-6",
        max_tokens=10,
        system=system,
        messages=[{"role": "user", "content": "hi"}],
    ).usage
    assert usage.cache_creation_input_tokens is not None
    assert usage.cache_read_input_tokens is not None
    # Had count_tokens written the cache, this first request would read it.
    assert usage.cache_read_input_tokens == 0
    assert counted.input_tokens == (
        usage.input_tokens + usage.cache_creation_input_tokens + usage.cache_read_input_tokens
    )


def test_anthropic_529_raises_overloaded_error_without_retries(emulator: Emulator) -> None:
    emulator.inject("529")
    client = anthropic.Anthropic(api_key="k", base_url=emulator.base_url, max_retries=0)
    with pytest.raises(anthropic.OverloadedError):
        client.messages.create(**GOOD_ANTHROPIC)
    assert client.messages.create(**GOOD_ANTHROPIC).content


@pytest.fixture
def sdk_sleeps(monkeypatch: pytest.MonkeyPatch) -> list[float]:
    """The SDKs' retry waits, recorded instead of slept (the SDKs call `time.sleep`)."""
    import anthropic._base_client
    import openai._base_client

    waits: list[float] = []

    class _Time:
        """The time module, except that sleeping records the wait."""

        sleep = staticmethod(waits.append)

        def __getattr__(self, name: str) -> Any:
            return getattr(time, name)

    fake = _Time()
    monkeypatch.setattr(anthropic._base_client, "time", fake)
    monkeypatch.setattr(openai._base_client, "time", fake)
    return waits


def test_sdk_retries_through_529_and_429_honouring_retry_after(
    emulator: Emulator, sdk_sleeps: list[float]
) -> None:
    emulator.inject("529", retry_after=0.05)
    emulator.inject("429", retry_after=0.25)
    client = anthropic.Anthropic(api_key="k", base_url=emulator.base_url, max_retries=2)
    msg = client.messages.create(**GOOD_ANTHROPIC)
    assert msg.content
    assert [r.fault for r in emulator.requests] == ["529", "429", None]
    assert [r.status for r in emulator.requests] == [529, 429, 200]
    # The SDK waited exactly what the server asked (its own backoff would be 0.5 s and more).
    assert sdk_sleeps == [0.05, 0.25]
    # One retry fewer than faults: the SDK gives up and raises the last status's error type.
    emulator.inject("529", count=2, retry_after=0.01)
    once = anthropic.Anthropic(api_key="k", base_url=emulator.base_url, max_retries=1)
    with pytest.raises(anthropic.OverloadedError):
        once.messages.create(**GOOD_ANTHROPIC)
    assert sdk_sleeps == [0.05, 0.25, 0.01]


def test_retry_after_headers_are_sent(emulator: Emulator) -> None:
    emulator.inject("429", retry_after=2)
    resp = _post(emulator, "/v1/messages", _j(GOOD_ANTHROPIC))
    assert resp.status_code == 429
    assert resp.headers["retry-after"] == "2" and resp.headers["retry-after-ms"] == "2000"
    assert resp.json()["error"]["type"] == "rate_limit_error"


def test_openai_sdk_retries_500_and_429_then_succeeds(
    emulator: Emulator, sdk_sleeps: list[float]
) -> None:
    emulator.inject("500", count=1)
    oai = openai.OpenAI(api_key="k", base_url=emulator.base_url + "/v1", max_retries=0)
    with pytest.raises(openai.InternalServerError):
        oai.chat.completions.create(**GOOD_CHAT)
    emulator.inject("500", count=1)
    emulator.inject("429", retry_after=0.125)
    retrying = openai.OpenAI(api_key="k", base_url=emulator.base_url + "/v1", max_retries=2)
    assert retrying.chat.completions.create(**GOOD_CHAT).choices[0].message.content
    assert [r.status for r in emulator.requests] == [500, 500, 429, 200]
    # 500 has no retry-after: the SDK's own backoff (0.5 s, jittered down by at most a quarter);
    # the 429 asked for 0.125 s and got exactly that.
    assert 0.375 <= sdk_sleeps[0] <= 0.5 and sdk_sleeps[1:] == [0.125]


def test_cut_stream_is_an_error_for_the_client(emulator: Emulator) -> None:
    emulator.inject("cut")
    client = anthropic.Anthropic(api_key="k", base_url=emulator.base_url, max_retries=0)
    seen: list[str] = []
    # The SDK surfaces a mid-stream disconnect as the transport's protocol error.
    with (
        pytest.raises((anthropic.APIConnectionError, httpx2.RemoteProtocolError)),
        client.messages.stream(**GOOD_ANTHROPIC) as stream,
    ):
        seen.extend(event.type for event in stream)
    assert "message_stop" not in seen
    # The server keeps serving, and the cut request is on record.
    assert client.messages.create(**GOOD_ANTHROPIC).content
    assert emulator.requests[0].fault == "cut"


def test_faults_from_config_and_path_filter() -> None:
    config = EmulatorConfig(faults=[FaultSpec(kind="529", count=1, path="/v1/chat")])
    with Emulator.start(config=config, clock=ManualClock()) as emu:
        client = anthropic.Anthropic(api_key="k", base_url=emu.base_url, max_retries=0)
        assert client.messages.create(**GOOD_ANTHROPIC).content  # not on its path
        oai = openai.OpenAI(api_key="k", base_url=emu.base_url + "/v1", max_retries=0)
        with pytest.raises(openai.APIStatusError) as info:
            oai.chat.completions.create(**GOOD_CHAT)
        assert info.value.status_code == 529
        assert oai.chat.completions.create(**GOOD_CHAT).choices


def test_cut_non_streaming_and_openai_stream(emulator: Emulator) -> None:
    emulator.inject("cut", count=2)
    client = anthropic.Anthropic(api_key="k", base_url=emulator.base_url, max_retries=0)
    with pytest.raises(anthropic.APIConnectionError):
        client.messages.create(**GOOD_ANTHROPIC)
    oai = openai.OpenAI(api_key="k", base_url=emulator.base_url + "/v1", max_retries=0)
    with pytest.raises((openai.APIConnectionError, httpx2.RemoteProtocolError)):
        list(oai.chat.completions.create(**GOOD_CHAT, stream=True))


@pytest.mark.parametrize("path", ["/v1/messages", "/v1/chat/completions"])
def test_an_emulator_bug_is_a_provider_shaped_500_and_serving_goes_on(
    emulator: Emulator, monkeypatch: pytest.MonkeyPatch, path: str
) -> None:
    """An exception inside the emulator is answered, not dropped: the client gets a 500 in the
    provider's error shape naming what broke, the record says so, the next request is served."""

    def broken(*_: object) -> None:
        raise RuntimeError("script exploded")

    monkeypatch.setattr(emulator.model, "reply", broken)
    good = GOOD_ANTHROPIC if path == "/v1/messages" else GOOD_CHAT
    resp = _post(emulator, path, _j(good))
    assert resp.status_code == 500
    error = resp.json()["error"]
    assert error["type"] == ("api_error" if path == "/v1/messages" else "server_error")
    assert "RuntimeError: script exploded" in error["message"]
    assert (emulator.requests[-1].status, emulator.requests[-1].error) == (500, error["message"])
    monkeypatch.undo()
    assert _post(emulator, path, _j(good)).status_code == 200


def test_a_fault_with_count_0_never_fires() -> None:
    config = EmulatorConfig(faults=[FaultSpec(kind="529", count=0)])
    with Emulator.start(config=config, clock=ManualClock()) as emu:
        emu.inject("429", count=0)
        emu.inject("500", count=1, after=1)  # a live fault after them still counts requests
        client = anthropic.Anthropic(api_key="k", base_url=emu.base_url, max_retries=0)
        assert client.messages.create(**GOOD_ANTHROPIC).content
        with pytest.raises(anthropic.InternalServerError):
            client.messages.create(**GOOD_ANTHROPIC)
        assert [(r.status, r.fault) for r in emu.requests] == [(200, None), (500, "500")]


def test_models_list_and_retrieve_through_both_sdks(emulator: Emulator) -> None:
    client = anthropic.Anthropic(api_key="k", base_url=emulator.base_url, max_retries=0)
    oai = openai.OpenAI(api_key="k", base_url=emulator.openai_base_url, max_retries=0)
    listed = {m.id for m in oai.models.list().data}
    assert {"claude-sonnet-4-6", "gpt-5.4", "deepseek-v4-flash"} <= listed
    assert client.models.retrieve("claude-sonnet-4-6").id == "claude-sonnet-4-6"
    assert oai.models.retrieve("gpt-5.4").owned_by == "openai"
    with pytest.raises(anthropic.NotFoundError):
        client.models.retrieve("claude-nope")
    with pytest.raises(openai.NotFoundError):
        oai.models.retrieve("gpt-0")
