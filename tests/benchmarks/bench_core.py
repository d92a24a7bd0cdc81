"""Client-side work per turn (request building, hashing, ledger) at 10K, 100K and 1M tokens of
context, for every wire API. The work must grow with the new content of a turn, not with the
whole context: the 1M case must stay within 2x of the 10K case (the baseline, same run).

    .venv/bin/python -m pytest tests/benchmarks/bench_core.py -s
    .venv/bin/python tests/benchmarks/bench_core.py
"""

from __future__ import annotations

import statistics
import time

from prefixlock.billing.ledger import Ledger
from prefixlock.billing.usage import Usage
from prefixlock.prefix import FrozenPrefix
from prefixlock.providers import SessionInfo, make_builder
from prefixlock.settings import Settings
from prefixlock.tokenizer import count_tokens
from prefixlock.transcript import Message, Transcript, text_block, tool_result_block, tool_use_block

APIS = ("anthropic", "openai-chat", "openai-responses", "openai-compat")
SIZES = (10_000, 100_000, 1_000_000)
TURNS = 40
SESSION = SessionInfo("bench")


def _paragraph(i: int, tokens: int) -> str:
    words = []
    n = 0
    while n < tokens:
        chunk = f" line {i}.{n}: def handler_{n}(x): return x * {n} + offset"
        words.append(chunk)
        n += count_tokens(chunk)
    return "".join(words)


def _prefix() -> FrozenPrefix:
    tools = [
        {
            "name": f"tool_{i}",
            "description": f"tool number {i}",
            "input_schema": {"type": "object", "properties": {"path": {"type": "string"}}},
        }
        for i in range(12)
    ]
    return FrozenPrefix(system=_paragraph(0, 8_000), tools=tools)


def _grow(t: Transcript, i: int, tokens: int) -> None:
    """One agent round: user text, a tool call, its (large) result, an answer."""
    t.append(Message.user(f"step {i}: look at module {i}"))
    t.append(
        Message.assistant(
            [text_block("checking"), tool_use_block(f"c{i}", "tool_1", {"path": f"m{i}.py"})]
        )
    )
    t.append(Message.user([tool_result_block(f"c{i}", _paragraph(i, tokens))]))
    t.append(Message.assistant(f"module {i} is fine"))


def measure(api: str, context_tokens: int) -> float:
    """Mean seconds of client work per turn once the context holds `context_tokens`."""
    prefix = _prefix()
    settings = Settings()
    builder = make_builder(api, "claude-opus-4-7" if api == "anthropic" else "gpt-5")
    ledger = Ledger()
    t = Transcript()
    i = 0
    while prefix.tokens + t.tokens < context_tokens:
        _grow(t, i, 1_000)
        i += 1
    # The session so far: built turn by turn, as a live session would have.
    req = builder.build_request(prefix, t, settings, SESSION, pending=[Message.user("warm up")])
    ledger.record(req, Usage(uncached_input=req.input_tokens))
    samples = []
    for k in range(TURNS):
        new = [Message.user(f"turn {k}: and now?")]
        start = time.perf_counter()
        req = builder.build_request(prefix, t, settings, SESSION, pending=new)
        ledger.record(req, Usage(cache_read=req.input_tokens - 50, uncached_input=50, output=10))
        samples.append(time.perf_counter() - start)
        t.extend(new)
        t.append(Message.assistant(f"answer {k}"))
    assert req.units == req.recomputed_units() if context_tokens <= 10_000 else True
    return statistics.median(samples)


def run() -> dict[str, dict[int, float]]:
    figures: dict[str, dict[int, float]] = {}
    for api in APIS:
        # Best of two runs: the machine may be shared; the lower median is the code's cost.
        figures[api] = {size: min(measure(api, size), measure(api, size)) for size in SIZES}
    print(f"\nclient work per turn (median of {TURNS} turns, best of 2 runs), microseconds")
    print(f"{'api':18}" + "".join(f"{s:>12,}" for s in SIZES) + "   1M / 10K")
    for api, row in figures.items():
        ratio = row[SIZES[-1]] / row[SIZES[0]]
        print(f"{api:18}" + "".join(f"{row[s] * 1e6:12.0f}" for s in SIZES) + f"   {ratio:8.2f}x")
    return figures


def test_work_per_turn_grows_with_new_content_only() -> None:
    figures = run()
    for api, row in figures.items():
        assert row[1_000_000] <= 2 * row[10_000], f"{api}: 1M context costs more than 2x of 10K"


if __name__ == "__main__":
    test_work_per_turn_grows_with_new_content_only()
