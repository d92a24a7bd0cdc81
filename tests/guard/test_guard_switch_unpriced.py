"""A switch to a model the price table does not know, under a dollar limit, is refused.

`Agent(..., settings=Settings(max_dollars=...))` on an unpriced model raises ConfigError (the
ledger never prices it, so the limit could not stop the loop). A switch to such a model was
accepted, and from then on the limit silently stopped counting.
"""

from __future__ import annotations

from decimal import Decimal

import pytest

from prefixlock import Settings
from prefixlock.errors import ConfigError
from tests.helpers.guardkit import agent, run_turns, start_emulator


async def test_switch_to_an_unpriced_model_under_a_dollar_limit_is_refused() -> None:
    with start_emulator() as emu:
        a = agent(emu, settings=Settings(max_dollars=Decimal("5")))
        async with a.session() as s:
            await run_turns(emu, s, 1)
            with pytest.raises(ConfigError, match="not in the price table") as info:
                s.switch_model("claude-opus-9", policy="allow")
            assert info.value.where == "settings.max_dollars"
            assert s.model == "claude-opus-4-7"
            s.switch_model("claude-sonnet-4-6", policy="allow")  # a priced one is fine
            assert s.model == "claude-sonnet-4-6"


async def test_without_a_dollar_limit_an_unpriced_model_may_be_used() -> None:
    with start_emulator() as emu:
        async with agent(emu).session() as s:
            s.switch_model("claude-opus-9", policy="allow")  # cold: no quote needed
            assert s.model == "claude-opus-9"
