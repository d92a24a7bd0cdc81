"""LangChain v1 with its defaults: `create_agent` over `ChatAnthropic`, no caching middleware, so
no `cache_control` anywhere (what a user gets who never read the caching docs). Eight turns; the
conversation is carried in the agent's messages."""

from __future__ import annotations

from typing import Any

from _common import SESSION, SYSTEM, args, report
from langchain.agents import create_agent
from langchain_anthropic import ChatAnthropic

base, key = args()
model = ChatAnthropic(
    model="claude-sonnet-4-6", api_key=key, base_url=base, max_tokens=256, max_retries=0
)
agent = create_agent(model, system_prompt=SYSTEM)
messages: list[Any] = []
for turn, question in enumerate(SESSION, 1):
    state = agent.invoke({"messages": [*messages, {"role": "user", "content": question}]})
    messages = state["messages"]
    last = messages[-1]
    details = (last.usage_metadata or {}).get("input_token_details", {})
    report(turn, str(last.content), cache_read=details.get("cache_read"))
