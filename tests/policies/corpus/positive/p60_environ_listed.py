"""The environment's variables listed into the system prompt: their order is the launching
process's, so two shells send different bytes."""

import os


def build_system():
    env = "\n".join(f"{k}={v}" for k, v in os.environ.items() if k.startswith("APP_"))
    return "You run inside this environment:\n" + env


def ask(client, messages):
    return client.messages.create(
        model="claude-sonnet-4-6", max_tokens=512, system=build_system(), messages=messages
    )
