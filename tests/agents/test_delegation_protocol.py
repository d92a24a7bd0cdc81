"""How a session finds its delegator: explicitly, or through the `prefixlock.delegators`
entry point group; with neither, a clear configuration error."""

from __future__ import annotations

from typing import Any

import pytest

import prefixlock.delegation as delegation
from prefixlock.agent import Agent
from prefixlock.agents import SubagentDelegator, default_delegator
from prefixlock.delegation import Delegator, find_delegator
from prefixlock.emulator import Emulator
from prefixlock.errors import ConfigError
from prefixlock.prefix import FrozenPrefix


class _EntryPoint:
    def __init__(self, name: str, obj: Any) -> None:
        self.name = name
        self._obj = obj

    def load(self) -> Any:
        return self._obj


def test_explicit_delegator_wins(monkeypatch: pytest.MonkeyPatch) -> None:
    mine = SubagentDelegator()
    monkeypatch.setattr(delegation, "entry_points", lambda group: [_EntryPoint("x", object)])
    assert find_delegator(mine) is mine
    assert isinstance(mine, Delegator)


def test_entry_point_factory_is_called(monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[str] = []

    def eps(group: str) -> list[_EntryPoint]:
        seen.append(group)
        return [_EntryPoint("agents", default_delegator)]

    monkeypatch.setattr(delegation, "entry_points", eps)
    found = find_delegator()
    assert isinstance(found, SubagentDelegator)
    assert seen == ["prefixlock.delegators"]


async def test_no_delegator_is_a_config_error(
    monkeypatch: pytest.MonkeyPatch, emulator: Emulator
) -> None:
    monkeypatch.setattr(delegation, "entry_points", lambda group: [])
    agent = Agent(
        FrozenPrefix(system="p"),
        model="claude-opus-4-7",
        api_key="test-key",
        base_url=emulator.base_url,
        clock=emulator.clock,
    )
    async with agent.session() as s:
        with pytest.raises(ConfigError, match="no delegator") as info:
            await s.delegate("anything")
        assert info.value.where == "delegator"
        assert len(s.transcript) == 0  # nothing appended for a delegation that never ran
