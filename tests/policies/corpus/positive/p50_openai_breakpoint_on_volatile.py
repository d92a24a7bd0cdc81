"""gpt-5.6: the system prompt's breakpoint sits on a block holding the current time."""

import time

RULES = "Cite the file and line of every claim. " * 100


def ask(client, question):
    return client.chat.completions.create(
        model="gpt-5.6-terra",
        messages=[
            {
                "role": "system",
                "content": [
                    {"type": "text", "text": RULES},
                    {
                        "type": "text",
                        "text": f"Clock: {time.time()}",
                        "prompt_cache_breakpoint": {"mode": "explicit"},
                    },
                ],
            },
            {"role": "user", "content": question},
        ],
        prompt_cache_key="session-1",
    )
