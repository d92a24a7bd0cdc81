"""Model fallback: when the provider fails after its retries, the session moves to the next
model of the agent's chain as a priced model switch (the guard's quote; the re-billed cache is
a `model` CacheBreak) and sends the request again, through the official SDKs to the emulator."""

from __future__ import annotations

import pytest

from prefixlock import (
    Agent,
    CacheBreak,
    FrozenPrefix,
    ModelFallback,
    ProviderError,
    Settings,
    SwitchWarning,
    TurnComplete,
    UnknownModelError,
)
from prefixlock.clock import ManualClock
from prefixlock.emulator import Emulator

SYSTEM = "You answer questions about the shop's invoices.\n" * 150


def agent_for(emu: Emulator, fallback: tuple[str, ...]) -> Agent:
    return Agent(
        FrozenPrefix(system=SYSTEM),
        model="claude-sonnet-4-6",
        base_url=emu.base_url,
        api_key="test-key",
        clock=emu.clock,
        settings=Settings(retries=1),
        fallback=fallback,
    )


async def test_a_failing_provider_falls_back_as_a_priced_switch() -> None:
    with Emulator.start(clock=ManualClock()) as emu:
        async with agent_for(emu, ("claude-sonnet-4-6", "gpt-5")).session() as s:
            await s.ask("first question")  # warm on claude-sonnet-4-6
            emu.inject("529", count=2)  # the request and its one retry
            events = [e async for e in s.send("second question")]
        models = [r.model for r in emu.requests]
    fell = next(e for e in events if isinstance(e, ModelFallback))
    # The chain skips the model that failed; the quote is the guard's switch quote.
    assert fell.failed_model.endswith("claude-sonnet-4-6") and fell.model.endswith("gpt-5")
    assert "529" in fell.error
    assert fell.quote.action == "switch_model" and fell.quote.tokens_rebilled > 2_000
    warning = next(e for e in events if isinstance(e, SwitchWarning))
    assert warning.quote is fell.quote
    brk = next(e for e in events if isinstance(e, CacheBreak))
    assert brk.cause == "model"
    assert isinstance(events[-1], TurnComplete)
    assert s.model == "gpt-5"
    assert models[-1] == "gpt-5" and models.count("claude-sonnet-4-6") == 3


async def test_without_a_fallback_left_the_error_is_raised() -> None:
    with Emulator.start(clock=ManualClock()) as emu:
        async with agent_for(emu, ("gpt-5",)).session() as s:
            emu.inject("500", count=4)  # sonnet twice, then gpt-5 twice
            with pytest.raises(ProviderError):
                await s.ask("question")
            assert s.model == "gpt-5"
            assert await s.ask("again") != ""  # the session goes on, on gpt-5


def test_an_unknown_fallback_model_fails_at_once() -> None:
    with pytest.raises(UnknownModelError):
        Agent(
            FrozenPrefix(system="s"),
            model="claude-sonnet-4-6",
            api_key="k",
            fallback=["no-such-model-9"],
        )
