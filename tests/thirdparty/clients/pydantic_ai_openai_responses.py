"""pydantic-ai's OpenAI Responses model with `openai_previous_response_id='auto'`: from the
second turn it sends only the new messages and the previous response's id; the last turn
streams."""

from __future__ import annotations

import asyncio

from _common import QUESTIONS, SYSTEM, args, report
from pydantic_ai import Agent
from pydantic_ai.models.openai import OpenAIResponsesModel, OpenAIResponsesModelSettings
from pydantic_ai.providers.openai import OpenAIProvider

base, key = args()
model = OpenAIResponsesModel("gpt-5.4", provider=OpenAIProvider(base_url=base + "/v1", api_key=key))
settings = OpenAIResponsesModelSettings(openai_previous_response_id="auto")
agent = Agent(model, instructions=SYSTEM, model_settings=settings)


async def main() -> None:
    history = None
    for turn, question in enumerate(QUESTIONS, 1):
        if turn < len(QUESTIONS):
            result = await agent.run(question, message_history=history)
            history, output, usage = result.all_messages(), result.output, result.usage
        else:  # the last turn streams
            async with agent.run_stream(question, message_history=history) as stream:
                output = await stream.get_output()
            history, usage = stream.all_messages(), stream.usage
        report(turn, output, cache_read=usage.cache_read_tokens)


asyncio.run(main())
