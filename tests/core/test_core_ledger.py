"""The ledger: hit rate, cost, cost without cache, saved, ceiling, re-billed tokens by cause,
and unpriced models reported as unpriced, never as $0."""

from __future__ import annotations

import json
from decimal import Decimal
from pathlib import Path

from prefixlock.billing.ledger import Ledger
from prefixlock.billing.prices import PriceTable
from prefixlock.billing.usage import Usage
from prefixlock.prefix import FrozenPrefix
from prefixlock.providers import SessionInfo, make_builder
from prefixlock.settings import Settings
from prefixlock.transcript import Message, Transcript
from prefixlock.wire import WireRequest

SYSTEM = "Keep every byte of the prefix stable. " * 400  # ~3,200 tokens
SESSION = SessionInfo("ledger")


def _requests(api: str, model: str, turns: int) -> list[WireRequest]:
    builder = make_builder(api, model)
    prefix = FrozenPrefix(system=SYSTEM)
    t = Transcript()
    out: list[WireRequest] = []
    for i in range(turns):
        t.append(Message.user(f"question {i}"))
        out.append(builder.build_request(prefix, t, Settings(), SESSION))
        t.append(Message.assistant(f"answer {i}"))
    return out


def test_hit_rate_cost_saved_and_ceiling() -> None:
    reqs = _requests("anthropic", "claude-opus-4-7", 3)
    ledger = Ledger(PriceTable.default())
    first = reqs[0].input_tokens
    ledger.record(reqs[0], Usage(cache_write_5m=first, output=10))
    row = ledger.record(reqs[1], Usage(cache_read=first, cache_write_5m=20, output=10))
    # Request 1 could read everything up to request 0's last breakpoint: all of request 0.
    assert row.ceiling == first and row.rebilled == 0 and row.cause is None
    # Request 2 reads nothing: the whole ceiling is re-billed, cause unexplained.
    second = reqs[1].input_tokens
    row = ledger.record(reqs[2], Usage(uncached_input=reqs[2].input_tokens, output=10))
    assert row.ceiling == second and row.rebilled == second and row.cause == "unexplained"
    assert ledger.rebilled == {"unexplained": second}
    u = ledger.usage
    assert ledger.hit_rate == u.cache_read / u.input_total
    m = Decimal(1_000_000)
    cost = (
        first * Decimal("6.25")
        + first * Decimal("0.5")
        + 20 * Decimal("6.25")
        + reqs[2].input_tokens * 5
        + 30 * 25
    ) / m
    assert ledger.cost == cost
    without = (u.input_total * 5 + 30 * 25) / m
    assert ledger.cost_without_cache == without
    assert ledger.saved == without - cost
    assert ledger.ceiling_hit_rate == (first + second) / u.input_total
    assert "hit rate" in ledger.summary() and "$" in ledger.summary()


def test_guard_cause_and_model_switch() -> None:
    a = _requests("anthropic", "claude-opus-4-7", 2)
    ledger = Ledger()
    ledger.record(a[0], Usage(cache_write_5m=a[0].input_tokens))
    row = ledger.record(a[1], Usage(uncached_input=a[1].input_tokens), cause="ttl")
    assert row.cause == "ttl" and ledger.rebilled == {"ttl": a[0].input_tokens}
    # Same transcript on another model: the cache is per model, so the ceiling is zero and the
    # tokens cached before are re-billed because of the model.
    b = _requests("anthropic", "claude-sonnet-4-6", 3)
    row = ledger.record(b[2], Usage(cache_write_5m=b[2].input_tokens))
    assert row.ceiling == 0 and row.cause == "model" and row.rebilled > 0


def test_openai_ceiling_counts_128_token_steps() -> None:
    reqs = _requests("openai-chat", "gpt-5", 2)
    ledger = Ledger()
    ledger.record(reqs[0], Usage(uncached_input=reqs[0].input_tokens))
    row = ledger.record(reqs[1], Usage(uncached_input=reqs[1].input_tokens))
    shared = reqs[0].units[-1].end  # everything request 0 sent
    assert row.ceiling == shared - shared % 128 and row.ceiling % 128 == 0


def test_unpriced_model_is_never_zero_dollars(tmp_path: Path) -> None:
    reqs = _requests("openai-compat", "my-local-llama", 2)
    ledger = Ledger(PriceTable.default())
    row = ledger.record(reqs[0], Usage(uncached_input=100, output=5))
    assert row.cost is None and row.cost_without_cache is None and row.saved is None
    assert ledger.cost is None and ledger.saved is None and ledger.cost_without_cache is None
    assert ledger.unpriced_models == ("my-local-llama",)
    assert "unpriced (my-local-llama)" in ledger.summary()
    # A user price file prices it.
    override = tmp_path / "prices.json"
    override.write_text(
        json.dumps(
            {
                "models": [
                    {
                        "model": "my-local-llama",
                        "provider": "custom",
                        "input": "0.10",
                        "output": "0.20",
                        "cache_read": "0.01",
                    }
                ]
            }
        )
    )
    priced = Ledger(PriceTable.default(override))
    row = priced.record(reqs[0], Usage(uncached_input=100, cache_read=1000, output=5))
    assert row.cost == (100 * Decimal("0.10") + 1000 * Decimal("0.01") + 5 * Decimal("0.20")) / (
        Decimal(1_000_000)
    )
    assert priced.cost == row.cost and priced.unpriced_models == ()
    # A mix of priced and unpriced rows keeps the priced part apart and the total unknown.
    ledger2 = Ledger(PriceTable.default())
    ledger2.record(_requests("anthropic", "claude-haiku-4-5", 1)[0], Usage(uncached_input=1000))
    ledger2.record(reqs[1], Usage(uncached_input=10))
    assert ledger2.cost is None and ledger2.priced_cost == Decimal("0.001")


def test_a_bounded_ledger_keeps_the_newest_rows_and_answers_for_every_request() -> None:
    """`keep_rows`: a long-running session's ledger keeps its newest rows whole and folds the
    older ones into sums, so every answer (tokens, cost, saved, ceiling, re-billed, the count,
    an unpriced model, the one-line summary) is the one a ledger keeping every row gives."""
    reqs = _requests("anthropic", "claude-opus-4-7", 12)
    unknown = _requests("anthropic", "no-such-model", 2)
    full, bounded = Ledger(PriceTable.default()), Ledger(PriceTable.default())
    bounded.keep_rows = 3
    for ledger in (full, bounded):
        for i, req in enumerate(reqs):
            usage = (
                Usage(uncached_input=req.input_tokens, output=10)  # a miss: re-billed
                if i % 4 == 3
                else Usage(cache_read=reqs[max(i - 1, 0)].input_tokens, output=10)
            )
            ledger.record(req, usage, meta={"kind": "ping"} if i == 5 else None)
        ledger.record(unknown[0], Usage(uncached_input=100, output=5))
        ledger.record(reqs[-1], Usage(cache_read=50, uncached_input=50, output=5))
    assert len(bounded.rows) == 3 and len(full.rows) == len(bounded) == len(full) == 14
    assert [r.seq for r in bounded.rows] == [11, 12, 13]
    assert bounded.rows == full.rows[-3:]
    assert bounded.folded["ping"].count == 1
    for answer in (
        "usage",
        "ceiling",
        "priced_cost",
        "cost",
        "cost_without_cache",
        "saved",
        "rebilled",
        "unpriced_models",
    ):
        assert getattr(bounded, answer) == getattr(full, answer), answer
    assert bounded.unpriced_models == ("no-such-model",)
    assert bounded.summary() == full.summary()
