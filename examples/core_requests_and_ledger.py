"""The pure parts of the SDK, no server at all: build the exact requests a session would send
(Anthropic breakpoints, the OpenAI cache key), parse each provider's usage into one `Usage`, and
price it in a `Ledger`, including a model the built-in table does not know (unpriced until a
price file of yours adds it). Offline, well under a second."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

from prefixlock import FrozenPrefix, Ledger, PriceTable, Settings, parse_usage, tool
from prefixlock.providers import SessionInfo, make_builder
from prefixlock.transcript import Message, Transcript


@tool
def read_file(path: str) -> str:
    """Read a UTF-8 file from the workspace.

    Args:
        path: the file, relative to the workspace root.
    """
    return ""


SYSTEM = "You are a careful coding assistant. Cite files by path.\n" * 40
SESSION = SessionInfo("example-session")


def main() -> None:
    prefix = FrozenPrefix(system=SYSTEM, tools=[read_file])
    print(prefix)
    turns = Transcript([Message.user("Why does test_parse fail?"), Message.assistant("Looking.")])
    pending = [Message.user("And how do I fix it?")]

    # Anthropic: breakpoints on the last tool, the system prompt and the conversation tail;
    # the date goes in as volatile text after the last breakpoint, so it is never cached.
    anthropic = make_builder("anthropic", "claude-sonnet-4-6").build_request(
        prefix,
        turns,
        Settings(ttl="1h"),
        SESSION,
        volatile=["Today is 2026-12-01."],
        pending=pending,
    )
    for unit in anthropic.breakpoints():
        print(f"anthropic breakpoint: {unit.section:8} at token {unit.end:5}, {unit.breakpoint}")
    assert len(anthropic.breakpoints()) <= 4

    # OpenAI: the same prefix bytes first, and a prompt_cache_key derived from the session id.
    chat = make_builder("openai-chat", "gpt-5").build_request(
        prefix, turns, Settings(retention="24h"), SESSION, pending=pending
    )
    print(f"openai prompt_cache_key {chat.body['prompt_cache_key']}, {chat.input_tokens} tokens")

    # One Usage from three formulas: Anthropic's counters are disjoint, OpenAI's prompt_tokens
    # include the cached ones, DeepSeek reports hit and miss.
    raw = {
        "anthropic": {
            "input_tokens": 12,
            "cache_creation_input_tokens": 40,
            "cache_read_input_tokens": 900,
            "output_tokens": 60,
        },
        "openai-chat": {
            "prompt_tokens": 952,
            "completion_tokens": 60,
            "prompt_tokens_details": {"cached_tokens": 896},
        },
        "openai-compat": {
            "prompt_tokens": 952,
            "completion_tokens": 60,
            "prompt_cache_hit_tokens": 896,
            "prompt_cache_miss_tokens": 56,
        },
    }
    models = {
        "anthropic": "claude-sonnet-4-6",
        "openai-chat": "gpt-5",
        "openai-compat": "deepseek-v4-flash",
    }
    for api, payload in raw.items():
        usage = parse_usage(api, payload)
        request = make_builder(api, models[api]).build_request(prefix, turns, Settings(), SESSION)
        ledger = Ledger(PriceTable.default())
        row = ledger.record(request, usage)
        print(f"{models[api]:18} read {usage.cache_read:4} of {usage.input_total:4}: ${row.cost}")

    # A model the table does not know is unpriced, never $0; a price file of yours prices it.
    local = make_builder("openai-compat", "my-llama").build_request(
        prefix, turns, Settings(), SESSION
    )
    usage = parse_usage("openai-compat", raw["openai-chat"])
    ledger = Ledger(PriceTable.default())
    ledger.record(local, usage)
    print(ledger.summary())
    assert ledger.cost is None
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "prices.json"
        entry = {"model": "my-llama", "input": "0.20", "cache_read": "0.02", "output": "0.60"}
        path.write_text(json.dumps({"models": [entry]}))
        priced = Ledger(PriceTable.default(path))  # or PREFIXLOCK_PRICES=path, --prices path
        priced.record(local, usage)
        print(priced.summary())
        assert priced.cost is not None and priced.cost > 0


if __name__ == "__main__":
    main()
