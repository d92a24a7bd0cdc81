"""OpenTelemetry spans: pass a tracer to the Agent and each turn, request and tool call becomes a
span with the GenAI semantic-convention attributes plus the cache figures (read, written,
predicted, cause, dollars). Needs `pip install prefixlock[otel]` and an OpenTelemetry SDK (here
the SDK's in-memory exporter); offline, on the emulator."""

from __future__ import annotations

import asyncio

from prefixlock import Agent, FrozenPrefix, tool
from prefixlock.clock import ManualClock
from prefixlock.emulator import Emulator, Rule, Script, Step


@tool
def lookup(number: str) -> str:
    """Look up an invoice."""
    return f"invoice {number}: 12.30"


SCRIPT = Script(
    rules=[
        Rule(
            match="check",
            steps=[
                Step(text="Looking.", tool="lookup", input={"number": "INV-7"}),
                Step(text="It is 12.30."),
            ],
        )
    ]
)


async def main() -> None:
    try:
        from opentelemetry.sdk.trace import TracerProvider
        from opentelemetry.sdk.trace.export import SimpleSpanProcessor
        from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
    except ImportError:
        print("install opentelemetry-sdk to run this example")
        return
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    with Emulator.start(clock=ManualClock(), script=SCRIPT) as emu:
        agent = Agent(
            FrozenPrefix(system="You answer about invoices.\n" * 150, tools=[lookup]),
            model="claude-sonnet-4-6",
            base_url=emu.base_url,
            api_key="test-key",
            clock=emu.clock,
            tracer=provider.get_tracer("example"),
        )
        async with agent.session() as s:
            await s.ask("hello")
            await s.ask("check INV-7")
    for span in exporter.get_finished_spans():
        a = span.attributes or {}
        cache = {
            k.removeprefix("prefixlock."): v
            for k, v in a.items()
            if k.startswith("prefixlock.cache") or k == "prefixlock.cost.dollars"
        }
        print(f"{span.name:28} {cache}")


if __name__ == "__main__":
    asyncio.run(main())
