"""Peer: an openai-agents Agent run by its Runner, cached with the settings its docs document.

Run by `prefixlock.versus` in its own venv (`openai-agents`; nothing from prefixlock). The Agent
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
Same line protocol as anthropic_sdk.py; `start` also carries `session` (the cache key).
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
    from openai import AsyncOpenAI

    from agents import (
        Agent,
        FunctionTool,
        ModelSettings,
        OpenAIResponsesModel,
        Runner,
        set_tracing_disabled,
    )

    set_tracing_disabled(True)
    start = _read()
    client = AsyncOpenAI(api_key=start["api_key"], base_url=start["base_url"] + "/v1")
    settings = ModelSettings(
        max_tokens=4096,
        prompt_cache_retention="24h",
        extra_args={"prompt_cache_key": f"session-{start['session']}"},
        context_management=[
            {"type": "compaction", "compact_threshold": int(start["compact_tokens"])}
        ],
    )
    history: list[Any] = []

    # Tools may run concurrently: one question and its answer on the pipe at a time.
    pipe = threading.Lock()

    def remote(name: str) -> Any:
        async def call(_ctx: Any, arguments: str) -> str:
            with pipe:
                _write({"op": "tool", "id": "", "name": name,
                        "input": json.loads(arguments or "{}")})
                return str(_read()["content"])

        return call

    while True:
        msg = _read()
        if msg["op"] == "end":
            break
        tools = [
            FunctionTool(
                name=t["name"],
                description=t["description"],
                params_json_schema=t["input_schema"],
                on_invoke_tool=remote(t["name"]),
                strict_json_schema=False,  # the tool server's schemas, as it lists them
            )
            for t in msg["tools"]
        ]
        agent = Agent(
            name="assistant",
            instructions=start["system"],
            tools=tools,
            model=OpenAIResponsesModel(model=msg["model"], openai_client=client),
            model_settings=settings,
        )
        result = Runner.run_sync(
            agent, [*history, {"role": "user", "content": msg["prompt"]}], max_turns=25
        )
        history = result.to_input_list()
        _write({"op": "done"})


if __name__ == "__main__":
    main()
