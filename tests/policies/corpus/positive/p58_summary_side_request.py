"""A summariser flattens the conversation into one user message under its own system prompt:
nothing of it is read from the session's cache."""

SUMMARIZE = "Summarise the conversation below in ten lines."


def summarize(client, history):
    text = ""
    for message in history:
        text += f"{message['role']}: {message['content']}\n"
    reply = client.chat.completions.create(
        model="gpt-5.6-terra",
        messages=[{"role": "system", "content": SUMMARIZE}, {"role": "user", "content": text}],
    )
    return reply.choices[0].message.content
