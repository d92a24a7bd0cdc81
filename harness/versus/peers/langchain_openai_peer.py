"""Peer: a LangChain agent (`create_agent`) on ChatOpenAI, cached as langchain-openai documents.

Run by `prefixlock.versus` in its own venv (`langchain`, `langchain-openai`; nothing from
prefixlock). OpenAI caches on its own; ChatOpenAI's docs ("Prompt caching optimization") show
passing OpenAI's `prompt_cache_key` (a stable key, so the requests are routed together) and,
for models before gpt-5.6, `prompt_cache_retention="24h"` with the call. An agent makes the
calls itself, so both go in `model_kwargs`, which ChatOpenAI merges into every request (its
docs: for OpenAI's own parameters, as these are). Compaction is
its `SummarizationMiddleware` with a token trigger (the suite's threshold, sent in the start
message) and the documented `keep=("messages", 20)`, as in the Anthropic LangChain peer. The
conversation is the agent state's `messages`, passed back each turn; each turn builds the agent
with the tools in the order the tool server listed them and the model the user picked. Same
line protocol as anthropic_sdk.py; `start` also carries `session` (the cache key).
Subagents: LangChain's multi-agent page's "subagents as tools": a `delegate` tool (the start
message's schema) whose function invokes a sub-agent (`create_agent` on the same ChatOpenAI,
so the same cache key and retention, with the start message's `subagent` prompt and tools)
and returns its last message; the agent's tool node runs the tool calls of one reply
concurrently.
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
    from langchain.agents import create_agent
    from langchain.agents.middleware import SummarizationMiddleware
    from langchain_core.messages import HumanMessage
    from langchain_core.tools import StructuredTool
    from langchain_openai import ChatOpenAI

    start = _read()
    key = f"session-{start['session']}"
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
            StructuredTool.from_function(
                func=remote(t["name"]),
                name=t["name"],
                description=t["description"],
                args_schema=t["input_schema"],
            )
            for t in specs
        ]

    def delegation(model: Any) -> list[Any]:
        """The `delegate` tool: each call invokes the sub-agent (subagents as tools)."""
        spec = start.get("delegate_tool")
        if not spec:
            return []
        sub_agent = create_agent(
            model,
            tools=remote_tools(start["subagent"]["tools"]),
            system_prompt=start["subagent"]["system"],
        )

        def delegate(task: str, agent: str = "") -> str:
            state = sub_agent.invoke({"messages": [HumanMessage(task)]})
            return str(state["messages"][-1].text)

        return [
            StructuredTool.from_function(
                func=delegate,
                name=spec["name"],
                description=spec["description"],
                args_schema=spec["input_schema"],
            )
        ]

    while True:
        msg = _read()
        if msg["op"] == "end":
            break
        model = ChatOpenAI(
            model=msg["model"],
            api_key=start["api_key"],
            base_url=start["base_url"] + "/v1",
            max_tokens=4096,
            model_kwargs={"prompt_cache_key": key, "prompt_cache_retention": "24h"},
        )
        tools = [*remote_tools(msg["tools"]), *delegation(model)]
        agent = create_agent(
            model,
            tools=tools,
            system_prompt=start["system"],
            middleware=[
                # Compaction as LangChain's middleware page shows it: summarize past a token
                # trigger, keep the last 20 messages. The trigger is the suite's threshold.
                SummarizationMiddleware(
                    model=model,
                    trigger=("tokens", int(start["compact_tokens"])),
                    keep=("messages", 20),
                ),
            ],
        )
        state = agent.invoke({"messages": [*history, HumanMessage(msg["prompt"])]})
        history = list(state["messages"])
        _write({"op": "done"})


if __name__ == "__main__":
    main()
