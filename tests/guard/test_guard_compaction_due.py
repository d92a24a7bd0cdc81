"""`Settings(compact_at=...)` compacts before the turn whose requests would pass the threshold:
the context the next request carries (the last request and the reply it got, not the last
request alone, which would leave a whole turn to run past the threshold before compacting),
plus what a turn is expected to add (`compaction.turn_growth`: the session compacts only
between turns, where a client that checks every request compacts inside the turn)."""

from __future__ import annotations

from typing import Any

from prefixlock.guard.compaction import turn_growth
from prefixlock.prefix import SUMMARY_HEADER
from prefixlock.settings import Settings
from prefixlock.transcript import Message, tool_result_block
from tests.helpers.guardkit import advance, agent, first_turn_sizes, start_emulator, turn

MODEL = "claude-sonnet-4-6"
PROMPTS = (
    "Turn 1: look at src/app.py and tell me what f1 does.",
    "Turn 2: look at src/app.py and tell me what f2 does.",
)


async def _kinds_after_two_turns(threshold: float) -> list[str]:
    with start_emulator() as emu:
        a = agent(emu, model=MODEL, settings=Settings(compact_at=threshold))
        async with a.session() as s:
            for prompt in PROMPTS:
                await turn(s, prompt)
                advance(emu, 20)
            return [str(r.meta.get("kind", "turn")) for r in s.requests]


async def _first_turn_growth() -> int:
    with start_emulator() as emu:
        async with agent(emu, model=MODEL).session() as s:
            await turn(s, PROMPTS[0])
            return turn_growth(s.transcript.messages)


async def test_the_reply_that_takes_the_context_past_the_threshold_compacts_the_next_turn() -> None:
    last, reply, window = await first_turn_sizes(MODEL, PROMPTS[0])
    assert reply >= 2
    # The threshold falls inside the reply: the last request is under it, the context the
    # second turn sends is past it, so the summary goes before the second turn's requests.
    inside = await _kinds_after_two_turns((last + reply / 2) / window)
    assert inside.count("summary") == 1
    assert inside[inside.index("summary") - 1 :].count("turn") > 1  # then the turn, compacted


async def test_a_turn_expected_to_pass_the_threshold_compacts_before_it() -> None:
    last, reply, window = await first_turn_sizes(MODEL, PROMPTS[0])
    growth = await _first_turn_growth()
    assert growth > reply  # the prompt, the tool call and its result, the answer
    # Past the context the second turn starts from, inside what the turn will add: its
    # requests would run past the threshold, so the summary goes first.
    inside = await _kinds_after_two_turns((last + reply + growth // 2) / window)
    assert inside.count("summary") == 1
    assert inside.index("summary") == 2  # after the first turn's two requests
    # Past what the turn adds as well: nothing to compact before the second turn.
    past = await _kinds_after_two_turns((last + reply + growth + 1) / window)
    assert "summary" not in past


def test_turn_growth_is_the_mean_of_the_latest_whole_turns() -> None:
    def one_turn(prompt: str, result: str, answer: str) -> list[Message]:
        call = {"type": "tool_use", "id": "t1", "name": "read_file", "input": {"path": "a"}}
        return [
            Message.user(prompt),
            Message.assistant([call]),
            Message.user([tool_result_block("t1", result)]),
            Message.assistant(answer),
        ]

    small = one_turn("one", "short", "ok")
    large = one_turn("two", "a much longer tool result " * 20, "a longer answer " * 5)
    size = sum(m.tokens for m in small), sum(m.tokens for m in large)
    assert turn_growth([]) == 0
    assert turn_growth(small) == size[0]  # a tool result does not start a turn
    assert turn_growth([*small, *large]) == sum(size) // 2
    assert turn_growth([*small, *large], turns=1) == size[1]
    # A summary the compaction put in the messages is no turn: turns before it are not counted.
    summary = [Message.user(SUMMARY_HEADER + "done"), Message.assistant("Understood.")]
    assert turn_growth([*large, *summary, *small]) == size[0]


def test_a_turn_s_growth_reads_no_tool_result_s_blocks(monkeypatch: Any) -> None:
    # Read at every turn's end: a tool result (a whole file, often) is known as one from its
    # message's bytes; only the prompts are decoded. And the answer is the one the blocks give.
    from prefixlock.transcript import text_block, tool_use_block

    messages: list[Message] = []
    for i in range(7):
        messages.append(Message.user(f"prompt {i}"))
        for k in range(3):
            messages.append(Message.assistant([tool_use_block(f"t{i}{k}", "read", {})]))
            messages.append(Message.user([tool_result_block(f"t{i}{k}", "y" * 5000)]))
        messages.append(Message.assistant("done"))
    # Not first, or named in a text: these are read from their blocks.
    late = Message.user([text_block("see:"), tool_result_block("t", "out")])
    named = Message.user('{"type":"tool_result"} is a type')
    loose = Message("user", ({"type": "tool_result", "tool_use_id": "t", "content": "x"},))
    assert [m.has_tool_result() for m in (late, named, loose, messages[2])] == [1, 0, 1, 1]

    assert all(m.tokens for m in messages)  # counted when appended, as a transcript does
    prop: property = vars(Message)["blocks"]
    decode = prop.fget
    assert decode is not None
    reads: list[Message] = []

    def counted(m: Message) -> Any:
        reads.append(m)
        return decode(m)

    monkeypatch.setattr(Message, "blocks", property(counted))
    growth = turn_growth(messages)
    monkeypatch.undo()
    assert growth > 0 and reads and all(not m.has_tool_result() for m in reads)
    by_blocks = 0
    for m in messages[-5 * 8 :]:
        by_blocks += m.tokens
    assert growth == by_blocks // 5
