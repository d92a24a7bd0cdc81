import datetime


def record_result(messages: list[dict], call_id: str, output: str) -> None:
    stamp = datetime.datetime.now().isoformat()
    messages.append(
        {
            "role": "user",
            "content": [
                {"type": "tool_result", "tool_use_id": call_id, "content": f"[{stamp}] {output}"}
            ],
        }
    )
