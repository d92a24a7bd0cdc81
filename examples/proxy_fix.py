"""`prefixlock proxy --fix` in front of an agent you cannot change.

The "agent" here is plain SDK code that sets no cache breakpoints: every request re-bills its
whole prompt. The same conversation runs twice against the local emulator, once through the
proxy observing only, once with its repairs (breakpoints on the tools, the system prompt and the
conversation tail, inserted into the client's bytes; nothing the model reads changes). The
proxy's per-session figures show the difference. Runs offline, no key needed.

From a shell the same is `prefixlock proxy --upstream anthropic --fix` with the agent's
ANTHROPIC_BASE_URL pointed at it (OpenAI agents: OPENAI_BASE_URL=http://127.0.0.1:8787/v1).
"""

from __future__ import annotations

from typing import Any

import anthropic

from prefixlock.clock import ManualClock
from prefixlock.emulator import Emulator
from prefixlock.proxy import Proxy, ProxyConfig, parse_fixes

SYSTEM = "You are a careful coding assistant for the invoice service. " * 150
TOOLS: list[Any] = [
    {"name": "read_file", "description": "Read a file.", "input_schema": {"type": "object"}}
]


def agent(base_url: str, clock: ManualClock) -> None:
    """A third-party agent's loop: no cache_control anywhere."""
    client = anthropic.Anthropic(api_key="any-key", base_url=base_url)
    messages: list[Any] = []
    owed: list[Any] = []  # the API refuses a tool_use whose tool_result is not next
    for question in ("What does main.py do?", "And the tests?", "Any bugs?", "Fix the first."):
        messages.append({"role": "user", "content": [*owed, {"type": "text", "text": question}]})
        reply = client.messages.create(
            model="claude-sonnet-4-6",
            max_tokens=300,
            system=SYSTEM,
            tools=TOOLS,
            messages=messages,
        )
        messages.append({"role": "assistant", "content": reply.content})
        owed = [
            {"type": "tool_result", "tool_use_id": block.id, "content": "(file contents)"}
            for block in reply.content
            if block.type == "tool_use"
        ]
        clock.advance(40)  # the user reads and types


for fixes in ("", "breakpoints,second-breakpoint"):
    clock = ManualClock()
    with Emulator.start(clock=clock) as emu:
        config = ProxyConfig(
            upstream=emu.base_url, fixes=parse_fixes(fixes) if fixes else frozenset()
        )
        with Proxy.start(config, clock=clock) as proxy:
            agent(proxy.base_url, clock)
            (session,) = proxy.figures()
    label = f"--fix {fixes}" if fixes else "observe only"
    print(
        f"{label:<40} hit {session['hit_rate']:6.1%}  cost ${float(session['cost']):.4f}  "
        f"repairs {session['repairs'] or '-'}"
    )
