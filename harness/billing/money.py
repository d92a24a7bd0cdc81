"""Dollar amounts given by the user: the one rule for what counts as money.

A limit, a cap or a price is a finite Decimal, 0 or more (or more than 0 where a zero would
make the thing useless). Anything else is a UserError naming the field, never a traceback:
`Decimal("nan")` parses, but ordering comparisons on it raise, and a NaN limit would never be
reached. Pure: no I/O.
"""

# pure: imports no I/O (tests/test_layout.py checks it)

from __future__ import annotations

from decimal import Decimal

from ..errors import UserError


def parse_dollars(
    value: object,
    where: str,
    *,
    what: str = "a dollar amount",
    positive: bool = False,
    allow_dollar_sign: bool = False,
    error: type[UserError] = UserError,
) -> Decimal:
    """`value` (str, int, float or Decimal) as a Decimal number of dollars.

    A float goes through its shortest repr, so 0.1 is Decimal("0.1"), not the binary
    fraction. `allow_dollar_sign` accepts one leading "$" ("$1.50"), as a hand-written file
    might have. Raises `error` (UserError or a subclass) at `where`, saying "not {what}"."""
    amount: Decimal | None = None
    if not isinstance(value, bool):  # str(True) fails to parse anyway; do not rely on it
        try:
            text = str(value).strip()
            if allow_dollar_sign and text.startswith("$"):
                text = text[1:]
            amount = Decimal(text)
        except ArithmeticError:  # decimal.InvalidOperation: not a number at all
            amount = None
    if amount is None or not amount.is_finite() or amount < 0 or (positive and amount == 0):
        need = "more than 0" if positive else "0 or more"
        raise error(f"not {what}: {value!r} (give a number, {need})", where=where)
    return amount.copy_abs()  # "-0" is 0 (copy_abs is exact: no rounding to the context)
