import datetime

STARTED = datetime.datetime.now()


def system_prompt_text() -> str:
    return f"Server started {STARTED}. Be helpful."
