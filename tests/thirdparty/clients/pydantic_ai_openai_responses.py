"""pydantic-ai's OpenAI Responses model with `openai_previous_response_id='auto'`: from the
second turn it sends only the new messages and the previous response's id."""

from __future__ import annotations

from _common import QUESTIONS, SYSTEM, args, report
from pydantic_ai import Agent
from pydantic_ai.models.openai import OpenAIResponsesModel, OpenAIResponsesModelSettings
from pydantic_ai.providers.openai import OpenAIProvider

base, key = args()
model = OpenAIResponsesModel("gpt-5.4", provider=OpenAIProvider(base_url=base + "/v1", api_key=key))
settings = OpenAIResponsesModelSettings(openai_previous_response_id="auto")
agent = Agent(model, instructions=SYSTEM, model_settings=settings)
history = None
for turn, question in enumerate(QUESTIONS, 1):
    result = agent.run_sync(question, message_history=history)
    history = result.all_messages()
    report(turn, result.output, cache_read=result.usage.cache_read_tokens)
