"""OpenTelemetry spans (off by default): a turn, its requests and its tools, with the GenAI
semantic-convention attributes and the guard's cache figures, through the official SDK to the
emulator; nothing of the prompt, the tool input or the key is an attribute."""

from __future__ import annotations

from typing import Any

import pytest

from prefixlock import Agent, FrozenPrefix, tool
from prefixlock.clock import ManualClock
from prefixlock.emulator import Emulator, Rule, Script, Step

SYSTEM = "You answer questions about the shop's invoices.\n" * 150
SECRET = "sk-test-do-not-log-123456"


@tool
def lookup(number: str) -> str:
    """Look up an invoice."""
    return f"invoice {number}: 12.30"


@tool
def broken(number: str) -> str:
    """Always fails."""
    raise RuntimeError("disk on fire")


SCRIPT = Script(
    rules=[
        Rule(
            match="check",
            steps=[
                Step(text="Looking.", tool="lookup", input={"number": "INV-7"}),
                Step(text="Again.", tool="broken", input={"number": "INV-7"}),
                Step(text="It is 12.30."),
            ],
        )
    ]
)


async def test_spans_per_turn_request_and_tool() -> None:
    sdk = pytest.importorskip("opentelemetry.sdk.trace")
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    exporter = InMemorySpanExporter()
    provider = sdk.TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    tracer = provider.get_tracer("test")
    with Emulator.start(clock=ManualClock(), script=SCRIPT) as emu:
        agent = Agent(
            FrozenPrefix(system=SYSTEM, tools=[lookup, broken]),
            model="claude-sonnet-4-6",
            base_url=emu.base_url,
            api_key=SECRET,
            clock=emu.clock,
            tracer=tracer,
        )
        async with agent.session() as s:
            await s.ask("hello")
            await s.ask("check INV-7")
        port = emu.port
    spans = exporter.get_finished_spans()
    names = [sp.name for sp in spans]
    assert names.count("invoke_agent prefixlock") == 2
    assert names.count("chat claude-sonnet-4-6") == 4
    assert "execute_tool lookup" in names and "execute_tool broken" in names
    turns = [sp for sp in spans if sp.name == "invoke_agent prefixlock"]
    chats = [sp for sp in spans if sp.name.startswith("chat ")]
    tools = {sp.name: sp for sp in spans if sp.name.startswith("execute_tool")}
    # Requests and tools are children of their turn's span.
    second = turns[1]
    assert all(sp.parent is not None for sp in chats)
    assert {sp.parent.span_id for sp in chats[1:]} == {second.context.span_id}  # type: ignore[union-attr]
    assert tools["execute_tool lookup"].parent.span_id == second.context.span_id  # type: ignore[union-attr]
    a = chats[1].attributes or {}
    assert a["gen_ai.operation.name"] == "chat" and a["gen_ai.provider.name"] == "anthropic"
    assert a["gen_ai.request.model"] == "claude-sonnet-4-6"
    read = a["prefixlock.cache.read"]
    assert isinstance(read, int) and read > 2_000
    assert a["gen_ai.usage.cache_read.input_tokens"] == read
    assert a["prefixlock.cache.predicted"] == a["prefixlock.cache.read"]
    assert float(a["prefixlock.cost.dollars"]) > 0  # type: ignore[arg-type]
    assert turns[1].attributes is not None and turns[1].attributes["prefixlock.stop_reason"]
    # The conventions' span kinds and response attributes (issue: INTERNAL, no id, no reason).
    from opentelemetry.trace import SpanKind

    assert all(sp.kind is SpanKind.CLIENT for sp in chats)
    assert all(sp.kind is SpanKind.INTERNAL for sp in [*turns, *tools.values()])
    assert a["server.address"] == "127.0.0.1" and a["server.port"] == port
    assert isinstance(a["gen_ai.response.id"], str) and a["gen_ai.response.id"]
    assert tuple(a["gen_ai.response.finish_reasons"]) == ("tool_use",)  # type: ignore[arg-type]
    last = chats[-1].attributes or {}
    assert tuple(last["gen_ai.response.finish_reasons"]) == ("end_turn",)  # type: ignore[arg-type]
    assert len({(sp.attributes or {})["gen_ai.response.id"] for sp in chats}) == len(chats)
    _check_against_the_conventions(spans)
    bad = tools["execute_tool broken"]
    assert bad.attributes is not None and bad.attributes["error.type"] == "tool_error"
    # Only names, ids, counts and dollars: no prompt, tool input or key.
    text = repr([dict(sp.attributes or {}) for sp in spans])
    assert SECRET not in text and "INV-7" not in text and "shop's invoices" not in text


async def test_off_by_default_no_opentelemetry_needed() -> None:
    with Emulator.start(clock=ManualClock(), script=SCRIPT) as emu:
        agent = Agent(
            FrozenPrefix(system="s", tools=[lookup, broken]),
            model="gpt-5",
            base_url=emu.base_url,
            api_key="k",
            clock=emu.clock,
        )
        async with agent.session() as s:
            assert s.telemetry.tracer is None
            assert await s.ask("check INV-7") == "It is 12.30."


def _check_against_the_conventions(spans: Any) -> None:
    """Every `gen_ai.*`, `server.*` and `error.*` attribute is one the OpenTelemetry semantic
    conventions define (their Python package's attribute list), with a value they allow where
    they list the values; ours are namespaced `prefixlock.*`."""
    from opentelemetry.semconv._incubating.attributes import gen_ai_attributes as gen_ai
    from opentelemetry.semconv.attributes import error_attributes, server_attributes

    defined = {
        getattr(module, name)
        for module in (gen_ai, server_attributes, error_attributes)
        for name in dir(module)
        if name.isupper() and isinstance(getattr(module, name), str)
    }
    operations = {v.value for v in gen_ai.GenAiOperationNameValues}
    providers = {v.value for v in gen_ai.GenAiProviderNameValues}
    for sp in spans:
        attributes = dict(sp.attributes or {})
        for key in attributes:
            assert key in defined or key.startswith("prefixlock."), key
        assert attributes["gen_ai.operation.name"] in operations
        if "gen_ai.provider.name" in attributes:
            assert attributes["gen_ai.provider.name"] in providers
