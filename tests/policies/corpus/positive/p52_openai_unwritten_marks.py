"""gpt-5.6 in implicit mode: five explicit marks, but a request writes only the latest three
(and OpenAI's own breakpoint on the newest message): the first two are never written."""

RULES = "Cite the file and line of every claim. " * 100
MARK = {"mode": "explicit"}


def ask(client, examples, question):
    return client.chat.completions.create(
        model="gpt-5.6-terra",
        messages=[
            {
                "role": "system",
                "content": [{"type": "text", "text": RULES, "prompt_cache_breakpoint": MARK}],
            },
            {
                "role": "user",
                "content": [{"type": "text", "text": examples[0], "prompt_cache_breakpoint": MARK}],
            },
            {
                "role": "user",
                "content": [{"type": "text", "text": examples[1], "prompt_cache_breakpoint": MARK}],
            },
            {
                "role": "user",
                "content": [{"type": "text", "text": examples[2], "prompt_cache_breakpoint": MARK}],
            },
            {
                "role": "user",
                "content": [{"type": "text", "text": examples[3], "prompt_cache_breakpoint": MARK}],
            },
            {"role": "user", "content": question},
        ],
        prompt_cache_key="session-1",
    )
