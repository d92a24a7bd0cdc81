"""The request and the upstream's answer the proxy's edge tests (limits, hostile clients) send:
a small Anthropic Messages request and a whole answer to it."""

from __future__ import annotations

import json

KEY = "sk-test-key"
BODY = json.dumps(
    {"model": "claude-sonnet-4-6", "max_tokens": 8, "messages": [{"role": "user", "content": "hi"}]}
).encode()
OK = json.dumps(
    {
        "id": "msg_1",
        "type": "message",
        "role": "assistant",
        "model": "claude-sonnet-4-6",
        "content": [{"type": "text", "text": "ok"}],
        "stop_reason": "end_turn",
        "usage": {"input_tokens": 9, "output_tokens": 1},
    }
).encode()
