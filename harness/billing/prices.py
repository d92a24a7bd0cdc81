"""The price table: per-model token prices and cache rules, from a data file shipped in the package.

Money is `Decimal` dollars. Prices are per million tokens. A user file of the same shape (given
explicitly or by PREFIXLOCK_PRICES) overrides or adds models. An unknown model is never priced as
$0: `lookup()` returns None and callers report it as unpriced, `require()` raises a clear error.
"""

# pure: imports no I/O (tests/test_layout.py checks it)

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, replace
from decimal import Decimal
from typing import TYPE_CHECKING, Any, Protocol

from ..cache.defaults import UNPRICED_MIN_TOKENS, UNPRICED_TTL_SECONDS
from ..errors import ConfigError, UnknownModelError
from .money import parse_dollars
from .usage import Usage

if TYPE_CHECKING:
    from os import PathLike

MILLION = Decimal(1_000_000)
ENV_VAR = "PREFIXLOCK_PRICES"
PROVIDER_PREFIXES = frozenset(
    {"anthropic", "openai", "openai-chat", "openai-responses", "openai-compat", "deepseek"}
)


@dataclass(frozen=True)
class Price:
    """Prices ($ per million tokens) and cache rules of one model."""

    model: str
    provider: str  # anthropic | openai | deepseek | custom
    api: str  # anthropic | openai-chat | openai-responses | openai-compat
    input: Decimal
    output: Decimal
    cache_read: Decimal
    cache_write_5m: Decimal | None  # None: writes cost plain input (no write fee)
    cache_write_1h: Decimal | None
    min_cacheable_tokens: int
    cache_ttl_seconds: int
    date: str = ""
    source: str = ""
    note: str = ""
    base_url: str | None = None
    # Tokens a request may hold, input and output cap together (None: not known, not enforced),
    # with where that figure comes from and when it was read.
    context_window: int | None = None
    context_window_source: str = ""
    # An explicit cache's storage, $ per million tokens per hour (Gemini); None: the provider
    # charges none, or it is not known.
    cache_storage_per_hour: Decimal | None = None
    # Long-context prices: (start, prices) by rising start; a request whose input (uncached,
    # read and written together) is more than `start` tokens pays those prices on every
    # token, the providers' "cliff" rule (gpt-5.4 above 272K input tokens).
    tiers: tuple[tuple[int, Price], ...] = ()

    def at(self, input_tokens: int) -> Price:
        """The prices a request of `input_tokens` input tokens pays (this one below the
        first tier)."""
        for start, tier in reversed(self.tiers):
            if input_tokens > start:
                return tier
        return self

    @property
    def write_5m(self) -> Decimal:
        """Dollars per million tokens written to the 5-minute cache (the input price where writes
        cost nothing extra)."""
        return self.input if self.cache_write_5m is None else self.cache_write_5m

    @property
    def write_1h(self) -> Decimal:
        """Dollars per million tokens written to the 1-hour cache."""
        if self.cache_write_1h is not None:
            return self.cache_write_1h
        return self.write_5m

    def cost(self, usage: Usage) -> Decimal:
        """Dollars for one request's usage (at its long-context prices where it has them)."""
        p = self.at(usage.input_total) if self.tiers else self
        return (
            usage.uncached_input * p.input
            + usage.cache_read * p.cache_read
            + usage.cache_write_5m * p.write_5m
            + usage.cache_write_1h * p.write_1h
            + usage.output * p.output
        ) / MILLION

    def cost_without_cache(self, usage: Usage) -> Decimal:
        """What the same request would have cost with no cache at all."""
        p = self.at(usage.input_total) if self.tiers else self
        return (usage.input_total * p.input + usage.output * p.output) / MILLION

    def input_cost(self, tokens: int, kind: str = "uncached") -> Decimal:
        """Dollars for `tokens` input tokens billed as `kind`: uncached, read, write_5m or
        write_1h."""
        rate = {
            "uncached": self.input,
            "read": self.cache_read,
            "write_5m": self.write_5m,
            "write_1h": self.write_1h,
        }[kind]
        return tokens * rate / MILLION


_DECIMAL_FIELDS = ("input", "output", "cache_read")
_OPTIONAL_DECIMAL = ("cache_write_5m", "cache_write_1h")


def _decimal(value: Any, where: str) -> Decimal:
    return parse_dollars(value, where, what="a price", error=ConfigError)


def _int(value: Any, where: str) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, str)):
        raise ConfigError(f"not a whole number: {value!r}", where=where)
    try:
        n = int(value)
    except ValueError:
        raise ConfigError(f"not a whole number: {value!r}", where=where) from None
    if n < 0:
        raise ConfigError(f"must not be negative: {value!r}", where=where)
    return n


def _tiers(base: Price, value: Any, here: str) -> tuple[tuple[int, Price], ...]:
    """`tiers`: a list of {"above": N, and the prices that change}; a price a tier does not
    name stays the base one."""
    if value is None:
        return ()
    if not isinstance(value, list):
        raise ConfigError("'tiers' must be a list", where=here)
    out: list[tuple[int, Price]] = []
    for i, t in enumerate(value):
        at = f"{here}.tiers[{i}]"
        if not isinstance(t, Mapping) or "above" not in t:
            raise ConfigError("each tier needs 'above' (input tokens)", where=at)
        start = _int(t["above"], f"{at}.above")
        if out and start <= out[-1][0]:
            raise ConfigError("tiers must rise ('above' larger than the tier before)", where=at)
        changed: dict[str, Any] = {}
        for key in (*_DECIMAL_FIELDS, *_OPTIONAL_DECIMAL):
            if t.get(key) is not None:
                changed[key] = _decimal(t[key], f"{at}.{key}")
        out.append((start, replace(base, **changed)))
    return tuple(out)


def _price_from(entry: Mapping[str, Any], where: str) -> Price:
    base = _base_price_from(entry, where)
    tiers = _tiers(base, entry.get("tiers"), f"{where}: model {base.model!r}")
    return replace(base, tiers=tiers) if tiers else base


def _base_price_from(entry: Mapping[str, Any], where: str) -> Price:
    if not isinstance(entry, Mapping) or not isinstance(entry.get("model"), str):
        raise ConfigError("each model entry needs a string 'model'", where=where)
    name = entry["model"]
    here = f"{where}: model {name!r}"
    for key in _DECIMAL_FIELDS:
        if key not in entry:
            raise ConfigError(f"missing field {key!r}", where=here)
    provider = str(entry.get("provider", "custom"))
    default_api = {"anthropic": "anthropic", "openai": "openai-chat"}.get(provider, "openai-compat")
    return Price(
        model=name,
        provider=provider,
        api=str(entry.get("api", default_api)),
        input=_decimal(entry["input"], f"{here}.input"),
        output=_decimal(entry["output"], f"{here}.output"),
        cache_read=_decimal(entry["cache_read"], f"{here}.cache_read"),
        cache_write_5m=None
        if entry.get("cache_write_5m") is None
        else _decimal(entry["cache_write_5m"], f"{here}.cache_write_5m"),
        cache_write_1h=None
        if entry.get("cache_write_1h") is None
        else _decimal(entry["cache_write_1h"], f"{here}.cache_write_1h"),
        min_cacheable_tokens=_int(
            entry.get("min_cacheable_tokens", UNPRICED_MIN_TOKENS), f"{here}.min_cacheable_tokens"
        ),
        cache_ttl_seconds=_int(
            entry.get("cache_ttl_seconds", UNPRICED_TTL_SECONDS), f"{here}.cache_ttl_seconds"
        ),
        date=str(entry.get("date", "")),
        source=str(entry.get("source", "")),
        note=str(entry.get("note", "")),
        base_url=entry.get("base_url"),
        context_window=None
        if entry.get("context_window") is None
        else _int(entry["context_window"], f"{here}.context_window"),
        context_window_source=str(entry.get("context_window_source", "")),
        cache_storage_per_hour=None
        if entry.get("cache_storage_per_hour") is None
        else _decimal(entry["cache_storage_per_hour"], f"{here}.cache_storage_per_hour"),
    )


class Fallback(Protocol):
    """Where a table looks for a model it does not list (the built-in table: the pinned
    genai-prices catalogue, `prices_catalogue.Catalogue`)."""

    def lookup(self, model: str) -> Price | None: ...


class PriceTable:
    """Models by id, with aliases (`haiku` -> `claude-haiku-4-5`), and optionally a catalogue
    for models it does not list."""

    def __init__(
        self,
        prices: Mapping[str, Price],
        aliases: Mapping[str, str] | None = None,
        fallback: Fallback | None = None,
    ):
        self._prices = dict(prices)
        self._aliases = dict(aliases or {})
        self._fallback = fallback

    @classmethod
    def from_data(cls, data: Any, where: str = "prices") -> PriceTable:
        """A table from a price file's parsed data (a mistake names the field)."""
        if not isinstance(data, Mapping) or not isinstance(data.get("models"), list):
            raise ConfigError("expected an object with a 'models' list", where=where)
        prices: dict[str, Price] = {}
        for i, entry in enumerate(data["models"]):
            p = _price_from(entry, f"{where}: models[{i}]")
            prices[p.model] = p
        aliases = data.get("aliases") or {}
        if not isinstance(aliases, Mapping):
            raise ConfigError("'aliases' must be an object", where=where)
        return cls(prices, {str(k): str(v) for k, v in aliases.items()})

    # Reading tables is I/O, kept in `pricefile` so that this module (and the pure modules that
    # price requests) import none; these three are the usual way in.
    @classmethod
    def load_file(cls, path: str | PathLike[str]) -> PriceTable:
        """A user's price file (JSON, the shape of the built-in table)."""
        from . import pricefile

        return pricefile.load_file(path)

    @classmethod
    def builtin(cls) -> PriceTable:
        """The table shipped in the package (read once)."""
        from . import pricefile

        return pricefile.builtin()

    @classmethod
    def default(cls, override: str | PathLike[str] | None = None) -> PriceTable:
        """Built-in prices, overridden by `override` or the file named in PREFIXLOCK_PRICES."""
        from . import pricefile

        return pricefile.default(override)

    def merged(self, other: PriceTable) -> PriceTable:
        """This table with another's models added or overriding."""
        return PriceTable(
            {**self._prices, **other._prices},
            {**self._aliases, **other._aliases},
            other._fallback or self._fallback,
        )

    def resolve(self, model: str) -> str:
        """The canonical model id for an alias or an id with a provider prefix.

        Only known provider prefixes are stripped: ids such as Ollama's `llama3:8b` or
        OpenAI's fine-tunes `ft:gpt-4o:org::id` contain colons of their own."""
        head, sep, rest = model.partition(":")
        name = rest if sep and head in PROVIDER_PREFIXES else model
        return self._aliases.get(name, name)

    def lookup(self, model: str) -> Price | None:
        """The price of `model` (an alias or a dated id resolves): the table's own entry, else
        the catalogue's; None when neither knows it."""
        price = self._prices.get(self.resolve(model))
        if price is None and self._fallback is not None:
            price = self._fallback.lookup(model)
        return price

    def listed(self, model: str) -> Price | None:
        """The table's own entry for `model`, never the catalogue's (a caller that tries
        spellings of an id tries them all here first)."""
        return self._prices.get(self.resolve(model))

    def require(self, model: str) -> Price:
        """The price of `model`; UnknownModelError naming it when the table lacks it."""
        price = self.lookup(model)
        if price is None:
            known = ", ".join(sorted(self._prices))
            raise UnknownModelError(
                f"unknown model {model!r}: not in the price table. Add it with a prices file "
                f"(--prices FILE or {ENV_VAR}). Known models: {known}"
            )
        return price

    def __iter__(self) -> Iterator[Price]:
        return iter(sorted(self._prices.values(), key=lambda p: (p.provider, p.model)))

    def __contains__(self, model: object) -> bool:
        return isinstance(model, str) and self.lookup(model) is not None

    @property
    def aliases(self) -> Mapping[str, str]:
        """Alternative model ids and the model each resolves to."""
        return dict(self._aliases)
