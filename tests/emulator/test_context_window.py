"""Context windows: a prompt past the model's window is a 400 worded as each API words it, the
guard warns before such a request goes out, and `truncation: "auto"` drops the oldest items."""

from __future__ import annotations

import asyncio
import re

import pytest

from prefixlock.agent import Agent
from prefixlock.billing.prices import PriceTable
from prefixlock.clock import ManualClock
from prefixlock.emulator import Emulator
from prefixlock.errors import PrefixlockError
from prefixlock.events import ContextWindowWarning, Event, PrefixChanged, UsageReport
from prefixlock.prefix import FrozenPrefix
from prefixlock.settings import Settings
from prefixlock.tokenizer import count_tokens
from tests.helpers.sdk import anthropic, openai

PRICES = PriceTable.default()


def _text_over(tokens: int) -> str:
    """A text of a little more than `tokens` tokens (at most 10% more)."""
    chunk = "The invoice module rounds every total to cents before tax is applied. "
    n = tokens // count_tokens(chunk) + 1
    while count_tokens(chunk * n) <= tokens:
        n = int(n * 1.05) + 1
    text = chunk * n
    assert tokens < count_tokens(text) < tokens * 1.1
    return text


def test_windows_are_in_the_table_with_their_source() -> None:
    for model, window in (
        ("claude-haiku-4-5", 200_000),
        ("gpt-4o", 128_000),
        ("claude-opus-4-7", 1_000_000),
    ):
        price = PRICES.require(model)
        assert price.context_window == window
        assert price.context_window_source.startswith("https://")


def test_anthropic_prompt_past_the_window_is_a_400(emulator: Emulator) -> None:
    client = anthropic.Anthropic(api_key="k", base_url=emulator.base_url, max_retries=0)
    text = _text_over(200_000)
    with pytest.raises(anthropic.BadRequestError) as exc:
        client.messages.create(
            model="claude-haiku-4-5", max_tokens=16, messages=[{"role": "user", "content": text}]
        )
    assert isinstance(exc.value.body, dict)
    assert exc.value.body["error"]["message"].startswith("prompt is too long: ")
    assert exc.value.body["error"]["message"].endswith(" tokens > 200000 maximum")
    # Fits alone, but not with the output cap.
    fits = _text_over(180_000)  # under 198,000 tokens
    with pytest.raises(anthropic.BadRequestError, match="exceed context limit"):
        client.messages.create(
            model="claude-haiku-4-5",
            max_tokens=21_000,
            messages=[{"role": "user", "content": fits}],
        )


def test_openai_past_the_window_and_responses_truncation_auto(emulator: Emulator) -> None:
    client = openai.OpenAI(api_key="k", base_url=emulator.openai_base_url, max_retries=0)
    text = _text_over(128_000)
    with pytest.raises(openai.BadRequestError) as exc:
        client.chat.completions.create(model="gpt-4o", messages=[{"role": "user", "content": text}])
    assert isinstance(exc.value.body, dict)
    assert exc.value.body["code"] == "context_length_exceeded"
    assert exc.value.body["message"].startswith("This model's maximum context length is 128000")
    assert exc.value.body["message"].endswith(" tokens. Please reduce the length of the messages.")
    # The messages fit but not with the completion's cap: worded with both counts.
    fits = _text_over(110_000)  # under 121,000 tokens
    with pytest.raises(openai.BadRequestError) as exc:
        client.chat.completions.create(
            model="gpt-4o", max_tokens=20_000, messages=[{"role": "user", "content": fits}]
        )
    assert isinstance(exc.value.body, dict)
    assert exc.value.body["code"] == "context_length_exceeded"
    assert re.fullmatch(
        r"This model's maximum context length is 128000 tokens\. However, you requested "
        r"(\d+) tokens \((\d+) in the messages, 20000 in the completion\)\. Please reduce the "
        r"length of the messages or completion\.",
        exc.value.body["message"],
    )
    old = {"role": "user", "content": text}
    new = {"role": "user", "content": "Now, what is 2 + 2?"}
    with pytest.raises(openai.BadRequestError, match="exceeds the context window"):
        client.responses.create(model="gpt-4o", input=[old, new])  # type: ignore[list-item]
    r = client.responses.create(
        model="gpt-4o",
        input=[old, new],
        truncation="auto",  # type: ignore[call-overload]
    )
    assert r.usage is not None and r.usage.input_tokens < 1000  # the oldest item was dropped


def test_the_guard_warns_before_a_request_past_the_window(emulator: Emulator) -> None:
    agent = Agent(
        FrozenPrefix(system="You are terse."),
        model="claude-haiku-4-5",
        api_key="k",
        base_url=emulator.base_url,
        clock=ManualClock(),
        settings=Settings(retries=0, max_tokens=1024),
    )
    events: list[Event] = []

    async def run() -> None:
        async with agent.session() as s:
            async for event in s.send(_text_over(200_000)):
                events.append(event)

    with pytest.raises(PrefixlockError):
        asyncio.run(run())
    warnings = [e for e in events if isinstance(e, ContextWindowWarning)]
    assert len(warnings) == 1
    w = warnings[0]
    assert (w.model, w.window, w.output_cap) == ("claude-haiku-4-5", 200_000, 1024)
    assert w.tokens > 200_000
    assert emulator.requests[-1].status == 400  # and the provider refused it, as warned


def test_settings_compact_at_compacts_before_the_turn_that_crosses_it(
    emulator: Emulator,
) -> None:
    # haiku's window is 200,000 tokens: 0.003 of it is 600, which the first turn passes, and
    # the system prompt with a summary in place of the history stays under.
    agent = Agent(
        FrozenPrefix(system="You are terse. " * 40),
        model="claude-haiku-4-5",
        api_key="k",
        base_url=emulator.base_url,
        clock=ManualClock(),
        settings=Settings(retries=0, compact_at=0.003),
    )

    async def run() -> tuple[list[Event], int, list[str]]:
        async with agent.session() as s:
            first = [e async for e in s.send("Explain the invoice module. " * 100)]
            assert s.compactions == 0 and not any(isinstance(e, PrefixChanged) for e in first)
            second = [e async for e in s.send("And the tax module?")]
            kinds = [str(r.meta.get("kind", "turn")) for r in s.requests]
            return second, s.compactions, kinds

    events, compactions, kinds = asyncio.run(run())
    assert compactions == 1
    changed = [e for e in events if isinstance(e, PrefixChanged)]
    assert len(changed) == 1 and changed[0].reason == "compaction"
    # The summary request is priced and ledgered like any request, before the turn's own.
    assert kinds == ["turn", "summary", "turn"]
    assert any(isinstance(e, UsageReport) for e in events[: events.index(changed[0])])


def test_compact_at_never_compacts_a_context_its_prefix_alone_fills(emulator: Emulator) -> None:
    """A threshold under the system prompt (a small-window model, a long prompt): compacting
    could never get under it, so it is not done, rather than a summary paid every turn."""
    agent = Agent(
        FrozenPrefix(system="You are terse. " * 400),
        model="claude-haiku-4-5",
        api_key="k",
        base_url=emulator.base_url,
        clock=ManualClock(),
        settings=Settings(retries=0, compact_at=0.003),
    )  # 600 tokens

    async def run() -> tuple[int, list[str]]:
        async with agent.session() as s:
            for i in range(3):
                async for _ in s.send(f"Explain module {i}. " * 30):
                    pass
            return s.compactions, [str(r.meta.get("kind", "turn")) for r in s.requests]

    compactions, kinds = asyncio.run(run())
    assert compactions == 0 and kinds == ["turn"] * 3
