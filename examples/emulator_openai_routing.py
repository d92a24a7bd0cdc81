"""OpenAI-style routing on the emulator: why `prompt_cache_key` matters.

Eight sessions share a long system prompt. Without a cache key they all hash to the same machine,
overflow past ~15 requests a minute, and land on machines that miss; with a per-session key each
keeps its own machine. Runs offline through the official `openai` SDK.
"""

from __future__ import annotations

import openai
from openai.types.chat import ChatCompletionMessageParam

from prefixlock.clock import ManualClock
from prefixlock.emulator import Emulator, EmulatorConfig, OpenAICacheConfig

SYSTEM = "You are a meticulous assistant for the invoice service repository. " * 110


def run(with_key: bool) -> str:
    clock = ManualClock()
    config = EmulatorConfig(openai=OpenAICacheConfig(machines=8))
    with Emulator.start(config=config, clock=clock) as emu:
        client = openai.OpenAI(api_key="any-key", base_url=emu.openai_base_url)
        chats: dict[int, list[ChatCompletionMessageParam]] = {
            s: [{"role": "system", "content": SYSTEM}] for s in range(8)
        }
        cached = prompt = 0
        for turn in range(4):
            for s, chat in chats.items():
                question = f"Session {s}: question {turn}"
                if turn == 0:  # each session starts by pasting its own file
                    question += "\n" + f"line {s} of the session's own file, " * 300
                chat.append({"role": "user", "content": question})
                key = f"session-{s}" if with_key else openai.omit  # omit: no field at all
                reply = client.chat.completions.create(
                    model="gpt-5.4", messages=chat, prompt_cache_key=key
                )
                assert reply.usage is not None and reply.usage.prompt_tokens_details is not None
                cached += reply.usage.prompt_tokens_details.cached_tokens or 0
                prompt += reply.usage.prompt_tokens
                chat.append({"role": "assistant", "content": reply.choices[0].message.content})
                clock.advance(1)
        machines = sorted({r.machine for r in emu.served() if r.machine is not None})
    return f"{cached / prompt:6.1%} of prompt tokens cached, machines used {machines}"


if __name__ == "__main__":
    print("with prompt_cache_key   ", run(True))
    print("without prompt_cache_key", run(False))
