"""A user's program, type-checked by `.ci/install-check` against the installed package (py.typed)
with `mypy --strict`, outside this checkout. It also runs there, on the emulator."""

from __future__ import annotations

import asyncio
from decimal import Decimal

import pydantic

from prefixlock import (
    Agent,
    ApprovalRequired,
    DelegationResult,
    Document,
    Emulator,
    FrozenPrefix,
    Image,
    ModelFallback,
    Quote,
    RunContext,
    Settings,
    SwitchWarning,
    TextDelta,
    UsageReport,
    UserPart,
    output_tool,
    tool,
)
from prefixlock.testing import Rule, Script, Step, TestModel, sample_pdf, sample_png


@tool
def word_count(text: str) -> int:
    """Count the words in a text."""
    return len(text.split())


class Count(pydantic.BaseModel):
    words: int


class Counter:
    """The program's dependency, handed to tools through RunContext."""

    def __init__(self) -> None:
        self.calls = 0


@tool
def counted(ctx: RunContext[Counter], text: str) -> int:
    """Count the words in a text, counting the calls."""
    ctx.deps.calls += 1
    return len(text.split())


def describe(result: DelegationResult, event: SwitchWarning | ModelFallback) -> str:
    quote: Quote = event.quote
    return f"{result.ok} {result.summary} {result.cost} {result.error} {quote.tokens_rebilled}"


async def typed_features() -> None:
    """Structured output, deps and approval on the in-process test model."""
    script = Script(
        rules=[
            Rule(
                match="count",
                steps=[
                    Step(tool="counted", input={"text": "a b c"}),
                    Step(tool="final_Count", input={"words": 3}),
                ],
            ),
        ]
    )
    model = TestModel(script)
    prefix = FrozenPrefix(system="You count words. " * 500, tools=[counted, output_tool(Count)])
    agent = model.agent(prefix, "gpt-5")
    counter = Counter()
    async with agent.session() as s:
        result: Count = await s.run("count 'a b c'", Count, deps=counter)
        assert result.words == 3 and counter.calls == 1
        s.require_approval("counted")
        async for event in s.send("count again", output_type=Count, deps=counter):
            if isinstance(event, ApprovalRequired):
                for call in event.calls:
                    s.deny(call.id, "not now")
        async for _ in s.resume(output_type=Count, deps=counter):
            pass
        assert counter.calls == 1  # the denied call never ran
        # A picture and a document beside the text; an http client of one's own.
        parts: list[UserPart] = [
            "What do these show?",
            Image.from_bytes(sample_png(64, 48)),
            Document.from_bytes(sample_pdf(["Invoice INV-7"]), title="invoice.pdf"),
        ]
        answer: str = await s.ask(parts)
        assert answer
    with agent.sync_session() as sync:
        q: Quote = sync.quote_switch("gpt-5-mini")
        assert q.action == "switch_model"
        effort: Quote = sync.quote_effort(effort="high", ttl="1h")
        assert effort.action == "change_effort"
    own = Agent(prefix, model="gpt-5", api_key="test-key", http_client=model.http_client())
    assert own.model == "gpt-5"


async def main() -> None:
    prefix = FrozenPrefix(system="You count words. " * 1500, tools=[word_count])
    with Emulator.start() as emu:
        agent = Agent(
            prefix,
            model="claude-haiku-4-5",
            base_url=emu.base_url,
            api_key="test-key",
            settings=Settings(),
        )
        async with agent.session() as s:
            for question in ("How many words in 'a b c'?", "And in 'd e'?"):
                async for event in s.send(question):
                    if isinstance(event, TextDelta):
                        pass
                    elif isinstance(event, UsageReport):
                        read: int = event.usage.cache_read
                        assert read >= 0
            cost: Decimal | None = s.ledger.cost
            hit_rate: float = s.ledger.hit_rate
            print(f"hit rate {hit_rate:.1%}, cost {cost}")
            assert hit_rate > 0.4, "the second turn reads the first turn's cache"


if __name__ == "__main__":
    asyncio.run(main())
    asyncio.run(typed_features())
