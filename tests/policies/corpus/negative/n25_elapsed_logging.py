import time

INSTRUCTIONS = "Summarize the log."


def run(client, text: str):
    t0 = time.perf_counter()
    out = client.responses.create(
        model="gpt-5.4", instructions=INSTRUCTIONS, input=text, prompt_cache_key="summarize"
    )
    print(f"{time.perf_counter() - t0:.2f}s")
    return out
