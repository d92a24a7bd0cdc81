"""The LangChain agent loop both LangChain peers run (langchain_peer.py on ChatAnthropic,
langchain_openai_peer.py on ChatOpenAI): imported by its bare name from their venvs, as
`peer_protocol` is; it imports LangChain only when a peer runs it.

Each turn builds the agent (`create_agent`) with the tools in the order the tool server listed
them, the model the user picked, the peer's caching middleware, and compaction as LangChain's
middleware page shows it: `SummarizationMiddleware` past a token trigger (the suite's
threshold, sent in the start message), keeping the documented last 20 messages. The
conversation is the agent state's `messages`, passed back each turn. Subagents: the multi-agent
page's "subagents as tools": a `delegate` tool (the start message's schema) whose function
invokes a sub-agent (`create_agent` on the same model with the start message's `subagent`
prompt and tools and the same caching middleware) and returns its last message; the agent's
tool node runs the tool calls of one reply concurrently.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from . import peer_protocol
else:  # run from a peer script, in its own venv: this folder is on the path
    import peer_protocol


def run(
    start: dict[str, Any],
    chat_model: Callable[[str], Any],
    caching: Callable[[], list[Any]],
) -> None:
    """The session after `start`: `chat_model(model id)` is the turn's chat model, `caching()`
    the caching middleware an agent gets (a fresh list for each agent)."""
    from langchain.agents import create_agent
    from langchain.agents.middleware import SummarizationMiddleware
    from langchain_core.messages import HumanMessage
    from langchain_core.tools import StructuredTool

    _remember_block_types()

    def tool(func: Callable[..., str], spec: dict[str, Any]) -> Any:
        """A tool that runs `func`, named and described as `spec` (a tool server's listing)."""
        return StructuredTool.from_function(
            func=func,
            name=spec["name"],
            description=spec["description"],
            args_schema=spec["input_schema"],
        )

    def remote_tools(specs: list[dict[str, Any]]) -> list[Any]:
        return [tool(peer_protocol.remote_tool(t["name"]), t) for t in specs]

    def delegation(model: Any) -> list[Any]:
        """The `delegate` tool: each call invokes the sub-agent (subagents as tools)."""
        spec = start.get("delegate_tool")
        if not spec:
            return []
        sub_agent = create_agent(
            model,
            tools=remote_tools(start["subagent"]["tools"]),
            system_prompt=start["subagent"]["system"],
            middleware=caching(),
        )

        def delegate(task: str, agent: str = "") -> str:
            state = sub_agent.invoke({"messages": [HumanMessage(task)]})
            return str(state["messages"][-1].text)

        return [tool(delegate, spec)]

    history: list[Any] = []
    for msg in peer_protocol.turns():
        model = chat_model(msg["model"])
        agent = create_agent(
            model,
            tools=[*remote_tools(msg["tools"]), *delegation(model)],
            system_prompt=start["system"],
            middleware=[
                *caching(),
                # prefixlock: ignore[PL303] LangChain's summariser at its documented settings
                SummarizationMiddleware(
                    model=model,
                    trigger=("tokens", int(start["compact_tokens"])),
                    keep=("messages", 20),
                ),
            ],
        )
        state = agent.invoke({"messages": [*history, HumanMessage(msg["prompt"])]})
        history = list(state["messages"])


def _remember_block_types() -> None:
    """langchain-core works out its data block types from their type hints again for every
    content block of every request (`_get_data_content_block_types`, a pure function of its own
    types): over half this peer's CPU. It is computed once instead; the requests are the same
    byte for byte. (Private, so only where it is there.)"""
    import functools

    from langchain_core.messages import content

    found = getattr(content, "_get_data_content_block_types", None)
    if callable(found) and not hasattr(found, "cache_info"):
        content._get_data_content_block_types = functools.cache(found)
