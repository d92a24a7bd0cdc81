import time


def call(client, question):
    return client.messages.create(
        model="claude-sonnet-4-6",
        max_tokens=256,
        system=[
            {"type": "text", "text": "Stable handbook text."},
            {
                "type": "text",
                "text": f"Clock: {time.time()}",
                "cache_control": {"type": "ephemeral"},
            },
        ],
        messages=[{"role": "user", "content": question}],
    )
