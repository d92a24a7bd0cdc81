"""The cache-miss budget: how many cached tokens (or dollars) a session may re-bill, in all and
per action, checked before a request is sent or a priced action is taken. Pure."""

# pure: imports no I/O (tests/test_layout.py checks it)

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal

from ..billing.money import parse_dollars
from ..errors import UserError

_RAISE = " (raise the limit with session.budget = CacheBudget(...) to go on)"


class CacheBudgetExceeded(UserError):
    """A request or action would re-bill more than the session's cache-miss budget allows."""


@dataclass(frozen=True)
class CacheBudget:
    """Limits on re-billed tokens / dollars, per session and per action (None = no limit)."""

    session_tokens: int | None = None
    session_dollars: Decimal | None = None
    action_tokens: int | None = None
    action_dollars: Decimal | None = None

    def __post_init__(self) -> None:
        # A typo here would refuse every request, or none: say so where it is made.
        for name in ("session_tokens", "action_tokens"):
            value = getattr(self, name)
            if value is not None and (
                isinstance(value, bool) or not isinstance(value, int) or value < 0
            ):
                raise UserError(
                    f"not a token count: {value!r} (give a whole number, 0 or more)",
                    where=f"budget.{name}",
                )
        for name in ("session_dollars", "action_dollars"):
            value = getattr(self, name)
            if value is not None:  # money is Decimal, also from a float or a string
                object.__setattr__(self, name, parse_dollars(value, f"budget.{name}"))

    def check(
        self,
        tokens: int,
        dollars: Decimal | None,
        spent_tokens: int,
        spent_dollars: Decimal,
        what: str,
    ) -> None:
        """Raise CacheBudgetExceeded if re-billing `tokens` / `dollars` breaks a limit."""
        if tokens <= 0:
            return
        d = dollars or Decimal(0)
        if self.action_tokens is not None and tokens > self.action_tokens:
            raise CacheBudgetExceeded(
                f"{what} would re-bill {tokens} cached tokens, over the per-action limit of "
                f"{self.action_tokens}; nothing was sent{_RAISE}",
                where="budget.action_tokens",
            )
        if self.action_dollars is not None and d > self.action_dollars:
            raise CacheBudgetExceeded(
                f"{what} would re-bill ${d:.4f}, over the per-action limit of "
                f"${self.action_dollars}; nothing was sent{_RAISE}",
                where="budget.action_dollars",
            )
        if self.session_tokens is not None and spent_tokens + tokens > self.session_tokens:
            raise CacheBudgetExceeded(
                f"{what} would re-bill {tokens} cached tokens; with {spent_tokens} already "
                f"re-billed this passes the session limit of {self.session_tokens}; "
                f"nothing was sent{_RAISE}",
                where="budget.session_tokens",
            )
        if self.session_dollars is not None and spent_dollars + d > self.session_dollars:
            raise CacheBudgetExceeded(
                f"{what} would re-bill ${d:.4f}; with ${spent_dollars:.4f} already re-billed this "
                f"passes the session limit of ${self.session_dollars}; nothing was sent{_RAISE}",
                where="budget.session_dollars",
            )
