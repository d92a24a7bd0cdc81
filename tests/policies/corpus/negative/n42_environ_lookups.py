"""Environment variables looked up by name, or listed in sorted order: no order from the
launcher reaches the prompt."""

import os


def build_system():
    region = os.environ.get("APP_REGION", "eu")
    tier = os.environ["APP_TIER"]
    flags = ", ".join(sorted(k for k in os.environ if k.startswith("APP_FLAG_")))
    return f"Region: {region}. Tier: {tier}. Flags: {flags}."


def ask(client, messages):
    return client.messages.create(
        model="claude-sonnet-4-6", max_tokens=512, system=build_system(), messages=messages
    )
