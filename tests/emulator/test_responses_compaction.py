"""Server-side compaction on the Responses API (`context_management`), through the openai SDK.

OpenAI's compaction guide: when the rendered token count crosses `compact_threshold`, the
response carries an opaque `compaction` item (streamed, with a `response.compaction.compacting`
event); a continuation by `previous_response_id`, or an input the client appended the items
to, goes on from that item, which carries everything before it. So after a compaction the next
prompt is small again, and the same size whichever way the client chains.
"""

from __future__ import annotations

from typing import Any

import pytest

from prefixlock.emulator import Emulator
from tests.helpers.sdk import openai

LONG = "Here is the whole build log, line after line of compiler output. " * 400
COMPACT = [{"type": "compaction", "compact_threshold": 2000}]
INSTRUCTIONS = "You are a careful build engineer."


def _client(emulator: Emulator) -> openai.OpenAI:
    return openai.OpenAI(api_key="k", base_url=emulator.openai_base_url, max_retries=0)


def _items(response: Any) -> Any:
    return [item.model_dump(exclude_none=True) for item in response.output]


def test_past_the_threshold_the_response_carries_a_compaction_item(emulator: Emulator) -> None:
    client = _client(emulator)
    first = client.responses.create(
        model="gpt-5.4",
        instructions=INSTRUCTIONS,
        input=LONG,
        context_management=COMPACT,  # type: ignore[arg-type]
    )
    assert first.usage is not None and first.usage.input_tokens > 2000
    kinds = [item.type for item in first.output]
    assert kinds == ["compaction", "message"]
    compaction = _items(first)[0]
    assert compaction["id"].startswith("cmp_")
    assert len(compaction["encrypted_content"]) < len(LONG) / 5  # fewer tokens than it replaces
    assert first.output_text  # the answer still comes

    # By previous_response_id: the next prompt starts at the compaction item.
    chained = client.responses.create(
        model="gpt-5.4",
        instructions=INSTRUCTIONS,
        previous_response_id=first.id,
        input="Which step failed?",
        context_management=COMPACT,  # type: ignore[arg-type]
    )
    assert chained.usage is not None
    assert chained.usage.input_tokens < first.usage.input_tokens / 4
    assert [item.type for item in chained.output] == ["message"]  # under the threshold now

    # Stateless chaining, appending everything: the items before the compaction item are not
    # rendered, so the prompt is the same size as the chained one...
    question: Any = {"role": "user", "content": "Which step failed?"}
    appended = client.responses.create(
        model="gpt-5.4",
        instructions=INSTRUCTIONS,
        input=[{"role": "user", "content": LONG}, *_items(first), question],
    )
    assert appended.usage is not None
    assert appended.usage.input_tokens == chained.usage.input_tokens
    # ... and dropping them (the guide's latency tip) changes nothing.
    pruned = client.responses.create(
        model="gpt-5.4",
        instructions=INSTRUCTIONS,
        input=[*_items(first), question],
    )
    assert pruned.usage is not None
    assert pruned.usage.input_tokens == chained.usage.input_tokens


def test_under_the_threshold_or_without_one_nothing_is_compacted(emulator: Emulator) -> None:
    client = _client(emulator)
    short = client.responses.create(
        model="gpt-5.4",
        input="hi",
        context_management=COMPACT,  # type: ignore[arg-type]
    )
    assert [item.type for item in short.output] == ["message"]
    unset = client.responses.create(
        model="gpt-5.4",
        input=LONG,
        context_management=[{"type": "compaction"}],
    )
    assert [item.type for item in unset.output] == ["message"]


def test_the_stream_says_it_is_compacting(emulator: Emulator) -> None:
    client = _client(emulator)
    kinds: list[str] = []
    with client.responses.stream(
        model="gpt-5.4",
        input=LONG,
        context_management=COMPACT,  # type: ignore[arg-type]
    ) as stream:
        for event in stream:
            kinds.append(event.type)
        final = stream.get_final_response()
    assert "response.compaction.compacting" in kinds
    assert kinds.index("response.compaction.compacting") < kinds.index("response.output_text.delta")
    assert [item.type for item in final.output] == ["compaction", "message"]


def test_a_compaction_item_needs_its_content(emulator: Emulator) -> None:
    client = _client(emulator)
    items: Any = [{"type": "compaction"}, {"role": "user", "content": "go on"}]
    with pytest.raises(openai.BadRequestError) as exc:
        client.responses.create(model="gpt-5.4", input=items)
    assert isinstance(exc.value.body, dict)
    assert exc.value.body["param"] == "input[0].encrypted_content"
