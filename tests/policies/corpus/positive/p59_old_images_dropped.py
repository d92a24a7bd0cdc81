"""Old screenshots are dropped from earlier tool results, counted down across the history: the
results that lose their image are rewritten, and the prefix changes there."""


def drop_old_images(messages, keep=3):
    results = [
        part
        for message in messages
        for part in message["content"]
        if part.get("type") == "tool_result"
    ]
    to_remove = sum(1 for r in results for c in r["content"] if c["type"] == "image") - keep
    for result in results:
        kept = []
        for content in result["content"]:
            if content["type"] == "image" and to_remove > 0:
                to_remove -= 1
                continue
            kept.append(content)
        result["content"] = kept


def ask(client, messages):
    drop_old_images(messages)
    return client.messages.create(model="claude-sonnet-4-6", max_tokens=512, messages=messages)
