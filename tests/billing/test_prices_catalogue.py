"""Prices from the pinned genai-prices snapshot under prefixlock's own table: long-context
tiers, dated ids, models only the catalogue knows, and unknown models left unpriced; the same
table for the SDK's ledger and `prefixlock analyze`."""

from __future__ import annotations

import json
from decimal import Decimal
from importlib import resources
from pathlib import Path

import pytest

from prefixlock.analyze.analysis import analyze
from prefixlock.analyze.report import usd_text
from prefixlock.billing.prices import PriceTable
from prefixlock.billing.usage import Usage
from prefixlock.cli.main import main
from tests.analyze.logkit import at, codex_count, codex_meta, write


def _codex(tmp_path: Path, model: str, inp: int, cached: int, out: int) -> Path:
    ctx = json.dumps({"timestamp": at(1), "type": "turn_context", "payload": {"model": model}})
    return write(
        tmp_path / "sessions" / "rollout-2026-03-01T09-00-00-x.jsonl",
        [codex_meta("sess-x", 0), ctx, codex_count(5, inp, cached, out)],
    )


def test_gpt_5_4_above_272k_input_pays_its_long_context_price(tmp_path: Path) -> None:
    price = PriceTable.builtin().require("gpt-5.4")
    # 272,000 input tokens is still the base price; one more and every token pays the tier's.
    assert price.cost(Usage(uncached_input=272_000)) == Decimal("0.68")  # $2.50/M
    assert price.cost(Usage(uncached_input=300_000, output=1_000)) == Decimal(
        "1.5225"
    )  # $5, $22.50
    assert price.cost(Usage(uncached_input=50_000, cache_read=250_000)) == Decimal("0.375")  # $0.50
    # The same through `prefixlock analyze` on a Codex rollout (input includes the cached part).
    rep = analyze([_codex(tmp_path, "gpt-5.4", 300_000, 250_000, 1_000)], jobs=1).report
    assert rep["totals"]["usd"] == "0.397500"  # 50K x $5 + 250K x $0.50 + 1K x $22.50


def test_a_model_only_the_catalogue_knows_is_priced_from_it(tmp_path: Path) -> None:
    price = PriceTable.builtin().require("gpt-5.6-sol")
    assert price.source.startswith("genai-prices 0.2.5")
    assert (price.input, price.cache_read, price.output) == (
        Decimal(4),
        Decimal("0.4"),
        Decimal(20),
    )
    assert price.at(300_000).input == Decimal(8)
    rep = analyze([_codex(tmp_path, "gpt-5.6-sol", 10_000, 8_000, 100)], jobs=1).report
    assert rep["totals"]["unpriced"] is None
    assert rep["totals"]["usd"] == "0.013200"  # 2K x $4 + 8K x $0.40 + 100 x $20


def test_a_dated_id_resolves_to_its_model() -> None:
    table = PriceTable.builtin()
    assert table.require("gpt-5.6-sol-2026-09-01").model == "gpt-5.6-sol"
    dated = table.require("gpt-5.4-2026-03-05")
    assert dated.input == Decimal("2.5") and dated.tiers  # the catalogue's, with its tier
    assert table.require("claude-3-5-haiku-20241022").model == "claude-3-5-haiku-latest"


def test_the_table_wins_over_the_catalogue_for_a_model_both_name() -> None:
    price = PriceTable.builtin().require("gpt-5.4")
    assert price.source.startswith("https://platform.openai.com")
    assert price.cache_ttl_seconds == 600  # prefixlock's cache rule, kept in its data file


def test_an_unknown_model_stays_unpriced(tmp_path: Path) -> None:
    table = PriceTable.builtin()
    for model in ("gpt-9-imaginary", "claude-imaginary-9-20300101", "my-local-llama"):
        assert table.lookup(model) is None
    rep = analyze([_codex(tmp_path, "gpt-9-imaginary", 10_000, 0, 100)], jobs=1).report
    t = rep["totals"]
    assert t["usd"] is None and t["unpriced"] == {"models": ["gpt-9-imaginary"], "tokens": 10_100}
    assert usd_text(t["usd"], t["unpriced"]) == "unpriced (10,100 tok)"


def test_a_catalogue_model_gets_prefixlocks_cache_rules() -> None:
    sol = PriceTable.builtin().require("gpt-5.6-sol")
    haiku = PriceTable.builtin().require("claude-3-5-haiku-20241022")
    rules = json.loads(
        resources.files("prefixlock").joinpath("data/prices.json").read_text("utf-8")
    )["cache_rules"]
    assert sol.min_cacheable_tokens == rules["openai"]["min_cacheable_tokens"]
    assert haiku.cache_ttl_seconds == rules["anthropic"]["cache_ttl_seconds"]
    # The catalogue gives Haiku 3.5's write prices; a model without them gets the multipliers.
    assert (haiku.write_5m, haiku.write_1h) == (Decimal(1), Decimal("1.6"))


def test_prices_show_names_the_source_and_an_unknown_model_exits_2(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["prices", "show", "gpt-5.6-sol"]) == 0
    shown = json.loads(capsys.readouterr().out)
    assert shown["model"] == "gpt-5.6-sol" and shown["tiers"][0]["above"] == 272_000
    assert main(["prices", "show", "gpt-9-imaginary"]) == 2
    assert "gpt-9-imaginary" in capsys.readouterr().err


@pytest.mark.slow
def test_prices_update_remakes_the_shipped_snapshot_offline(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The shipped snapshot is what the pinned genai-prices makes (importing it takes a few
    seconds)."""
    out = tmp_path / "snap.json"
    assert main(["prices", "update", "-o", str(out)]) == 0
    made = json.loads(out.read_text())
    shipped = json.loads(
        resources.files("prefixlock").joinpath("data/prices_catalogue.json").read_text("utf-8")
    )
    assert made["version"] == shipped["version"] == "0.2.5"
    assert made["providers"] == shipped["providers"]
    assert "wrote" in capsys.readouterr().err


def test_gemini_models_get_googles_cache_rules_from_the_price_file() -> None:
    table = PriceTable.builtin()
    rules = json.loads(
        resources.files("prefixlock").joinpath("data/prices.json").read_text("utf-8")
    )["cache_rules"]["google"]
    assert "ai.google.dev/gemini-api/docs/caching" in rules["source"]
    pro = table.require("gemini-2.5-pro")
    assert pro.source.startswith("genai-prices 0.2.5 (google/")
    # The caching page's minimums: 2,048 for Gemini 2.5, 4,096 for the newer models.
    assert pro.min_cacheable_tokens == 2048
    assert table.require("gemini-2.5-flash").min_cacheable_tokens == 2048
    assert table.require("gemini-4-argon").min_cacheable_tokens == rules["min_cacheable_tokens"]
    assert rules["min_cacheable_tokens"] == 4096
    # Implicit caching: no write fee; an explicit cache's storage where the pricing page says.
    assert (pro.write_5m, pro.write_1h) == (pro.input, pro.input)
    assert pro.cache_storage_per_hour == Decimal("4.50")
    assert table.require("gemini-2.5-flash").cache_storage_per_hour is None
    # The long-context price above 200K input tokens, from the catalogue.
    assert pro.cost(Usage(uncached_input=300_000)) == Decimal("0.75")  # $2.50/M


def _gemini_chat(tmp_path: Path, model: str, inputs: list[tuple[int, int]]) -> Path:
    msgs = [
        {"id": f"g{i}", "type": "gemini", "timestamp": at(30 * i), "model": model,
         "content": "x", "tokens": {"input": inp, "output": 10, "cached": cached,
                                    "thoughts": 0, "tool": 0, "total": inp + 10}}
        for i, (inp, cached) in enumerate(inputs)
    ]  # fmt: skip
    f = tmp_path / "chats" / f"session-{model}.json"
    f.parent.mkdir(parents=True, exist_ok=True)
    f.write_text(json.dumps({"sessionId": f"g-{model}", "messages": msgs}))
    return f


def test_a_gemini_prompt_under_its_minimum_leaves_nothing_to_read(tmp_path: Path) -> None:
    # 3,500 tokens is under gemini-4-argon's 4,096: the next request reading none is no
    # break. 6,000 is over: the next reading none re-bills what it left readable.
    f = _gemini_chat(tmp_path, "gemini-4-argon", [(3_500, 0), (3_600, 0), (6_000, 0), (6_100, 0)])
    rep = analyze([f], jobs=1).report
    rows = rep["requests"]
    assert [r["expected_reusable"] for r in rows] == [0, 0, 0, 5_888]  # 46 blocks of 128
    assert [r["break"] for r in rows] == [None, None, None, "unknown"]
    assert rows[0]["usd"] is not None
