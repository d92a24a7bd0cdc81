"""pydantic-ai's Anthropic model with its defaults (no cache settings, so no `cache_control`),
eight turns carried by `message_history`, the last one streamed."""

from __future__ import annotations

import asyncio

from _common import SESSION, SYSTEM, args, report
from pydantic_ai import Agent
from pydantic_ai.models.anthropic import AnthropicModel, AnthropicModelSettings
from pydantic_ai.providers.anthropic import AnthropicProvider

base, key = args()
model = AnthropicModel("claude-sonnet-4-6", provider=AnthropicProvider(api_key=key, base_url=base))
agent = Agent(model, instructions=SYSTEM, model_settings=AnthropicModelSettings(max_tokens=256))


async def main() -> None:
    history = None
    for turn, question in enumerate(SESSION, 1):
        if turn < len(SESSION):
            result = await agent.run(question, message_history=history)
            history, output, usage = result.all_messages(), result.output, result.usage
        else:  # the last turn streams
            async with agent.run_stream(question, message_history=history) as stream:
                output = await stream.get_output()
            history, usage = stream.all_messages(), stream.usage
        report(turn, output, cache_read=usage.cache_read_tokens)


asyncio.run(main())
