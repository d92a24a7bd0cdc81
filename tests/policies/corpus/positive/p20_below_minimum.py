SHORT = "You are a terse assistant. Answer in one line."


def call(client, question):
    return client.messages.create(
        model="claude-opus-4-7",
        max_tokens=64,
        system=[{"type": "text", "text": SHORT, "cache_control": {"type": "ephemeral"}}],
        messages=[{"role": "user", "content": question}],
    )
