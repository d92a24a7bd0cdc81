HANDBOOK = "Always explain the root cause before proposing a fix. " * 120


def call(client, first, answer, question):
    # A conversation: an earlier turn follows the system prompt. (A one-off request, the
    # system prompt and one question, is not reported: nothing after its prompt is re-read.)
    return client.messages.create(
        model="claude-sonnet-4-6",
        max_tokens=1024,
        system=HANDBOOK,
        messages=[
            {"role": "user", "content": first},
            {"role": "assistant", "content": answer},
            {"role": "user", "content": question},
        ],
    )
