"""DeepSeek-style caching on the emulator's OpenAI-compatible path: hit and miss counters.

DeepSeek reports `prompt_cache_hit_tokens` and `prompt_cache_miss_tokens` (their sum is
`prompt_tokens`) and charges no write fee; a hit needs a whole stored prefix unit, stored at the
end of each request's input and output. The second turn of a chat reads all of the first turn's
input and its reply (sent back as the assistant message): only the new question misses.
Offline, through the official `openai` SDK (the counters arrive as extra usage fields).
"""

from __future__ import annotations

import openai
from openai.types.chat import ChatCompletionMessageParam

from prefixlock.cache.units import openai_units
from prefixlock.clock import ManualClock
from prefixlock.emulator import Emulator

SYSTEM = "You are a terse assistant for the billing service's on-call engineers. " * 90


def ask(client: openai.OpenAI, chat: list[ChatCompletionMessageParam]) -> tuple[int, int]:
    """Send the chat, append the reply; returns (prompt tokens, hit tokens)."""
    reply = client.chat.completions.create(model="deepseek-v4-flash", messages=chat)
    usage = reply.usage
    assert usage is not None and usage.model_extra is not None
    chat.append({"role": "assistant", "content": reply.choices[0].message.content})
    hit = usage.model_extra["prompt_cache_hit_tokens"]
    miss = usage.model_extra["prompt_cache_miss_tokens"]
    print(f"prompt {usage.prompt_tokens:>5}  hit {hit:>5}  miss {miss:>5}")
    assert hit + miss == usage.prompt_tokens
    return usage.prompt_tokens, hit


def main() -> None:
    with Emulator.start(clock=ManualClock()) as emu:
        client = openai.OpenAI(api_key="any-key", base_url=emu.openai_base_url)
        chat: list[ChatCompletionMessageParam] = [
            {"role": "system", "content": SYSTEM},
            {"role": "user", "content": "Why did last night's invoice run fail?"},
        ]
        first_prompt, _ = ask(client, chat)
        chat.append({"role": "user", "content": "Which customers were affected?"})
        _, hit = ask(client, chat)
        # Turn 2 read turn 1's input and reply: everything up to its new question.
        units = openai_units({"model": "deepseek-v4-flash", "messages": chat[:-1]})
        assert hit == units[-2].end > first_prompt


if __name__ == "__main__":
    main()
