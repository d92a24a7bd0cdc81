import datetime


def history(call_id: str, question: str) -> list[dict]:
    return [
        {"role": "user", "content": "List the files."},
        {
            "role": "user",
            "content": [
                {
                    "type": "tool_result",
                    "tool_use_id": call_id,
                    "content": f"listed at {datetime.datetime.now()}",
                }
            ],
        },
        {"role": "user", "content": question},
    ]


def call(client, call_id, question):
    return client.messages.create(model="gpt-5.4", messages=history(call_id, question))
