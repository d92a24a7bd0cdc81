"""Tool definitions go on the wire in canonical key order.

The provider SDKs serialize a request body in its dicts' insertion order, and a tool's schema
is rendered into the prompt as sent. pydantic lists a schema's fields in signature order and
each property's keys in its own order (`type` before `description`), so the builders send
canonical copies: the same order the store keeps and the guard compares (and what the
linter's PL204 asks for; tests/tui/test_lint_next_request.py checks /lint).
Checked on the bytes the emulator received (json.loads keeps their key order), per wire API.
"""

from __future__ import annotations

from typing import Any, Literal

import pytest

from prefixlock import FrozenPrefix, tool
from prefixlock.agent import Agent
from prefixlock.canonical import canonical_json
from prefixlock.emulator import Emulator


@tool
def read_file(
    path: str, offset: int = 0, limit: int | None = None, mode: Literal["text", "bytes"] = "text"
) -> str:
    """Read part of a file.

    Args:
        path: the file, relative to the workspace.
        offset: first line to read.
    """
    return path


def _in_order(value: Any) -> bool:
    if isinstance(value, dict):
        return list(value) == sorted(value) and all(_in_order(v) for v in value.values())
    if isinstance(value, list):
        return all(_in_order(v) for v in value)
    return True


def test_pydantic_schema_is_not_canonical_to_begin_with() -> None:
    """The premise: what `@tool` derives is in signature order, so sorting is the builder's job."""
    assert not _in_order(read_file.spec.to_dict())


@pytest.mark.parametrize(
    "model", ["claude-sonnet-4-6", "gpt-5.4", "openai-responses:gpt-5.4", "gpt-5.6-terra"]
)
async def test_tools_on_the_wire_are_canonical(emulator: Emulator, model: str) -> None:
    prefix = FrozenPrefix(system="You help.", tools=[read_file])
    agent = Agent(
        prefix, model=model, api_key="test-key", base_url=emulator.base_url, clock=emulator.clock
    )
    async with agent.session("s") as s:
        await s.ask("hello")
        built = s.requests[-1].body
    sent = [r.body for r in emulator.requests if isinstance(r.body, dict) and "tools" in r.body]
    assert sent
    tools = sent[-1]["tools"]
    assert _in_order(tools), tools
    assert canonical_json(tools) == canonical_json(built["tools"])
