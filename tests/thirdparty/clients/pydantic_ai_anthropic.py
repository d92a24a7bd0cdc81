"""pydantic-ai's Anthropic model with its own prompt-caching settings (instructions and the
latest message cached), three turns carried by `message_history`."""

from __future__ import annotations

from _common import QUESTIONS, SYSTEM, args, report
from pydantic_ai import Agent
from pydantic_ai.models.anthropic import AnthropicModel, AnthropicModelSettings
from pydantic_ai.providers.anthropic import AnthropicProvider

base, key = args()
model = AnthropicModel("claude-sonnet-4-6", provider=AnthropicProvider(api_key=key, base_url=base))
settings = AnthropicModelSettings(
    max_tokens=256, anthropic_cache_instructions=True, anthropic_cache_messages=True
)
agent = Agent(model, instructions=SYSTEM, model_settings=settings)
history = None
for turn, question in enumerate(QUESTIONS, 1):
    result = agent.run_sync(question, message_history=history)
    history = result.all_messages()
    report(turn, result.output, cache_read=result.usage.cache_read_tokens)
