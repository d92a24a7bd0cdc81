"""On OpenAI a default session's automatic compaction puts the summary in the messages, after
the old instructions and tools (`compaction.auto_placement`): the Responses API sends the
system prompt as `instructions`, before the tools, so a summary appended to the instructions
changed every token after them and re-billed the tools uncached on the compacted turn. Now
the compacted turn reads the whole old prefix and pays only for the summary onwards."""

from __future__ import annotations

from prefixlock.guard.compaction import auto_placement
from prefixlock.prefix import SUMMARY_HEADER
from tests.helpers.guardkit import advance, agent, compact_at_turns, start_emulator, turn

MODEL = "gpt-5"


def test_the_summary_goes_after_the_tools_on_openai_only() -> None:
    assert auto_placement("openai-responses") == "messages"
    assert auto_placement("openai-chat") == "messages"
    assert auto_placement("anthropic") == "system"


async def test_a_default_openai_compaction_reads_the_old_instructions_and_tools() -> None:
    settings = await compact_at_turns(MODEL, 0.99)
    with start_emulator() as emu:
        a = agent(emu, model=MODEL, settings=settings)
        async with a.session() as s:
            for i in range(4):
                await turn(s, f"Turn {i}: look at src/app.py and tell me what f{i} does.")
                advance(emu, 20.0)
                if i == 0:  # where the instructions and tools end (settings, system, tools)
                    units = s.requests[0].units
                    prefix = max(u.end for u in units if u.section != "messages")
            assert s.compactions == 1
            rows = list(s.ledger.rows)
    kinds = [str(r.meta.get("kind", "turn")) for r in rows]
    compacted = rows[kinds.index("summary") + 1]
    served = emu.requests[kinds.index("summary") + 1]
    assert served.path == "/v1/responses"
    # The instructions are the system prompt as before; the summary opens the input.
    assert served.body["instructions"] == emu.requests[0].body["instructions"]
    assert str(served.body["input"][0]["content"][0]["text"]).startswith(SUMMARY_HEADER)
    # The whole old prefix (instructions and tools) is read, in OpenAI's 128-token steps; the
    # summary and what follows it are the rest.
    assert compacted.usage.cache_read >= prefix // 128 * 128


async def test_a_manual_openai_compaction_places_the_summary_as_the_automatic_one_does() -> None:
    """`Session.compact()` and its quote with no placement (the chat's /compact calls them so)
    make the automatic compaction's choice: on gpt-5 the instructions and tools stay
    byte-identical and the summary opens the input, so the next turn reads them all."""
    with start_emulator() as emu:
        a = agent(emu, model=MODEL)
        async with a.session() as s:
            for i in range(3):
                await turn(s, f"Turn {i}: look at src/app.py and tell me what f{i} does.")
                advance(emu, 20.0)
            units = s.requests[0].units
            prefix = max(u.end for u in units if u.section != "messages")
            system = s.prefix.system
            await s.compact(quote=s.quote_compaction())
            assert s.prefix.system == system
            await turn(s, "Turn 3: and what does f3 do?")
            rows = list(s.ledger.rows)
    kinds = [str(r.meta.get("kind", "turn")) for r in rows]
    first, compacted = emu.requests[0], emu.requests[kinds.index("summary") + 1]
    assert compacted.body["instructions"] == first.body["instructions"]
    assert compacted.body["tools"] == first.body["tools"]
    assert str(compacted.body["input"][0]["content"][0]["text"]).startswith(SUMMARY_HEADER)
    assert rows[kinds.index("summary") + 1].usage.cache_read >= prefix // 128 * 128
