"""Peer: an openai-agents Agent run by its Runner, cached with the settings its docs document.

Run by `prefixlock.versus` in its own venv (`openai-agents`; nothing from prefixlock, only
`peer_protocol` beside it). The Agent
runs on the Responses API (`OpenAIResponsesModel`, the SDK's default for OpenAI) with
`ModelSettings(prompt_cache_retention="24h", extra_args={"prompt_cache_key": ...})`:
`prompt_cache_retention` is the ModelSettings field the SDK documents for OpenAI's extended
(up to 24 hours) prompt caching, and `extra_args` is its documented way to pass a request
parameter it has no field for, here a stable per-session `prompt_cache_key` (OpenAI's guide:
requests with the same key are routed together). The conversation is carried as the docs show
(`result.to_input_list()` passed back as the next run's input); each turn builds the Agent with
the tools in the order the tool server listed them and the model the user picked. (Against
OpenAI's own endpoint the Runner generates a key per run when none is given; against any other
base URL, such as the emulator's, it sends none, so the key is set as above.) Tracing is off
(`set_tracing_disabled`): it would upload spans to OpenAI, which the emulator is not.

Compaction: OpenAI's server-side compaction, as ModelSettings documents it:
`context_management=[{"type": "compaction", "compact_threshold": N}]` with the suite's
threshold (the response then carries a compaction item, and the next input continues from it).
Subagents: agents as tools, as the SDK's multi-agent docs show: the sub-agent (the start
message's `subagent` instructions and tools, the same ModelSettings, so the same cache key,
retention and compaction) becomes the `delegate` tool with `Agent.as_tool(...)`, with
`parameters` (a Pydantic model of the call's `task` and `agent`) and an `input_builder` that
gives the sub-agent the task as its input. The tool's advertised schema is set to the start
message's `delegate_tool` schema (as_tool would otherwise send its own strict rendering of the
model, and every client must offer the same tool); the Runner runs the function calls of one
reply concurrently, so the four subagents run at once.
Same line protocol as anthropic_sdk.py (peer_protocol.py); the cache key is its
`cache_key(start)`.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from . import peer_protocol
else:  # run as a script, in its own venv: this folder is on the path
    import peer_protocol


def main() -> None:
    from openai import AsyncOpenAI
    from pydantic import BaseModel

    from agents import (
        Agent,
        FunctionTool,
        ModelSettings,
        OpenAIResponsesModel,
        Runner,
        set_tracing_disabled,
    )

    set_tracing_disabled(True)
    start = peer_protocol.read()
    client = AsyncOpenAI(api_key=start["api_key"], base_url=start["base_url"] + "/v1")
    settings = ModelSettings(
        max_tokens=4096,
        prompt_cache_retention="24h",
        extra_args={"prompt_cache_key": peer_protocol.cache_key(start)},
        context_management=[
            {"type": "compaction", "compact_threshold": int(start["compact_tokens"])}
        ],
    )
    history: list[Any] = []

    # Tools may run concurrently (the subagents' too): each is asked from a worker thread, so
    # the event loop keeps serving the others.
    def remote(name: str) -> Any:
        async def call(_ctx: Any, arguments: str) -> str:
            return await peer_protocol.ask_tool_async(name, json.loads(arguments or "{}"))

        return call

    def remote_tools(specs: list[dict[str, Any]]) -> list[Any]:
        return [
            FunctionTool(
                name=t["name"],
                description=t["description"],
                params_json_schema=t["input_schema"],
                on_invoke_tool=remote(t["name"]),
                strict_json_schema=False,  # the tool server's schemas, as it lists them
            )
            for t in specs
        ]

    class DelegateInput(BaseModel):
        task: str
        agent: str | None = None

    def task_of(options: Any) -> str:
        return str(options["params"]["task"])

    def delegation(model: Any) -> list[Any]:
        """The `delegate` tool: the sub-agent as a tool (agents as tools)."""
        spec = start.get("delegate_tool")
        if not spec:
            return []
        sub_agent = Agent(
            name=start["subagent"]["agent"],
            instructions=start["subagent"]["system"],
            tools=remote_tools(start["subagent"]["tools"]),
            model=model,
            model_settings=settings,
        )
        tool = sub_agent.as_tool(
            tool_name=spec["name"],
            tool_description=spec["description"],
            parameters=DelegateInput,
            input_builder=task_of,
            max_turns=25,
        )
        tool.params_json_schema = spec["input_schema"]
        tool.strict_json_schema = False
        return [tool]

    for msg in peer_protocol.turns():
        model = OpenAIResponsesModel(model=msg["model"], openai_client=client)
        agent = Agent(
            name="assistant",
            instructions=start["system"],
            tools=[*remote_tools(msg["tools"]), *delegation(model)],
            model=model,
            model_settings=settings,
        )
        result = Runner.run_sync(
            agent, [*history, {"role": "user", "content": msg["prompt"]}], max_turns=25
        )
        history = result.to_input_list()


if __name__ == "__main__":
    peer_protocol.serve(main)
