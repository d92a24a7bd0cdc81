"""gpt-5.6 in explicit mode with no breakpoint anywhere: nothing is cached."""

RULES = "Cite the file and line of every claim. " * 100


def ask(client, question):
    return client.chat.completions.create(
        model="gpt-5.6-terra",
        messages=[
            {"role": "system", "content": RULES},
            {"role": "user", "content": question},
        ],
        prompt_cache_key="session-1",
        prompt_cache_options={"mode": "explicit"},
    )
