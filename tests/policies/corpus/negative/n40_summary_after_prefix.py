"""Compaction that keeps the session's prefix: the same system prompt and the history as
messages, the instruction as the last user turn, so the request reads the cached prefix."""

SYSTEM = "You are a careful coding assistant."


def summarize(client, history):
    reply = client.messages.create(
        model="claude-sonnet-4-6",
        max_tokens=1024,
        system=SYSTEM,
        messages=[*history, {"role": "user", "content": "Summarise the conversation so far."}],
    )
    return reply.content[0].text
