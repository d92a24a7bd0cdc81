"""Requests the real APIs refuse get each provider's error (status, type, message), through the
official SDKs: tool results without their call, calls without their result, empty or
whitespace-only text (also with a breakpoint), a prefill ending in whitespace, `max_tokens` on
reasoning models, more than 4 breakpoints, 1h after 5m."""

from __future__ import annotations

from typing import Any

import pytest

from prefixlock.emulator import Emulator
from tests.helpers.sdk import anthropic, openai

USE = {"type": "tool_use", "id": "toolu_1", "name": "read", "input": {"path": "a.py"}}
RESULT = {"type": "tool_result", "tool_use_id": "toolu_1", "content": "print(1)"}
TOOLS = [{"name": "read", "input_schema": {"type": "object", "properties": {}}}]
EPH = {"type": "ephemeral"}


def _user(*blocks: dict[str, Any]) -> dict[str, Any]:
    return {"role": "user", "content": list(blocks)}


def _text(text: str, **extra: Any) -> dict[str, Any]:
    return {"type": "text", "text": text, **extra}


ANTHROPIC_CASES: dict[str, tuple[list[dict[str, Any]], dict[str, Any], str]] = {
    "tool_result without tool_use": (
        [_user(_text("hi")), {"role": "assistant", "content": "ok"}, _user(RESULT)],
        {},
        "messages.2.content.0: unexpected `tool_use_id` found in `tool_result` blocks: toolu_1. "
        "Each `tool_result` block must have a corresponding `tool_use` block in the previous "
        "message.",
    ),
    "tool_use without tool_result next": (
        [_user(_text("hi")), {"role": "assistant", "content": [USE]}, _user(_text("and?"))],
        {},
        "messages.1: `tool_use` ids were found without `tool_result` blocks immediately after: "
        "toolu_1. Each `tool_use` block must have a corresponding `tool_result` block in the "
        "next message.",
    ),
    "empty text block": (
        [_user(_text(""), _text("hi"))],
        {},
        "messages: text content blocks must be non-empty",
    ),
    "whitespace-only text block": (
        [_user(_text(" \n\t"), _text("hi"))],
        {},
        "messages: text content blocks must contain non-whitespace text",
    ),
    "final assistant message ending in whitespace": (
        [_user(_text("hi")), {"role": "assistant", "content": [_text("The answer is ")]}],
        {},
        "messages: final assistant content cannot end with trailing whitespace",
    ),
    "final assistant string ending in a newline": (
        [_user(_text("hi")), {"role": "assistant", "content": "Sure:\n"}],
        {},
        "messages: final assistant content cannot end with trailing whitespace",
    ),
    "empty text block with cache_control": (
        [_user(_text("hi"), _text("", cache_control=EPH))],
        {},
        "messages.0.content.1.text: cache_control cannot be set for empty text blocks",
    ),
    "empty user message": (
        [
            {"role": "user", "content": ""},
            {"role": "assistant", "content": "ok"},
            _user(_text("hi")),
        ],
        {},
        "messages.0: all messages must have non-empty content except for the optional final "
        "assistant message",
    ),
    "five breakpoints": (
        [_user(*[_text(f"part {i}", cache_control=EPH) for i in range(5)])],
        {},
        "A maximum of 4 blocks with cache_control may be provided. Found 5.",
    ),
    "1h after 5m": (
        [
            _user(
                _text("a", cache_control=EPH),
                _text("b", cache_control={"type": "ephemeral", "ttl": "1h"}),
            )
        ],
        {},
        "messages.0.content.1.cache_control.ttl: a ttl='1h' cache_control block must not come "
        "after a ttl='5m' cache_control block. Note that blocks are processed in the following "
        "order: `tools`, `system`, `messages`.",
    ),
    "image of an unknown media type": (
        [
            _user(
                {
                    "type": "image",
                    "source": {"type": "base64", "media_type": "image/bmp", "data": "Qk0="},
                }
            )
        ],
        {},
        "messages.0.content.0.image.source.base64.media_type: Input should be 'image/jpeg', "
        "'image/png', 'image/gif' or 'image/webp'",
    ),
}


def _args(messages: list[dict[str, Any]], extra: dict[str, Any]) -> dict[str, Any]:
    """Keyword arguments as plain dicts (these bodies are deliberately not the SDK's types)."""
    return {"tools": TOOLS, "messages": messages, **extra}


@pytest.mark.parametrize("case", sorted(ANTHROPIC_CASES))
def test_anthropic_refuses_with_its_error(emulator: Emulator, case: str) -> None:
    client = anthropic.Anthropic(api_key="k", base_url=emulator.base_url, max_retries=0)
    messages, extra, message = ANTHROPIC_CASES[case]
    with pytest.raises(anthropic.BadRequestError) as exc:
        client.messages.create(model="claude-sonnet-4-6", max_tokens=16, **_args(messages, extra))
    body = exc.value.body
    assert isinstance(body, dict)
    assert body["error"] == {"type": "invalid_request_error", "message": message}


def test_anthropic_accepts_the_valid_forms(emulator: Emulator) -> None:
    client = anthropic.Anthropic(api_key="k", base_url=emulator.base_url, max_retries=0)
    ok = [
        _user(_text("hi")),
        {"role": "assistant", "content": [_text("Reading."), USE]},
        _user(RESULT, _text("go on")),
        {"role": "assistant", "content": ""},  # an empty final assistant message: a prefill
    ]
    msg = client.messages.create(model="claude-sonnet-4-6", max_tokens=16, **_args(ok, {}))
    assert msg.usage.input_tokens > 0
    # Whitespace inside text, and a prefill that ends in a word, are fine.
    ok[-1] = {"role": "assistant", "content": [_text("  Indented:\n    x =")]}
    ok[-2] = _user(RESULT, _text("  go on\n"))
    msg = client.messages.create(model="claude-sonnet-4-6", max_tokens=16, **_args(ok, {}))
    assert msg.usage.input_tokens > 0


CALL = {"id": "call_1", "type": "function", "function": {"name": "read", "arguments": "{}"}}
OPENAI_CASES: dict[str, tuple[dict[str, Any], str, str | None, str | None]] = {
    "tool message without tool_calls": (
        {
            "model": "gpt-4.1",
            "messages": [
                {"role": "user", "content": "hi"},
                {"role": "tool", "tool_call_id": "call_1", "content": "x"},
            ],
        },
        "Invalid parameter: messages with role 'tool' must be a response to a preceeding "
        "message with 'tool_calls'.",
        "messages.[1].role",
        None,
    ),
    "tool_calls not answered": (
        {
            "model": "gpt-4.1",
            "messages": [
                {"role": "user", "content": "hi"},
                {"role": "assistant", "tool_calls": [CALL]},
                {"role": "user", "content": "and?"},
            ],
        },
        "An assistant message with 'tool_calls' must be followed by tool messages responding "
        "to each 'tool_call_id'. The following tool_call_ids did not have response messages: "
        "call_1",
        "messages.[2].role",
        None,
    ),
    "max_tokens on a reasoning model": (
        {"model": "gpt-5.4", "max_tokens": 10, "messages": [{"role": "user", "content": "hi"}]},
        "Unsupported parameter: 'max_tokens' is not supported with this model. Use "
        "'max_completion_tokens' instead.",
        "max_tokens",
        "unsupported_parameter",
    ),
}


@pytest.mark.parametrize("case", sorted(OPENAI_CASES))
def test_openai_chat_refuses_with_its_error(emulator: Emulator, case: str) -> None:
    client = openai.OpenAI(api_key="k", base_url=emulator.openai_base_url, max_retries=0)
    body, message, param, code = OPENAI_CASES[case]
    with pytest.raises(openai.BadRequestError) as exc:
        client.chat.completions.create(**body)
    assert exc.value.body == {
        "message": message,
        "type": "invalid_request_error",
        "param": param,
        "code": code,
    }


def test_openai_responses_refuses_an_output_without_its_call(emulator: Emulator) -> None:
    client = openai.OpenAI(api_key="k", base_url=emulator.openai_base_url, max_retries=0)
    with pytest.raises(openai.BadRequestError) as exc:
        client.responses.create(
            model="gpt-5.4",
            input=[
                {"role": "user", "content": "hi"},
                {"type": "function_call_output", "call_id": "call_9", "output": "x"},
            ],
        )
    assert isinstance(exc.value.body, dict)
    message = "No tool call found for function call output with call_id call_9."
    assert exc.value.body["message"] == message


def test_openai_responses_refuses_a_call_without_its_output(emulator: Emulator) -> None:
    client = openai.OpenAI(api_key="k", base_url=emulator.openai_base_url, max_retries=0)
    call: Any = {"type": "function_call", "call_id": "call_7", "name": "read", "arguments": "{}"}
    with pytest.raises(openai.BadRequestError) as exc:
        client.responses.create(
            model="gpt-5.4",
            input=[{"role": "user", "content": "hi"}, call, {"role": "user", "content": "and?"}],
        )
    assert exc.value.body == {
        "message": "No tool output found for function call call_7.",
        "type": "invalid_request_error",
        "param": "input",
        "code": None,
    }
    # Answered, the same input is served.
    output: Any = {"type": "function_call_output", "call_id": "call_7", "output": "print(1)"}
    reply = client.responses.create(
        model="gpt-5.4",
        input=[{"role": "user", "content": "hi"}, call, output],
    )
    assert reply.status == "completed"


def test_a_continuation_answers_the_call_of_the_response_it_continues(
    emulator: Emulator,
) -> None:
    """With previous_response_id, the earlier response's function_call is in the context: the
    new input's output answers it, and leaving it unanswered is refused the same way."""
    client = openai.OpenAI(api_key="k", base_url=emulator.openai_base_url, max_retries=0)
    call: Any = {"type": "function_call", "call_id": "call_8", "name": "read", "arguments": "{}"}
    items: Any = [
        {"role": "user", "content": "hi"},
        call,
        {"type": "function_call_output", "call_id": "call_8", "output": "x"},
    ]
    first = client.responses.create(model="gpt-5.4", input=items)
    second = client.responses.create(
        model="gpt-5.4", previous_response_id=first.id, input="and then?"
    )
    assert second.status == "completed"
    lone = client.responses.create(model="gpt-5.4", input=[{"role": "user", "content": "go"}])
    with pytest.raises(openai.BadRequestError) as exc:
        client.responses.create(model="gpt-5.4", previous_response_id=lone.id, input=[call])
    assert isinstance(exc.value.body, dict)
    assert exc.value.body["message"] == "No tool output found for function call call_8."


# ---- images and documents (prefixlock.emulator.media_checks) ---------------------------------


def _png_b64() -> str:
    import base64

    from prefixlock.testing import sample_png

    return base64.b64encode(sample_png(8, 8)).decode()


MEDIA_ANTHROPIC: dict[str, tuple[dict[str, Any], str]] = {
    "png bytes sent as jpeg": (
        {"type": "image", "source": {"type": "base64", "media_type": "image/jpeg", "data": "PNG"}},
        "messages.0.content.0.image.source.base64: The image was specified using the image/jpeg "
        "media type, but the image appears to be a image/png image",
    ),
    "not base64": (
        {
            "type": "image",
            "source": {"type": "base64", "media_type": "image/png", "data": "@@not base64@@"},
        },
        "messages.0.content.0.image.source.base64.data: Invalid base64 data",
    ),
    "a document that is not a PDF": (
        {
            "type": "document",
            "source": {"type": "base64", "media_type": "application/pdf", "data": "PNG"},
        },
        "messages.0.content.0.document.source.base64.data: The PDF specified was not valid.",
    ),
}


@pytest.mark.parametrize("case", sorted(MEDIA_ANTHROPIC))
def test_anthropic_refuses_bad_media(emulator: Emulator, case: str) -> None:
    block, message = MEDIA_ANTHROPIC[case]
    source = dict(block["source"])
    if source["data"] == "PNG":
        source["data"] = _png_b64()
    client = anthropic.Anthropic(base_url=emulator.base_url, api_key="k", max_retries=0)
    with pytest.raises(anthropic.BadRequestError) as err:
        client.messages.create(
            model="claude-sonnet-4-6",
            max_tokens=10,
            **_args([_user({**block, "source": source})], {}),
        )
    body = err.value.body
    assert isinstance(body, dict)
    assert body["error"]["message"] == message


MEDIA_OPENAI: dict[str, tuple[str, dict[str, Any], str]] = {
    "chat: a data URL of a text file": (
        "chat",
        {"type": "image_url", "image_url": {"url": "data:image/png;base64,aGVsbG8="}},
        "You uploaded an unsupported image. Please make sure your image has one of the "
        "following formats: ['png', 'jpeg', 'gif', 'webp'].",
    ),
    "chat: detail medium": (
        "chat",
        {"type": "image_url", "image_url": {"url": "PNG", "detail": "medium"}},
        "Invalid value: 'medium'. Supported values are: 'low', 'high', and 'auto'.",
    ),
    "chat: a file part without data": (
        "chat",
        {"type": "file", "file": {"filename": "a.pdf"}},
        "Missing required parameter: one of 'messages[0].content[0].file.file_data', "
        "'messages[0].content[0].file.file_id'.",
    ),
    "responses: an image without its URL": (
        "responses",
        {"type": "input_image", "detail": "auto"},
        "Missing required parameter: 'input[0].content[0].image_url'.",
    ),
    "responses: an image URL that is a path": (
        "responses",
        {"type": "input_image", "detail": "auto", "image_url": "/tmp/cat.png"},
        "Invalid 'input[0].content[0].image_url': expected a URL.",
    ),
}


@pytest.mark.parametrize("case", sorted(MEDIA_OPENAI))
def test_openai_refuses_bad_media(emulator: Emulator, case: str) -> None:
    api, part, message = MEDIA_OPENAI[case]
    inner = part.get("image_url")
    if isinstance(inner, dict) and inner.get("url") == "PNG":
        part = {**part, "image_url": {**inner, "url": "data:image/png;base64," + _png_b64()}}
    client = openai.OpenAI(base_url=emulator.openai_base_url, api_key="k", max_retries=0)
    # Deliberately not the SDK's types: bodies the API refuses.
    messages: Any = [{"role": "user", "content": [part]}]
    with pytest.raises(openai.BadRequestError) as err:
        if api == "chat":
            client.chat.completions.create(model="gpt-5", messages=messages)
        else:
            client.responses.create(model="gpt-5", input=messages)
    body = err.value.body
    assert isinstance(body, dict)
    assert body["message"] == message
