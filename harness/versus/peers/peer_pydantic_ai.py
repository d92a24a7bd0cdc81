"""The pydantic-ai agent loop both pydantic-ai peers run (pydantic_ai_peer.py on Anthropic,
pydantic_ai_openai_peer.py on OpenAI Chat Completions): imported by its bare name from their
venvs, as `peer_protocol` is; it imports pydantic-ai only when a peer runs it.

The conversation is carried in `message_history` as the docs show; each turn builds the Agent
with the tools in the order the tool server listed them, the model the user picked and the
peer's cache settings. Subagents: agent delegation as pydantic-ai's multi-agent page shows it:
a `delegate` tool (the start message's schema) whose function awaits
`sub_agent.run(task, usage=ctx.usage)`, the sub-agent built with the start message's `subagent`
instructions and tools, the same model and the same cache settings; pydantic-ai runs the tool
calls of one reply concurrently. Compaction: none (pydantic-ai's history processors are
functions the user writes; no summarizer is configured).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from . import peer_protocol
else:  # run from a peer script, in its own venv: this folder is on the path
    import peer_protocol


def run(start: dict[str, Any], model_of: Callable[[str], Any], settings: Any) -> None:
    """The session after `start`: `model_of(model id)` is the turn's pydantic-ai model,
    `settings` the model settings every agent gets."""
    from pydantic_ai import Agent, RunContext, Tool

    def tool(func: Callable[..., Any], spec: dict[str, Any], takes_ctx: bool = False) -> Any:
        """A tool that runs `func`, named and described as `spec` (a tool server's listing)."""
        return Tool.from_schema(
            func,
            name=spec["name"],
            description=spec["description"],
            json_schema=spec["input_schema"],
            takes_ctx=takes_ctx,
        )

    def remote_tools(specs: list[dict[str, Any]]) -> list[Any]:
        return [tool(peer_protocol.remote_tool(t["name"]), t) for t in specs]

    def delegation(model: str) -> list[Any]:
        """The `delegate` tool: each call runs the sub-agent (agent delegation)."""
        spec = start.get("delegate_tool")
        if not spec:
            return []
        sub_agent = Agent(
            model_of(model),
            instructions=start["subagent"]["system"],
            tools=remote_tools(start["subagent"]["tools"]),
            model_settings=settings,
        )

        async def delegate(ctx: RunContext[None], task: str, agent: str = "") -> str:
            result = await sub_agent.run(task, usage=ctx.usage)
            return str(result.output)

        return [tool(delegate, spec, takes_ctx=True)]

    history: list[Any] = []
    for msg in peer_protocol.turns():
        agent = Agent(
            model_of(msg["model"]),
            instructions=start["system"],
            tools=[*remote_tools(msg["tools"]), *delegation(msg["model"])],
            model_settings=settings,
        )
        result = agent.run_sync(msg["prompt"], message_history=history)
        history = result.all_messages()
