"""A tool server that stops and starts again mid-session, on OpenAI: prefixlock's default `Agent`
(`model="gpt-5"`, the Responses API) keeps the system prompt cached across the change, where
the same session on Chat Completions (`openai-chat:gpt-5`, the tools before the system message)
misses its whole prompt, and pays less over the session. Against the in-process emulator on a
manual clock; no peers."""

from __future__ import annotations

import asyncio
from decimal import Decimal

from prefixlock.agent import Agent
from prefixlock.billing.prices import PriceTable
from prefixlock.billing.usage import Usage, parse_usage
from prefixlock.clock import ManualClock
from prefixlock.emulator import BUILTIN, BUILTIN_PROMPTS, Emulator, EmulatorConfig
from prefixlock.emulator.workspace import Workspace, demo_prefix
from prefixlock.tokenizer import count_tokens
from prefixlock.versus.run import KEY, START
from prefixlock.versus.scenario import Scenario, Turn, on_provider

PRICES = PriceTable.builtin()
TURNS = on_provider(
    Scenario("tools", tuple(Turn(i, p) for i, p in enumerate(BUILTIN_PROMPTS[:4]))), "openai"
)
STOPS, STARTS = 2, 3  # the server stops before turn 2 and starts again before turn 3
GONE = "write_file"  # the stopped server's tool (never called by the script)


def _session(model: str) -> tuple[list[tuple[str, Usage]], Decimal, int]:
    """(api, usage) of each request, the session's dollars, and the index of the first request
    after the server stopped."""
    # prefixlock: ignore[PL101] the emulator's clock drives the turns
    clock = ManualClock(START)
    with Emulator.start(
        config=EmulatorConfig(), clock=clock, prices=PRICES, script=TURNS.script(BUILTIN)
    ) as emu:
        workspace = Workspace(clock)
        tools = workspace.tools()
        agent = Agent(
            demo_prefix(workspace),
            model=model,
            api_key=KEY,
            base_url=emu.base_url,
            clock=clock,
            prices=PRICES,
        )
        first_after = 0

        async def turns() -> None:
            nonlocal first_after
            async with agent.session() as s:
                for t in TURNS.turns:
                    if t.index in (STOPS, STARTS):
                        listed = [x for x in tools if t.index == STARTS or x.name != GONE]
                        s.change_tools(listed, quote=s.quote_tools(listed))
                    if t.index == STOPS:
                        first_after = len(emu.served())
                    async for _event in s.send(t.prompt):
                        pass
                    clock.advance(30)

        asyncio.run(turns())
        rows = [(r.api, parse_usage(r.api, r.usage or {})) for r in emu.served()]
    cost = sum((PRICES.require("gpt-5").cost(u) for _, u in rows), Decimal(0))
    return rows, cost, first_after


def test_a_stopped_tool_server_keeps_the_system_prompt_cached_on_the_default_api() -> None:
    default, default_cost, at = _session("gpt-5")
    chat, chat_cost, chat_at = _session("openai-chat:gpt-5")
    assert {api for api, _ in default} == {"openai-responses"}
    assert {api for api, _ in chat} == {"openai-chat"}
    system = count_tokens("\n\n".join(demo_prefix(Workspace(ManualClock(START))).system))
    # The first request without the tool: the instructions come before the tools and are read;
    # on Chat Completions the changed tool list comes first and nothing is read.
    assert default[at][1].cache_read >= system - 128
    assert chat[chat_at][1].cache_read == 0
    assert default_cost < chat_cost
