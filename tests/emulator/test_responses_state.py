"""The Responses API's server-side state through the official SDK: stored responses,
`previous_response_id`, conversations, retrieval, and OpenAI's errors for what it refuses."""

from __future__ import annotations

from typing import Any

import pytest

from prefixlock.cache.units import openai_units
from prefixlock.emulator import Emulator
from tests.helpers.sdk import openai

INSTRUCTIONS = "You are a careful coding assistant. Follow the repository conventions. " * 120


@pytest.fixture
def oai(emulator: Emulator) -> openai.OpenAI:
    return openai.OpenAI(api_key="org-a", base_url=emulator.openai_base_url, max_retries=0)


def _text_item(text: str) -> dict[str, Any]:
    return {"role": "user", "content": [{"type": "input_text", "text": text}]}


def test_previous_response_id_prepends_input_and_output_and_reads_the_cache(
    oai: openai.OpenAI, emulator: Emulator
) -> None:
    first_input = [{"role": "developer", "content": INSTRUCTIONS}, _text_item("Why is CI red?")]
    first = oai.responses.create(model="gpt-5.4", input=first_input)  # type: ignore[arg-type]
    assert first.usage is not None
    second = oai.responses.create(
        model="gpt-5.4", previous_response_id=first.id, input="And how do I fix it?"
    )
    assert second.previous_response_id == first.id
    # What the model saw: the first input, the first output, then the new message.
    whole = [
        *first_input,
        *[item.model_dump(exclude_none=True) for item in first.output],
        {"role": "user", "content": "And how do I fix it?"},
    ]
    seen = emulator.served("openai-responses")[-1]
    assert second.usage is not None
    assert second.usage.input_tokens == openai_units({"model": "gpt-5.4", "input": whole})[-1].end
    # The earlier prompt is a prefix of this one: its whole 128-token blocks are read.
    cached = second.usage.input_tokens_details.cached_tokens
    assert cached == first.usage.input_tokens // 128 * 128 > 1024
    assert seen.usage is not None
    # Stored: retrievable, with the input it was generated from.
    got = oai.responses.retrieve(second.id)
    assert got.id == second.id and got.output_text == second.output_text
    items = list(oai.responses.input_items.list(second.id))
    assert len(items) == len(whole)


def test_store_false_is_not_retrievable_nor_continued(oai: openai.OpenAI) -> None:
    r = oai.responses.create(model="gpt-5.4", input="hello", store=False)
    with pytest.raises(openai.NotFoundError):
        oai.responses.retrieve(r.id)
    with pytest.raises(openai.BadRequestError) as exc:
        oai.responses.create(model="gpt-5.4", previous_response_id=r.id, input="again")
    body = exc.value.body
    assert isinstance(body, dict)
    assert body["code"] == "previous_response_not_found"
    assert body["param"] == "previous_response_id"
    assert body["message"] == f"Previous response with id '{r.id}' not found."


def test_another_organization_cannot_see_a_response(oai: openai.OpenAI, emulator: Emulator) -> None:
    r = oai.responses.create(model="gpt-5.4", input="hello")
    other = openai.OpenAI(api_key="org-b", base_url=emulator.openai_base_url, max_retries=0)
    with pytest.raises(openai.NotFoundError):
        other.responses.retrieve(r.id)
    with pytest.raises(openai.BadRequestError):
        other.responses.create(model="gpt-5.4", previous_response_id=r.id, input="again")


def test_conversation_collects_items_and_unknown_ids_404(oai: openai.OpenAI) -> None:
    conv = oai.conversations.create(items=[_text_item("We are fixing the build.")])  # type: ignore[list-item]
    assert conv.id.startswith("conv_")
    one = oai.responses.create(model="gpt-5.4", conversation=conv.id, input="Start.")
    two = oai.responses.create(model="gpt-5.4", conversation={"id": conv.id}, input="Go on.")
    assert two.conversation is not None and two.conversation.id == conv.id
    assert one.usage is not None and two.usage is not None
    # The second saw the seed item, the first input and output, then its own input.
    assert two.usage.input_tokens > one.usage.input_tokens
    assert oai.conversations.retrieve(conv.id).id == conv.id
    with pytest.raises(openai.NotFoundError) as exc:
        oai.responses.create(model="gpt-5.4", conversation="conv_missing", input="x")
    assert "conv_missing" in str(exc.value)
    with pytest.raises(openai.BadRequestError) as both:
        oai.responses.create(
            model="gpt-5.4", conversation=conv.id, previous_response_id=one.id, input="x"
        )
    assert isinstance(both.value.body, dict)
    assert both.value.body["code"] == "mutually_exclusive_parameters"
    oai.conversations.delete(conv.id)
    with pytest.raises(openai.NotFoundError):
        oai.conversations.retrieve(conv.id)


def test_truncation_and_context_management_accepted_unknown_parameter_refused(
    oai: openai.OpenAI,
) -> None:
    r = oai.responses.create(
        model="gpt-5.4",
        input="hello",
        truncation="auto",
        context_management=[{"type": "compaction", "compact_threshold": 200_000}],
    )
    assert r.truncation == "auto"
    with pytest.raises(openai.BadRequestError) as exc:
        oai.responses.create(model="gpt-5.4", input="hello", extra_body={"temperatur": 1})
    body = exc.value.body
    assert isinstance(body, dict)
    assert body == {
        "message": "Unknown parameter: 'temperatur'.",
        "type": "invalid_request_error",
        "param": "temperatur",
        "code": "unknown_parameter",
    }
    with pytest.raises(openai.BadRequestError):
        oai.responses.create(model="gpt-5.4", input="hello", extra_body={"truncation": "sometimes"})


def test_every_parameter_the_sdk_knows_is_accepted() -> None:
    import inspect

    from prefixlock.emulator.openai_api import CHAT_FIELDS, RESPONSES_FIELDS

    local = {"self", "extra_headers", "extra_query", "extra_body", "timeout"}
    for method, fields in (
        (openai.resources.responses.Responses.create, RESPONSES_FIELDS),
        (openai.resources.chat.Completions.create, CHAT_FIELDS),
    ):
        params = set(inspect.signature(method).parameters) - local
        assert params <= fields, sorted(params - fields)
