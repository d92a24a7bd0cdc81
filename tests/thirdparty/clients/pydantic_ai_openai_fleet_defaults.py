"""A fleet: eight sessions of one pydantic-ai agent (OpenAI Responses model, its defaults, so no
`prompt_cache_key`) served side by side, eight turns each, the conversation carried by
`message_history`. Every session starts with the same long instructions, so without a key they
all route as one prefix."""

from __future__ import annotations

import asyncio

from _common import SESSION, SYSTEM, args, report
from openai import AsyncOpenAI
from pydantic_ai import Agent
from pydantic_ai.messages import ModelMessage
from pydantic_ai.models.openai import OpenAIResponsesModel
from pydantic_ai.providers.openai import OpenAIProvider

SESSIONS = 8
OWN_LOG = "build {0}: step failed, see log. " * 400  # each session's own first message

base, key = args()
client = AsyncOpenAI(api_key=key, base_url=base + "/v1", max_retries=0)
model = OpenAIResponsesModel("gpt-5.4", provider=OpenAIProvider(openai_client=client))
agent = Agent(model, instructions=SYSTEM)


async def main() -> None:
    histories: list[list[ModelMessage] | None] = [None] * SESSIONS
    for turn, question in enumerate(SESSION, 1):
        for session in range(SESSIONS):
            text = question
            if turn == 1:  # each session opens on its own build log
                text += "\n" + OWN_LOG.format(session)
            result = await agent.run(text, message_history=histories[session])
            histories[session] = result.all_messages()
            report(turn, result.output, session=session, cache_read=result.usage.cache_read_tokens)


asyncio.run(main())
