"""prefixlock.testing.TestModel: a user's agent runs against the scripted model in process,
through the official SDKs, with no socket at all, and its cache accounting is the emulator's."""

from __future__ import annotations

import socket

import pydantic
import pytest

from prefixlock import FrozenPrefix, output_tool, tool
from prefixlock.testing import Rule, Script, Step, TestModel

SYSTEM = "You handle refunds for a small shop. Be brief.\n" * 150


@tool
def lookup(number: str) -> str:
    """Look up an order."""
    return f"order {number}: 2 items, paid"


class Refund(pydantic.BaseModel):
    number: str
    approved: bool


SCRIPT = Script(
    rules=[
        Rule(
            match="refund",
            steps=[
                Step(text="Checking.", tool="lookup", input={"number": "A-1"}),
                Step(text="Refund approved."),
            ],
        ),
        Rule(
            match="decide",
            steps=[Step(tool="final_Refund", input={"number": "A-1", "approved": True})],
        ),
    ]
)


@pytest.fixture
def no_sockets(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError("TestModel opened a connection")

    monkeypatch.setattr(socket.socket, "connect", refuse)


@pytest.mark.parametrize("model", ["claude-sonnet-4-6", "gpt-5", "openai-responses:gpt-5"])
async def test_an_agent_runs_in_process(model: str, no_sockets: None) -> None:
    test = TestModel(SCRIPT)
    agent = test.agent(FrozenPrefix(system=SYSTEM, tools=[lookup, output_tool(Refund)]), model)
    async with agent.session() as s:
        assert await s.ask("refund order A-1") == "Refund approved."
        decision = await s.run("decide", Refund)
        assert decision == Refund(number="A-1", approved=True)
        assert s.ledger.hit_rate > 0.5  # the emulator's cache rules, in process
    assert [r.status for r in test.requests] == [200, 200, 200]
    assert all(r.api != "other" for r in test.requests)
    assert "lookup" in str(test.requests[0].body)


async def test_a_request_the_provider_would_refuse_is_refused() -> None:
    test = TestModel()
    agent = test.agent(FrozenPrefix(system="s"), "claude-sonnet-4-6")
    async with agent.session() as s:
        assert await s.ask("anything") == Script().default
    # Same intake as the served emulator: a request with no key is a 401.
    answer = test.answer("/v1/messages", {"content-type": "application/json"}, b"{}")
    assert answer.status == 401
