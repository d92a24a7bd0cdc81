"""prefixlock.billing.money.parse_dollars: the one rule for a dollar amount (limits, caps,
prices), and the places that use it keeping their own field names and error classes."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import pytest

from prefixlock.agents.definitions import parse_definition
from prefixlock.billing.money import parse_dollars
from prefixlock.billing.prices import PriceTable
from prefixlock.errors import ConfigError, UserError


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("1.50", Decimal("1.50")),
        (" 2 ", Decimal("2")),
        (0, Decimal("0")),
        (3, Decimal("3")),
        (0.1, Decimal("0.1")),  # the float's repr, not its binary fraction
        (Decimal("0.000001"), Decimal("0.000001")),
        ("1e-3", Decimal("0.001")),
        ("0", Decimal("0")),
    ],
)
def test_amounts_parse_to_exact_decimals(value: object, expected: Decimal) -> None:
    got = parse_dollars(value, "f")
    assert got == expected and isinstance(got, Decimal)


def test_minus_zero_is_zero() -> None:
    assert str(parse_dollars("-0", "f")) == "0"
    assert str(parse_dollars("-0.00", "f")) == "0.00"


@pytest.mark.parametrize(
    "value",
    [
        "nan",
        "NaN",
        "sNaN",
        float("nan"),
        Decimal("NaN"),
        "inf",
        "-Infinity",
        float("inf"),
        Decimal("Infinity"),
        "-1",
        -0.01,
        Decimal("-5"),
        "abc",
        "",
        "1.2.3",
        "$1.50",
        "1,000",
        None,
        True,
        False,
        [1],
    ],
)
def test_anything_else_is_a_user_error_naming_the_field(value: object) -> None:
    with pytest.raises(UserError) as e:
        parse_dollars(value, "settings.max_dollars")
    assert e.value.where == "settings.max_dollars"
    assert str(e.value).startswith("settings.max_dollars: not a dollar amount: ")
    assert str(e.value).endswith("(give a number, 0 or more)")
    assert len(str(e.value).splitlines()) == 1


def test_a_leading_dollar_sign_only_where_allowed() -> None:
    assert parse_dollars("$1.50", "f", allow_dollar_sign=True) == Decimal("1.50")
    assert parse_dollars(" $0.25", "f", allow_dollar_sign=True) == Decimal("0.25")
    assert parse_dollars("2", "f", allow_dollar_sign=True) == Decimal("2")
    for bad in ("$$1", "$", "-$1", "$-1", "$nan", "1$"):
        with pytest.raises(UserError):
            parse_dollars(bad, "f", allow_dollar_sign=True)


def test_positive_refuses_zero() -> None:
    assert parse_dollars("0.01", "f", positive=True) == Decimal("0.01")
    for zero in (0, "0", "0.00", "-0", Decimal(0)):
        with pytest.raises(UserError, match=r"give a number, more than 0"):
            parse_dollars(zero, "f", positive=True)


def test_the_error_class_and_noun_are_the_callers() -> None:
    with pytest.raises(ConfigError, match=r"^p: not a price: 'x' \(give a number, 0 or more\)$"):
        parse_dollars("x", "p", what="a price", error=ConfigError)


def test_a_nan_price_in_a_prices_file_is_a_config_error() -> None:
    # JSON allows NaN; it used to reach `nan < 0`, which raises InvalidOperation (a traceback).
    entry: dict[str, Any] = {"model": "m", "input": float("nan"), "output": 1, "cache_read": 0}
    with pytest.raises(ConfigError) as e:
        PriceTable.from_data({"models": [entry]})
    assert e.value.where is not None and e.value.where.endswith(".input")
    assert "not a price: nan" in str(e.value)


def test_agent_limits_take_one_dollar_sign_and_refuse_zero() -> None:
    def limit(text: str) -> Decimal | None:
        d = parse_definition(f"---\nname: a\ndescription: d\nmax_dollars: {text}\n---\nbody\n")
        return d.max_dollars

    assert limit('"$0.50"') == Decimal("0.50")
    assert limit("0.5") == Decimal("0.5")
    for bad in ('"$$0.50"', "0", "-1", ".nan", "lots"):
        with pytest.raises(UserError) as e:
            limit(bad)
        assert e.value.where == "<memory>:4"
