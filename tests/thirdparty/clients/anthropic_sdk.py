"""The bare `anthropic` SDK: a multi-turn loop with the system prompt and the latest user
message marked `cache_control`, as Anthropic's prompt-caching guide shows; the last turn
streams."""

from __future__ import annotations

from typing import Any

import anthropic
from _common import QUESTIONS, SYSTEM, args, report

base, key = args()
client = anthropic.Anthropic(api_key=key, base_url=base, max_retries=0)
system = [{"type": "text", "text": SYSTEM, "cache_control": {"type": "ephemeral"}}]
messages: list[dict[str, Any]] = []
for turn, question in enumerate(QUESTIONS, 1):
    # Only the newest user message carries the moving breakpoint (4 at most per request).
    for m in messages:
        if m["role"] == "user":
            m["content"] = [{"type": "text", "text": m["content"][0]["text"]}]
    messages.append(
        {
            "role": "user",
            "content": [{"type": "text", "text": question, "cache_control": {"type": "ephemeral"}}],
        }
    )
    kwargs: Any = {
        "model": "claude-sonnet-4-6",
        "max_tokens": 256,
        "system": system,
        "messages": messages,
    }
    if turn < len(QUESTIONS):
        reply = client.messages.create(**kwargs)
    else:  # the last turn streams
        with client.messages.stream(**kwargs) as stream:
            reply = stream.get_final_message()
    text = "".join(b.text for b in reply.content if b.type == "text")
    messages.append({"role": "assistant", "content": [{"type": "text", "text": text}]})
    report(turn, text, cache_read=reply.usage.cache_read_input_tokens)
