"""gpt-5.6: a breakpoint on the model's own earlier answer."""

RULES = "Cite the file and line of every claim. " * 100


def follow_up(client, first_question, first_answer, question):
    return client.responses.create(
        model="gpt-5.6-terra",
        instructions=RULES,
        input=[
            {"role": "user", "content": first_question},
            {
                "role": "assistant",
                "content": [
                    {
                        "type": "output_text",
                        "text": first_answer,
                        "prompt_cache_breakpoint": {"mode": "explicit"},
                    },
                ],
            },
            {"role": "user", "content": question},
        ],
        prompt_cache_key="session-1",
    )
