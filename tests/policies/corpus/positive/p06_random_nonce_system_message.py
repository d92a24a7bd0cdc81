import random


def messages_for(question: str) -> list[dict[str, str]]:
    nonce = random.randint(0, 1_000_000)
    return [
        {"role": "system", "content": f"Session nonce {nonce}. Answer briefly."},
        {"role": "user", "content": question},
    ]
