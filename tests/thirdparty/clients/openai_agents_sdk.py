"""openai-agents (the Agents SDK) on the Responses API, each turn continuing the last by
`previous_response_id` (the last turn streamed), tracing off (it would post to OpenAI)."""

from __future__ import annotations

import asyncio

from _common import QUESTIONS, SYSTEM, args, report
from openai import AsyncOpenAI

from agents import Agent, OpenAIResponsesModel, Runner, set_tracing_disabled

base, key = args()
set_tracing_disabled(True)
client = AsyncOpenAI(api_key=key, base_url=base + "/v1", max_retries=0)
agent = Agent(
    name="build doctor",
    instructions=SYSTEM,
    model=OpenAIResponsesModel(model="gpt-5.4", openai_client=client),
)


async def main() -> None:
    previous: str | None = None
    for turn, question in enumerate(QUESTIONS, 1):
        if turn < len(QUESTIONS):
            result = await Runner.run(agent, question, previous_response_id=previous)
        else:  # the last turn streams
            result = Runner.run_streamed(agent, question, previous_response_id=previous)
            async for _ in result.stream_events():
                pass
        previous = result.last_response_id
        cached = sum(r.usage.input_tokens_details.cached_tokens for r in result.raw_responses)
        report(turn, str(result.final_output), cache_read=cached)


asyncio.run(main())
