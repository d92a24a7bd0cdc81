"""A Chat Completions setup shared by the emulator's OpenAI-path tests: a system prompt above
the 1,024-token cache minimum, two small function tools, and an official `openai` client on the
emulator with the SDK's own retries off (a fault must reach the test, not be retried away)."""

from __future__ import annotations

from typing import Any

from prefixlock.emulator import Emulator
from tests.helpers.sdk import openai

SYSTEM = "You are a careful assistant for the payroll service's on-call engineers. " * 100
TOOLS: list[Any] = [
    {
        "type": "function",
        "function": {
            "name": name,
            "description": f"{name} in the workspace",
            "parameters": {"type": "object", "properties": {"path": {"type": "string"}}},
        },
    }
    for name in ("list_files", "read_file")
]


def chat_client(emu: Emulator) -> openai.OpenAI:
    return openai.OpenAI(api_key="test-key", base_url=emu.base_url + "/v1", max_retries=0)
