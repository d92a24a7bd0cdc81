HANDBOOK = "Always explain the root cause before proposing a fix. " * 120


def call(client, question):
    return client.messages.create(
        model="claude-sonnet-4-6",
        max_tokens=1024,
        system=HANDBOOK,
        messages=[{"role": "user", "content": question}],
    )
