"""Peer: a pydantic-ai Agent on Anthropic, cached with pydantic-ai's documented settings.

Run by `prefixlock.versus` in its own venv (`pydantic-ai-slim[anthropic]`; nothing from
prefixlock). Caching is what pydantic-ai's Anthropic page documents: `AnthropicModelSettings`
with `anthropic_cache_instructions`, `anthropic_cache_tool_definitions` and
`anthropic_cache_messages` on (5-minute TTL). The conversation is carried in `message_history`
as the docs show; each turn builds the Agent with the tools in the order the tool server listed
them and the model the user picked. Same line protocol as anthropic_sdk.py.
Subagents: agent delegation as pydantic-ai's multi-agent page shows it: a `delegate` tool (the
start message's schema) whose function awaits `sub_agent.run(task, usage=ctx.usage)`, the
sub-agent built with the start message's `subagent` instructions and tools and the same cache
settings; pydantic-ai runs the tool calls of one reply concurrently. Compaction: none
(pydantic-ai's history processors are functions the user writes; no summarizer is configured).
"""

from __future__ import annotations

import json
import sys
import threading
from typing import Any


def _read() -> dict[str, Any]:
    line = sys.stdin.readline()
    if not line:
        raise SystemExit(0)
    data: dict[str, Any] = json.loads(line)
    return data


def _write(obj: dict[str, Any]) -> None:
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()


def main() -> None:
    from pydantic_ai import Agent, RunContext, Tool
    from pydantic_ai.models.anthropic import AnthropicModel, AnthropicModelSettings
    from pydantic_ai.providers.anthropic import AnthropicProvider

    start = _read()
    provider = AnthropicProvider(api_key=start["api_key"], base_url=start["base_url"])
    settings = AnthropicModelSettings(
        max_tokens=4096,
        anthropic_cache_instructions=True,
        anthropic_cache_tool_definitions=True,
        anthropic_cache_messages=True,
    )
    history: list[Any] = []

    # The framework runs parallel tool calls concurrently (threads): one question and its
    # answer on the pipe at a time.
    pipe = threading.Lock()

    def remote(name: str) -> Any:
        def call(**kwargs: Any) -> str:
            with pipe:
                _write({"op": "tool", "id": "", "name": name, "input": kwargs})
                return str(_read()["content"])

        return call

    def remote_tools(specs: list[dict[str, Any]]) -> list[Any]:
        return [
            Tool.from_schema(
                remote(t["name"]),
                name=t["name"],
                description=t["description"],
                json_schema=t["input_schema"],
            )
            for t in specs
        ]

    def delegation(model: str) -> list[Any]:
        """The `delegate` tool: each call runs the sub-agent (agent delegation)."""
        spec = start.get("delegate_tool")
        if not spec:
            return []
        sub_agent = Agent(
            AnthropicModel(model, provider=provider),
            instructions=start["subagent"]["system"],
            tools=remote_tools(start["subagent"]["tools"]),
            model_settings=settings,
        )

        async def delegate(ctx: RunContext[None], task: str, agent: str = "") -> str:
            result = await sub_agent.run(task, usage=ctx.usage)
            return str(result.output)

        return [
            Tool.from_schema(
                delegate,
                name=spec["name"],
                description=spec["description"],
                json_schema=spec["input_schema"],
                takes_ctx=True,
            )
        ]

    while True:
        msg = _read()
        if msg["op"] == "end":
            break
        agent = Agent(
            AnthropicModel(msg["model"], provider=provider),
            instructions=start["system"],
            tools=[*remote_tools(msg["tools"]), *delegation(msg["model"])],
            model_settings=settings,
        )
        result = agent.run_sync(msg["prompt"], message_history=history)
        history = result.all_messages()
        _write({"op": "done"})


if __name__ == "__main__":
    main()
