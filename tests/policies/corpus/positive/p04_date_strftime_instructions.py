import datetime

import openai


def run(client: openai.OpenAI, task: str) -> None:
    day = datetime.datetime.now().strftime("%A %d %B %Y")
    client.responses.create(
        model="gpt-5.4",
        instructions=f"You are a planner. It is {day}.",
        input=task,
        prompt_cache_key="planner",
    )
