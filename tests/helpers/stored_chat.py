"""A stored chat session of many scripted turns, made through the SDK (fast: no screen), for
the chat app's resume tests and its open-time benchmark."""

from __future__ import annotations

from pathlib import Path

from prefixlock.agent import Agent
from prefixlock.billing.prices import PriceTable
from prefixlock.clock import ManualClock
from prefixlock.coding.workspace import Workspace
from prefixlock.prefix import FrozenPrefix
from prefixlock.store.database import SessionStore
from prefixlock.tui.backend import SYSTEM_PROMPT


async def store_chat_session(
    store_path: Path,
    workspace: Path,
    base_url: str,
    clock: ManualClock,
    turns: int,
    session_id: str = "long-session",
    system: str = SYSTEM_PROMPT,
) -> str:
    """`turns` turns of the chat's scripted model, with the chat's prefix (or another
    `system` prompt), into the store at `store_path` (the emulator at `base_url` must run the
    chat's script); the session id."""
    from prefixlock.agents.registry import AgentRegistry
    from prefixlock.agents.runner import SubagentDelegator

    # The chat's own prefix: the workspace's tools and its `delegate` tool, as the chat builds
    # them, so resuming in the chat finds the prefix it would have stored itself.
    delegator = SubagentDelegator(
        AgentRegistry.discover(workspace), root=workspace, prices=PriceTable.default()
    )
    tools = [*Workspace(workspace).tools(), delegator.tool()]
    with SessionStore(store_path) as store:
        prefix = FrozenPrefix(system=system, tools=tools)
        agent = Agent(
            prefix,
            model="claude-sonnet-4-6",
            api_key="k",
            base_url=base_url,
            clock=clock,
            store=store,
        )
        async with agent.session(session_id) as s:
            for i in range(turns):
                async for _ in s.send(f"question {i}: what changed in the invoice module?"):
                    pass
                clock.advance(5)
    return session_id
