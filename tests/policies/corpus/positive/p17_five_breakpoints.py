def call(client, question):
    return client.messages.create(
        model="claude-sonnet-4-6",
        max_tokens=256,
        system=[
            {"type": "text", "text": "Part one.", "cache_control": {"type": "ephemeral"}},
            {"type": "text", "text": "Part two.", "cache_control": {"type": "ephemeral"}},
            {"type": "text", "text": "Part three.", "cache_control": {"type": "ephemeral"}},
            {"type": "text", "text": "Part four.", "cache_control": {"type": "ephemeral"}},
        ],
        messages=[
            {
                "role": "user",
                "content": [
                    {"type": "text", "text": question, "cache_control": {"type": "ephemeral"}}
                ],
            }
        ],
    )
