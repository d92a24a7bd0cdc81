"""The deprecated retention sent beside the TTL that replaces it."""

RULES = "Cite the file and line of every claim. " * 100


def ask(client, question):
    return client.responses.create(
        model="gpt-5.6-terra",
        instructions=RULES,
        input=question,
        prompt_cache_key="session-1",
        prompt_cache_retention="24h",
        prompt_cache_options={"ttl": "12h"},
    )
