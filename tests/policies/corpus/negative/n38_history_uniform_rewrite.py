"""Every message converted alike (string content to a block list): the same bytes each time."""


def as_blocks(history):
    out = []
    for entry in history:
        entry = dict(entry)
        if isinstance(entry["content"], str):
            entry["content"] = [{"type": "text", "text": entry["content"]}]
        out.append(entry)
    return out


def ask(client, history):
    return client.messages.create(
        model="claude-sonnet-4-6", max_tokens=512, messages=as_blocks(history)
    )
