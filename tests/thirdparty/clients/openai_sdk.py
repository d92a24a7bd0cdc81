"""The bare `openai` SDK: a Responses loop continued by `previous_response_id` (the server keeps
the conversation; the last turn streams), then a Chat Completions loop that re-sends the whole
history."""

from __future__ import annotations

from typing import Any

import openai
from _common import QUESTIONS, SYSTEM, args, report

base, key = args()
client = openai.OpenAI(api_key=key, base_url=base + "/v1", max_retries=0)
previous: str | None = None
for turn, question in enumerate(QUESTIONS, 1):
    kwargs: Any = {
        "model": "gpt-5.4",
        "instructions": SYSTEM,
        "input": question,
        "previous_response_id": previous,
    }
    if turn < len(QUESTIONS):
        resp = client.responses.create(**kwargs)
    else:  # the last turn streams
        with client.responses.stream(**kwargs) as stream:
            resp = stream.get_final_response()
    previous = resp.id
    usage = resp.usage
    report(
        turn,
        resp.output_text,
        api="responses",
        cached=usage.input_tokens_details.cached_tokens if usage else None,
    )

messages: list[Any] = [{"role": "system", "content": SYSTEM}]
for turn, question in enumerate(QUESTIONS, len(QUESTIONS) + 1):
    messages.append({"role": "user", "content": question})
    chat = client.chat.completions.create(model="gpt-5.4", messages=messages)
    text = chat.choices[0].message.content or ""
    messages.append({"role": "assistant", "content": text})
    details = chat.usage.prompt_tokens_details if chat.usage else None
    report(turn, text, api="chat", cached=details.cached_tokens if details else None)
