"""gpt-5.6 requests that use breakpoints well: the end of the system prompt and the last stable
message are marked, the newest turn (volatile facts included) carries OpenAI's own breakpoint
or a mark that the next request reads as history; explicit mode always has a mark."""

import datetime

RULES = "Cite the file and line of every claim. " * 100
MARK = {"mode": "explicit"}


def ask(client, history, question):
    return client.chat.completions.create(
        model="gpt-5.6-terra",
        messages=[
            {
                "role": "system",
                "content": [{"type": "text", "text": RULES, "prompt_cache_breakpoint": MARK}],
            },
            *history,
            {"role": "user", "content": question},
        ],
        prompt_cache_key="session-1",
        prompt_cache_options={"mode": "explicit"},
    )


def ask_with_time(client, question):
    now = datetime.datetime.now()
    return client.chat.completions.create(
        model="gpt-5.6-terra",
        messages=[
            {
                "role": "system",
                "content": [{"type": "text", "text": RULES, "prompt_cache_breakpoint": MARK}],
            },
            {
                "role": "user",
                "content": [
                    {
                        "type": "text",
                        "text": f"{question}\nNow: {now:%H:%M}",
                        "prompt_cache_breakpoint": MARK,
                    }
                ],
            },
        ],
        prompt_cache_key="session-1",
    )


def ask_three_examples(client, examples, question):
    return client.responses.create(
        model="gpt-5.6-terra",
        instructions=RULES,
        input=[
            {
                "role": "user",
                "content": [
                    {"type": "input_text", "text": examples[0], "prompt_cache_breakpoint": MARK}
                ],
            },
            {
                "role": "user",
                "content": [
                    {"type": "input_text", "text": examples[1], "prompt_cache_breakpoint": MARK}
                ],
            },
            {
                "role": "user",
                "content": [
                    {"type": "input_text", "text": examples[2], "prompt_cache_breakpoint": MARK}
                ],
            },
            {
                "role": "user",
                "content": [
                    {"type": "input_text", "text": question, "prompt_cache_breakpoint": MARK}
                ],
            },
        ],
        prompt_cache_key="session-1",
        prompt_cache_options={"ttl": "12h"},
    )


def ask_older_model(client, question):
    return client.chat.completions.create(
        model="gpt-5.4",
        messages=[{"role": "system", "content": RULES}, {"role": "user", "content": question}],
        prompt_cache_key="session-1",
        prompt_cache_retention="24h",
    )
