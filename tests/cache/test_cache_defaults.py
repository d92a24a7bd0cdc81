"""A model's TTL and minimum: the price entry's when the model is priced, the cache rules'
figures when it is not, and a price entry that leaves the fields out gets those same figures;
the built-in table's lifetimes agree with each provider's own rule."""

from __future__ import annotations

from prefixlock.billing.prices import PriceTable
from prefixlock.cache import anthropic, openai
from prefixlock.cache.defaults import (
    UNPRICED_MIN_TOKENS,
    UNPRICED_TTL_SECONDS,
    model_min_tokens,
    model_ttl,
)
from prefixlock.cache.units import OPENAI_DEFAULT_TTL, openai_explicit_cache


def test_an_unpriced_model_lives_anthropics_default_ttl_with_openais_minimum() -> None:
    assert model_ttl(None) == UNPRICED_TTL_SECONDS == 300
    assert model_min_tokens(None) == UNPRICED_MIN_TOKENS == 1024


def test_a_price_entry_without_the_fields_gets_the_unpriced_figures() -> None:
    table = PriceTable.from_data(
        {"models": [{"model": "m", "input": 1, "output": 2, "cache_read": 0.1}]}
    )
    price = table.require("m")
    assert model_ttl(price) == UNPRICED_TTL_SECONDS
    assert model_min_tokens(price) == UNPRICED_MIN_TOKENS


def test_a_priced_model_lives_what_its_entry_says() -> None:
    price = PriceTable.builtin().require("deepseek-v4-flash")
    assert model_ttl(price) == price.cache_ttl_seconds == 3600


def test_the_builtin_lifetimes_are_each_providers_rule() -> None:
    for price in PriceTable.builtin():
        if price.provider == "anthropic":
            assert price.cache_ttl_seconds == anthropic.ttl_seconds(None), price.model
        elif price.provider == "openai" and openai_explicit_cache(price.model):
            assert price.cache_ttl_seconds == openai.TTL_SECONDS[OPENAI_DEFAULT_TTL], price.model
        elif price.provider == "openai":
            assert price.cache_ttl_seconds == openai.IN_MEMORY_SECONDS, price.model


def test_the_ttl_labels_are_the_table_keys() -> None:
    assert set(anthropic.TTL_LABELS) == set(anthropic.TTL_SECONDS)
    assert anthropic.DEFAULT_TTL in anthropic.TTL_LABELS


def test_extended_retention_keeps_a_day_and_in_memory_the_models_own() -> None:
    assert openai.retention_seconds("24h", 600.0) == 24 * 3600.0
    assert openai.retention_seconds("in_memory", 600.0) == 600.0
    assert openai.retention_seconds(None, 1800.0) == 1800.0
