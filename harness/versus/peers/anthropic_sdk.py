"""Peer: a bare agent loop on the official `anthropic` SDK, cached as Anthropic documents.

Run by `prefixlock.versus` as a separate process with its own interpreter (its own venv: this
file imports nothing from prefixlock). Caching is Anthropic's documented automatic caching: a
top-level `cache_control: {"type": "ephemeral"}` on every request, which places the breakpoint
at the last cacheable block and moves it forward as the conversation grows. The system prompt
and tools are sent as the environment gives them.

Compaction: none (the SDK has none; the loop ignores `compact_tokens`, and the session never
reaches the model's window).

Protocol (one JSON object a line): stdin gives `start` (system, base_url, api_key,
compact_tokens: the suite's compaction threshold, for peers that compact), then `turn`
(prompt, model, tools in the order the tool server listed them) or `end`; for each tool call the
loop writes `tool` (id, name, input) and reads `result` (content); a turn ends with `done`.
"""

from __future__ import annotations

import json
import sys
from typing import Any


def _read() -> dict[str, Any]:
    line = sys.stdin.readline()
    if not line:
        raise SystemExit(0)
    data: dict[str, Any] = json.loads(line)
    return data


def _write(obj: dict[str, Any]) -> None:
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()


def _plain(block: Any) -> dict[str, Any]:
    if block.type == "text":
        return {"type": "text", "text": block.text}
    return {"type": "tool_use", "id": block.id, "name": block.name, "input": block.input}


def main() -> None:
    import anthropic

    start = _read()
    client = anthropic.Anthropic(api_key=start["api_key"], base_url=start["base_url"])
    system: str = start["system"]
    messages: list[dict[str, Any]] = []
    while True:
        msg = _read()
        if msg["op"] == "end":
            break
        messages.append({"role": "user", "content": msg["prompt"]})
        for _ in range(25):
            reply = client.messages.create(
                model=msg["model"],
                max_tokens=4096,
                system=system,
                tools=msg["tools"],
                messages=messages,  # type: ignore[arg-type]
                # Automatic prompt caching (Anthropic's docs): one top-level cache_control.
                extra_body={"cache_control": {"type": "ephemeral"}},
            )
            content = [_plain(b) for b in reply.content]
            messages.append({"role": "assistant", "content": content})
            uses = [b for b in content if b["type"] == "tool_use"]
            if not uses:
                break
            results = []
            for use in uses:
                _write({"op": "tool", "id": use["id"], "name": use["name"], "input": use["input"]})
                answer = _read()
                results.append(
                    {"type": "tool_result", "tool_use_id": use["id"], "content": answer["content"]}
                )
            messages.append({"role": "user", "content": results})
        _write({"op": "done"})
    client.close()


if __name__ == "__main__":
    main()
