"""Server-side compaction on the Responses API (`context_management`), through the openai SDK.

OpenAI's compaction guide: when the rendered token count crosses `compact_threshold`, the
response carries an opaque `compaction` item (streamed, with a `response.compaction.compacting`
event); a continuation by `previous_response_id`, or an input the client appended the items
to, goes on from that item, which carries everything before it. So after a compaction the next
prompt is small again, and the same size whichever way the client chains. A compacted
response bills both of its passes: the compaction pass over the whole prompt, whose output is
the compaction item, and the inference that continues from the pruned prompt.
"""

from __future__ import annotations

from typing import Any

import pytest

from prefixlock.clock import ManualClock
from prefixlock.emulator import Emulator, EmulatorConfig
from prefixlock.emulator.model import Script, Summary
from prefixlock.emulator.openai_api import compaction_tokens
from tests.helpers.sdk import openai

LONG = "Here is the whole build log, line after line of compiler output. " * 400
COMPACT = [{"type": "compaction", "compact_threshold": 2000}]
INSTRUCTIONS = "You are a careful build engineer."


def _client(emulator: Emulator, key: str = "k") -> openai.OpenAI:
    return openai.OpenAI(api_key=key, base_url=emulator.openai_base_url, max_retries=0)


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


def test_a_prompt_typed_again_after_a_compaction_gets_a_call_id_of_its_own() -> None:
    """A compacted input counts its turns from the compaction item, so the same prompt typed
    again lands on the turn and step its first call had. Real call ids are unique in a
    conversation, and clients rely on it: openai-agents drops an input item whose call_id it
    has already seen, and its output then answers no call ("No tool call found for function
    call output", the 400 the versus suite's openai-agents peer got on seed 6)."""
    from prefixlock.clock import ManualClock
    from prefixlock.emulator import EmulatorConfig, Rule, Script, Step

    script = Script(
        rules=[
            Rule(
                match="Run the tests",
                steps=[
                    Step(text="Running them.", tool="run_tests", input={"target": "t"}),
                    Step(text="All green."),
                ],
            )
        ]
    )
    tool: Any = {
        "type": "function",
        "name": "run_tests",
        "description": "Run the tests.",
        "parameters": {"type": "object", "properties": {"target": {"type": "string"}}},
    }
    ask: Any = {"role": "user", "content": "Run the tests."}
    with Emulator.start(config=EmulatorConfig(), clock=ManualClock(), script=script) as emu:
        client = _client(emu)

        def create(items: list[Any]) -> Any:
            return client.responses.create(
                model="gpt-5.4",
                instructions=INSTRUCTIONS,
                input=items,
                tools=[tool],
                context_management=COMPACT,  # type: ignore[arg-type]
            )

        items: list[Any] = [ask]
        first = create(items)
        (call,) = [i for i in _items(first) if i["type"] == "function_call"]
        # A long tool result: the answer's request crosses the threshold and compacts.
        items += [*_items(first), {"type": "function_call_output", "call_id": call["call_id"]}]
        items[-1]["output"] = LONG
        answer = create(items)
        assert [i.type for i in answer.output] == ["compaction", "message"]
        items += [*_items(answer), ask]
        again = create(items)
        (second,) = [i for i in _items(again) if i["type"] == "function_call"]
        assert second["name"] == "run_tests"
        assert second["call_id"] != call["call_id"]
        assert second["id"] != call["id"]
        # The client sends the whole conversation with both calls answered: accepted.
        items += [*_items(again), {"type": "function_call_output", "call_id": second["call_id"]}]
        items[-1]["output"] = "3 passed"
        done = create(items)
        assert done.output_text == "All green."


def test_a_compacted_response_bills_the_compaction_pass_and_the_pruned_prompt(
    emulator: Emulator,
) -> None:
    """The same request, compacted and not (each on its own key, so neither reads the other's
    cache): the compacted one pays the compaction item as output on top of the reply, and the
    pruned prompt (instructions and the item) as input on top of the whole prompt."""
    plain = _client(emulator, "plain").responses.create(
        model="gpt-5.4", instructions=INSTRUCTIONS, input=LONG
    )
    compacted = _client(emulator, "compacting").responses.create(
        model="gpt-5.4",
        instructions=INSTRUCTIONS,
        input=LONG,
        context_management=COMPACT,  # type: ignore[arg-type]
    )
    item = _items(compacted)[0]
    pruned = _client(emulator, "pruned").responses.create(
        model="gpt-5.4", instructions=INSTRUCTIONS, input=[item]
    )
    assert plain.usage is not None and compacted.usage is not None and pruned.usage is not None
    assert compacted.output_text == plain.output_text
    made = compaction_tokens(item)
    assert made > 0
    assert compacted.usage.output_tokens == plain.usage.output_tokens + made
    assert compacted.usage.input_tokens == plain.usage.input_tokens + pruned.usage.input_tokens
    assert compacted.usage.input_tokens_details.cached_tokens == 0  # nothing cached yet
    # The emulator's record of the request (what the versus suite bills) says the same.
    billed = emulator.requests[-2].usage
    assert billed is not None and billed["output_tokens"] == compacted.usage.output_tokens


def test_the_compaction_item_is_as_long_as_the_scripts_summary() -> None:
    """A script that says how long a summary is (every client's summary request gets that many
    output tokens) makes the compaction item that long too: a server-side compaction and a
    client's own summary request cost the same output."""
    script = Script(summary=Summary(tokens=300))
    with Emulator.start(config=EmulatorConfig(), clock=ManualClock(), script=script) as emu:
        first = _client(emu).responses.create(
            model="gpt-5.4",
            input=LONG,
            context_management=COMPACT,  # type: ignore[arg-type]
        )
    assert compaction_tokens(_items(first)[0]) == 300
