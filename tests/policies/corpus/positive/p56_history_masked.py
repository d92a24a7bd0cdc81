"""Old tool outputs are masked as the window slides: each turn rewrites an earlier message."""


def masked(history, keep=5):
    out = []
    for idx, entry in enumerate(history):
        if idx < len(history) - keep and entry["role"] == "tool":
            entry = dict(entry)
            entry["content"] = "(output omitted)"
        out.append(entry)
    return out


def ask(client, history):
    return client.messages.create(
        model="claude-sonnet-4-6", max_tokens=512, messages=masked(history)
    )
