"""CacheGuard: predicts each request's cached tokens, explains every miss, enforces a miss budget.

Pure: the guard keeps its own model of what the provider's prompt cache holds (entries written at
breakpoints, their TTLs, per model), fed by the requests the session sends and the usage they
report; time is passed in. Before a request it predicts read / write / uncached tokens and how
much of what the previous request left in the cache will be lost, and why. After the response it
compares the prediction with the reported usage: whatever is still missing is "unexplained"
(provider-side eviction or routing), carried beside the provider's own verdict when the response
has one (Anthropic cache diagnostics, OpenAI prompt_cache_diagnostics).

The rules are prefixlock.cache's `anthropic`, `openai` and `deepseek` (docs/providers.md), the
functions the emulator serves, asked here of the guard's own model of the cache.
"""

# pure: imports no I/O (tests/test_layout.py checks it)

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass, replace
from decimal import Decimal
from functools import partial
from typing import Any

from ..billing.prices import Price, PriceTable
from ..billing.usage import Usage
from ..cache import anthropic, deepseek, openai
from ..cache.blocks import BlockCache
from ..cache.defaults import model_min_tokens, model_ttl
from ..cache.media import unit_token_ids
from ..cache.packed_units import as_tuple
from ..cache.prefix import shared_units
from ..cache.rules import Rules, rules_for
from ..cache.units import (
    Unit,
    anthropic_message_settings,
    key_order_only,
    openai_cache_options,
    openai_reply_chain,
    openai_settings,
    openai_tokens,
    unit_bytes,
    unit_objects,
    without_breakpoints,
)
from ..events import CacheBreak, ContextWindowWarning
from ..wire import WireRequest
from .budget import CacheBudget

# Causes, in the order they are named when several apply to one request.
CAUSES = (
    "model",  # the model changed: the cache is per model
    "tools",  # a tool definition changed (name, description, schema, order)
    "system",  # the system prompt changed
    "settings",  # thinking / effort / tool_choice / parallel_tool_calls changed
    "key_order",  # a block was re-sent with its free-form JSON's keys reordered (same content)
    "history",  # an earlier message was rewritten (not an append)
    "ttl",  # the entry expired while the session was idle
    "lookback",  # a turn added more blocks than Anthropic's lookback reaches
    "breakpoint",  # gpt-5.6+: the changed suffix's shared prefix ended at no cached breakpoint
    "below_minimum",  # the prefix is shorter than the model's minimum cacheable length
    "restart",  # we restarted the provider (a local emulator): its cache started empty
    "unexplained",  # the provider read less than its own rules allow: eviction or routing
)


@dataclass(frozen=True)
class Prediction:
    """What the guard expects the provider to report for one request, before it is sent."""

    model: str
    read: int
    write_5m: int
    write_1h: int
    uncached: int
    ceiling: int  # tokens the previous request left readable for this one
    lost: int  # ceiling - read: tokens re-billed that were cached
    cause: str | None  # why `lost` > 0 (or below_minimum), None when nothing is lost
    detail: str = ""
    lost_dollars: Decimal | None = None
    input_dollars: Decimal | None = None
    expires_at: float | None = None  # when the entry this request reads expires (before it)
    # internal: position of the unit read (-1: none), for the cache model update
    read_position: int = -1

    @property
    def input_total(self) -> int:
        """All input tokens the request is predicted to send."""
        return self.read + self.write_5m + self.write_1h + self.uncached

    def usage(self, output: int = 0) -> Usage:
        """The prediction as a Usage (with `output` output tokens)."""
        return Usage(self.uncached, self.read, self.write_5m, self.write_1h, output)


@dataclass
class _TokenState:
    """The last OpenAI-style request, tokenized: its units, token ends, tokens, block keys."""

    model: str
    units: Sequence[Unit]
    ends: list[int]
    tokens: list[int]
    keys: list[str]


class _OpenAIUnitData:
    """The bytes of each unit of an OpenAI body, by index, in `cache.units.openai_units` order
    (a test pins the two together); nothing is serialized until asked for."""

    def __init__(self, body: Mapping[str, Any]) -> None:
        self.body = body
        self.pre: list[Callable[[], bytes]] = [partial(openai_settings, body)]
        if body.get("instructions") is not None:
            self.pre.append(partial(unit_bytes, {"instructions": body["instructions"]}))
        self.tools = list(body.get("tools") or [])
        items = body.get("messages")
        if items is None:
            raw = body.get("input")
            items = [{"role": "user", "content": raw}] if isinstance(raw, str) else raw
        self.items = items or []

    def __len__(self) -> int:
        return len(self.pre) + len(self.tools) + len(self.items)

    def __getitem__(self, i: int) -> bytes:
        if i < len(self.pre):
            return self.pre[i]()
        i -= len(self.pre)
        if i < len(self.tools):
            return unit_bytes(self.tools[i])
        return unit_bytes(without_breakpoints(self.items[i - len(self.tools)]))

    def token_ids(self, i: int) -> list[int]:
        """Token ids of unit `i`: an input item's images and files by OpenAI's rule
        (prefixlock.cache.media), as `openai_tokens` gives them."""
        data = self[i]
        first_item = len(self.pre) + len(self.tools)
        value = without_breakpoints(self.items[i - first_item]) if i >= first_item else None
        return unit_token_ids(data, value, "openai")


@dataclass
class _Seen:
    """What the guard keeps of a request it saw (not the body: the store has that)."""

    model: str
    api: str
    units: tuple[Unit, ...]
    cached_end: int  # tokens this request left readable in the cache
    time: float
    settings_key: bytes = b""
    cached_key: Hashable | None = None  # the cache entry that holds `cached_end`
    # The body as sent (a reference, not a copy): what the next miss is explained against.
    body: Mapping[str, Any] | None = None


# How long an expired entry stays in the guard's model of the cache: a miss on it is still named
# "ttl" (not an unexplained eviction) for that long after it expired; then it goes, or a long
# session would keep every entry it ever wrote.
EXPIRED_KEPT_SECONDS = 3600.0

# The newest misses `CacheGuard.breaks` keeps (the counts and sums by cause cover every one): a
# session that misses now and then, over thousands of requests, held one record a miss.
BREAKS_KEPT = 64

# The guard's cache keys: (tag of the rules that wrote it, model, unit chain); an OpenAI block
# (before gpt-5.6) by its block key alone, a hash chained from the model's, which names the
# model too and is never equal to a tuple.
_TAG = {"anthropic": "a", "deepseek": "d", "openai-breakpoints": "b"}


def _rules_for(api: str, price: Price | None, model: str) -> Rules:
    return rules_for(api, price.provider if price is not None else None, model)


def caches_whole_prompts(api: str, price: Price | None, model: str = "") -> bool:
    """Does `api` (with the model's price entry) cache whole prompts, DeepSeek-style: a hit
    needs a full match of a unit stored at the end of a request's input or output? The SDK asks
    this to decide where volatile text goes (prefixlock.agent.Session.send); asking the guard's
    own rule keeps the request and the guard's prediction of it in agreement."""
    return _rules_for(api, price, model) == "deepseek"


def provider_verdict(api: str, response: Mapping[str, Any] | None) -> str | None:
    """The provider's own cache-miss reason from a reply's diagnostics fields (None: nothing
    diverged, the comparison is pending, or nothing was asked). The documented shapes
    (prefixlock.providers.diagnostics asks for them): Anthropic `diagnostics` is null or
    `{"cache_miss_reason": {"type": ...}}` (a null reason: still pending); OpenAI Responses
    `prompt_cache_diagnostics` is `{"type": "cache_miss", "reason": ...}`, `{"type":
    "cache_hit"}`, `{"type": "comparison_response_not_found"}` or `{"type": "unavailable"}`."""
    if not response:
        return None
    if api == "anthropic":
        diag = response.get("diagnostics")
        reason = diag.get("cache_miss_reason") if isinstance(diag, Mapping) else None
        kind = reason.get("type") if isinstance(reason, Mapping) else None
        return str(kind) if kind else None
    diag = response.get("prompt_cache_diagnostics")
    if not isinstance(diag, Mapping):
        return None
    kind = diag.get("type")
    if kind == "cache_miss":
        reason = diag.get("reason")
        return str(reason) if reason else "cache_miss"
    if kind in (None, "", "cache_hit"):
        return None
    return str(kind)  # comparison_response_not_found, unavailable


class CacheGuard:
    """Models one session's prompt cache: predicts, then checks, every request."""

    def __init__(
        self,
        prices: PriceTable | None = None,
        *,
        budget: CacheBudget | None = None,
        lookback: int = anthropic.LOOKBACK,
        block_tokens: int = openai.BLOCK_TOKENS,
    ) -> None:
        self.prices: PriceTable = prices or PriceTable.default()
        self.budget: CacheBudget = budget or CacheBudget()
        self.lookback = lookback
        self.block_tokens = block_tokens
        # The guard's picture of the provider's cache. Unbounded: a provider's evictions show up
        # as unexplained misses instead.
        self._cache = BlockCache()
        # The message-level entries written at breakpoints (Anthropic, gpt-5.6), with their
        # unit positions: where `_drop_superseded` looks for the ones a later entry replaced.
        self._written: list[tuple[tuple[str, str, str], int]] = []
        self._last: _Seen | None = None
        self._ostate: _TokenState | None = None
        self.rebilled_tokens: int = 0
        self.rebilled_dollars: Decimal = Decimal(0)
        # The newest misses, for a look at what happened lately; every miss is counted in
        # `break_count` and its tokens in `rebilled_by_cause` (what `snapshot` reports).
        self.breaks: deque[CacheBreak] = deque(maxlen=BREAKS_KEPT)
        self.break_count: int = 0
        self.rebilled_by_cause: dict[str, int] = {}
        self.requests: int = 0
        self.unexplained_tolerance: float = 0.02
        # Set when we know the provider's cache is empty because we restarted it: the next
        # request's miss is ours, not the provider's (see `provider_restarted`).
        self._restarted: str | None = None

    # -- rules --------------------------------------------------------------------------------

    def price(self, model: str) -> Price | None:
        """The price of `model`, or None when the table lacks it."""
        return self.prices.lookup(model)

    def min_tokens(self, model: str, api: str) -> int:
        """The fewest tokens `model` caches."""
        return model_min_tokens(self.price(model))

    def ttl_seconds(self, model: str) -> float:
        """How long `model`'s cache entries live unread, in seconds."""
        return float(model_ttl(self.price(model)))

    def _blocks(self, req: WireRequest) -> tuple[int, list[str]]:
        """(prompt tokens, 128-token block keys) of an OpenAI-style request, incrementally.

        Only the units after the part shared with the previous request are tokenized and only
        the blocks after it hashed, so the guard's work per turn follows the turn's new content.
        """
        units = req.units
        st = self._ostate
        c = 0
        if st is not None and st.model == req.model:
            c = shared_units(st.units, units)
        data = _OpenAIUnitData(req.body)
        if len(data) != len(units):  # not the shape cache.units cut: do it the slow way
            tokens = openai_tokens(req.body)
            ends: list[int] = []
            c = 0
        else:
            if st is not None and c == len(st.units) == len(units):
                return len(st.tokens), st.keys  # the same request again (predict, observe)
            shared = st.ends[c - 1] if st is not None and c else 0
            # Extending the last request (the common case) reuses its lists in place.
            extend = st is not None and c == len(st.units)
            tokens = st.tokens if extend and st else (st.tokens[:shared] if st else [])
            ends = st.ends if extend and st else (st.ends[:c] if st else [])
            for i in range(c, len(units)):
                tokens.extend(data.token_ids(i))
                ends.append(len(tokens))
        b = self.block_tokens
        keep = ((st.ends[c - 1] if st is not None and c else 0) // b) if ends else 0
        if st is not None and keep == len(st.keys) and tokens is st.tokens:
            keys = st.keys
        else:
            keys = list(st.keys[:keep]) if st is not None else []
        openai.block_keys(req.model, tokens, b, into=keys)
        if ends:
            self._ostate = _TokenState(req.model, units, ends, tokens, keys)
        return len(tokens), keys

    # -- the read rules, per provider ------------------------------------------------------------

    def _presence(self, now: float, ignore_ttl: bool) -> Callable[[Hashable], bool]:
        """How the guard asks its cache for an entry without changing it: unexpired at `now`,
        or with `ignore_ttl` stored at all (expired entries stay stored: see _touch)."""
        if ignore_ttl:
            return self._cache.__contains__
        peek = self._cache.peek
        return lambda key: peek(key, now)

    def _touch(self, key: Hashable, now: float) -> bool:
        """Read `key` as the provider does (a hit refreshes it). An expired entry is left in
        place, not dropped, so that a later miss on it can still be named "ttl"."""
        return self._cache.peek(key, now) and self._cache.get(key, now)

    def _read_tokens(
        self, req: WireRequest, model: str, now: float, ignore_ttl: bool = False
    ) -> tuple[int, int, float | None]:
        """(tokens read, position read, expiry of the entry read) for `req` on `model`."""
        rules = _rules_for(req.api, self.price(model), model)
        units = req.units
        min_tokens = self.min_tokens(model, req.api)
        present = self._presence(now, ignore_ttl)
        if rules == "openai":
            n_tokens, keys = self._blocks(req)
            cached = openai.read_blocks(keys, present, n_tokens, min_tokens, self.block_tokens)
            if not cached:
                return 0, -1, None
            n = cached // self.block_tokens
            return cached, n - 1, self._cache.expires_at(keys[n - 1])
        tag = _TAG[rules]

        def unit_present(u: Unit) -> bool:
            return present((tag, model, u.chain))

        if rules == "anthropic":
            hit = anthropic.read(units, unit_present, min_tokens, self.lookback)
        elif rules == "deepseek":
            hit = deepseek.read(units, unit_present)
        else:
            hit = openai.breakpoint_read(units, unit_present, min_tokens)
        if hit < 0:
            return 0, -1, None
        return units[hit].end, hit, self._cache.expires_at((tag, model, units[hit].chain))

    # -- prediction ------------------------------------------------------------------------------

    def predict(self, req: WireRequest, now: float) -> Prediction:
        """What the provider should report for `req` sent at `now`. Changes nothing."""
        model = req.model
        price = self.price(model)
        rules = _rules_for(req.api, price, model)
        total = req.input_tokens
        read, pos, expiry = self._read_tokens(req, model, now)
        min_tokens = self.min_tokens(model, req.api)
        w5 = w1 = 0
        if rules == "anthropic":
            w5, w1 = anthropic.written(anthropic.writes(req.units, pos, min_tokens))
        elif rules == "openai-breakpoints":
            mode, ttl = openai_cache_options(req.body)
            writes = openai.breakpoint_writes(req.units, pos, mode, min_tokens, ttl)
            w5 = sum(w.tokens for w in writes)
        elif rules == "openai" and price is not None and price.cache_write_5m is not None:
            # Models with a write fee bill what they newly store as a write.
            _, w5 = openai.block_writes(total, read, min_tokens, self.block_tokens)
        uncached = max(total - read - w5 - w1, 0)
        ceiling, cause, detail = self._explain(req, read, now)
        lost = max(ceiling - read, 0)
        if cause == "below_minimum":
            lost = ceiling
        elif lost == 0:
            cause, detail = None, ""
        pred = Prediction(
            model=model,
            read=read,
            write_5m=w5,
            write_1h=w1,
            uncached=uncached,
            ceiling=ceiling,
            lost=lost,
            cause=cause,
            detail=detail,
            expires_at=expiry,
            read_position=pos,
        )
        if price is not None:
            pred = replace(
                pred,
                input_dollars=price.cost(pred.usage()),
                lost_dollars=self._lost_dollars(price, pred.usage(), lost),
            )
        return pred

    @staticmethod
    def _lost_dollars(price: Price, usage: Usage, lost: int) -> Decimal:
        """What `lost` re-billed tokens cost over reading them: actual - counterfactual."""
        if lost <= 0:
            return Decimal(0)
        left = lost
        counts = [usage.cache_write_1h, usage.cache_write_5m, usage.uncached_input]
        for i, n in enumerate(counts):
            take = min(left, n)
            counts[i] -= take
            left -= take
        moved = lost - left
        w1, w5, unc = counts
        counter = Usage(unc, usage.cache_read + moved, w5, w1, usage.output)
        return price.cost(usage) - price.cost(counter)

    def _divergence(self, prev: _Seen, req: WireRequest) -> Unit | None:
        """The first unit of `req` that differs from `prev` (None: req extends prev); where
        `req` is `prev` cut short, the first unit of `prev` it lacks."""
        shared = shared_units(prev.units, req.units)
        if shared == len(prev.units):
            return None
        return req.units[shared] if shared < len(req.units) else prev.units[shared]

    def _explain(self, req: WireRequest, read: int, now: float) -> tuple[int, str | None, str]:
        """(ceiling, cause, detail): what the previous request left readable, and why not read."""
        prev = self._last
        if prev is None:
            return 0, None, ""
        div = self._divergence(prev, req)
        shared = 0
        if div is None:
            shared = min(prev.units[-1].end if prev.units else 0, req.input_tokens)
        else:
            shared = req.units[div.position - 1].end if div.position > 0 else 0
        if prev.cached_end == 0:
            # Nothing was cached last time; the shared prefix was too short to be cached.
            min_tokens = self.min_tokens(req.model, req.api)
            if read == 0 and shared > 0 and shared < min_tokens and prev.model == req.model:
                return (
                    shared,
                    "below_minimum",
                    f"{shared} shared tokens are below {req.model}'s minimum of {min_tokens}",
                )
            return 0, None, ""
        ceiling = prev.cached_end
        if read >= ceiling:
            return ceiling, None, ""
        if self._restarted is not None:
            return ceiling, "restart", self._restarted
        if prev.cached_key is not None and not self._cache.peek(prev.cached_key, now):
            # What the last request left has expired: any change now costs nothing extra.
            return ceiling, "ttl", f"cache entry expired after {now - prev.time:.0f}s idle"
        if prev.model != req.model:
            return ceiling, "model", f"model changed from {prev.model} to {req.model}"
        if (
            div is not None
            and div.section == "messages"
            and read < min(shared, ceiling)
            and _rules_for(req.api, self.price(req.model), req.model) == "openai-breakpoints"
        ):
            # Everything before the changed suffix is unchanged, but gpt-5.6 matches a prefix
            # only where a breakpoint was written: that, not the new suffix, is the loss.
            return (
                ceiling,
                "breakpoint",
                f"the suffix changed at unit {div.position}; the {shared} tokens before it are "
                f"unchanged but only {read} end at a cached breakpoint (gpt-5.6 matches exactly "
                "at breakpoints: mark the stable boundary)",
            )
        if div is not None and div.end - div.tokens < ceiling and div.position < len(prev.units):
            section = div.section
            if (
                section == "messages"
                and req.api == "anthropic"
                and prev.settings_key != _anthropic_settings(req)
            ):
                return ceiling, "settings", "thinking / effort / tool_choice changed"
            if section == "settings":
                return ceiling, "settings", "request settings that key the cache changed"
            reordered = _reordered(prev, req, div.position)
            if reordered:
                return ceiling, "key_order", reordered
            if section in ("tools", "system"):
                return ceiling, section, f"{section} changed at unit {div.position}"
            return ceiling, "history", f"earlier message rewritten at unit {div.position}"
        # Unchanged content: did the entry expire?
        read_any, _, _ = self._read_tokens(req, req.model, now, ignore_ttl=True)
        if read_any > read:
            return ceiling, "ttl", f"cache entry expired after {now - prev.time:.0f}s idle"
        if req.api == "anthropic":
            return (
                ceiling,
                "lookback",
                f"the turn added more blocks than the {self.lookback}-block lookback",
            )
        return ceiling, "unexplained", "not read although unchanged and unexpired"

    def window_warning(self, req: WireRequest, output_cap: int) -> ContextWindowWarning | None:
        """A warning when `req` with `output_cap` output tokens would not fit its model's
        context window (None: it fits, or the window is not known)."""
        price = self.price(req.model)
        window = price.context_window if price is not None else None
        if window is None or req.input_tokens + output_cap <= window:
            return None
        return ContextWindowWarning(req.model, req.input_tokens, output_cap, window)

    def check_budget(self, pred: Prediction, what: str = "this request") -> None:
        """Raise before sending when the predicted re-bill breaks the cache-miss budget."""
        if pred.cause in (None, "below_minimum"):
            return
        self.budget.check(
            pred.lost, pred.lost_dollars, self.rebilled_tokens, self.rebilled_dollars, what
        )

    # -- observation -----------------------------------------------------------------------------

    def observe(
        self,
        req: WireRequest,
        pred: Prediction,
        usage: Usage,
        now: float,
        *,
        request_index: int | None = None,
        verdict: str | None = None,
        echo: Mapping[str, Any] | None = None,
        aside: bool = False,
    ) -> CacheBreak | None:
        """Record what the provider reported for `req` (sent at `now`); return any miss.

        `echo` is the reply's assistant message as the next request will carry it (Chat
        Completions shape): DeepSeek stores a unit through it, so the next turn reads it.
        `aside`: `req` does not continue the conversation (a request whose stream was abandoned:
        its user message never enters the history). Its cache entries are learned, but the next
        request is still compared with the one before it, so not extending `req` is no miss."""
        if aside:
            last = self._last
            try:
                return self.observe(
                    req, pred, usage, now, request_index=request_index, verdict=verdict, echo=echo
                )
            finally:
                self._last = last
        index = self.requests if request_index is None else request_index
        self.requests += 1
        model = req.model
        price = self.price(model)
        reported = usage.cache_read
        # Predictions are in the local tokenizer's count; a real provider counts its own way,
        # so scale them to its total (on the emulator the two agree and this is 1).
        scale = 1.0
        if pred.input_total and usage.input_total and usage.input_total != pred.input_total:
            scale = usage.input_total / pred.input_total
        expected = round(pred.read * scale)
        lost = round(pred.lost * scale)
        brk: CacheBreak | None = None
        if pred.cause is not None and lost > 0:
            dollars = self._lost_dollars(price, usage, lost) if price is not None else None
            brk = CacheBreak(index, pred.cause, lost, dollars, pred.detail, verdict)
        # Breakpoint and tokenizer details differ too: a small shortfall is not a miss.
        if expected - reported > max(self.unexplained_tolerance * expected, 0):
            missing = expected - reported
            dollars = self._lost_dollars(price, usage, missing) if price is not None else None
            if brk is None:
                brk = CacheBreak(
                    index,
                    "unexplained",
                    missing,
                    dollars,
                    f"predicted {expected} cached tokens, provider read {reported}: "
                    "evicted or routed elsewhere on the provider's side",
                    verdict,
                )
            else:
                extra = dollars if dollars is not None else Decimal(0)
                brk = replace(
                    brk,
                    tokens_rebilled=brk.tokens_rebilled + missing,
                    dollars=None if brk.dollars is None else brk.dollars + extra,
                    detail=f"{brk.detail}; {missing} more tokens unexplained",
                )
        if brk is not None and brk.cause != "below_minimum":
            self.rebilled_tokens += brk.tokens_rebilled
            self.rebilled_dollars += brk.dollars or Decimal(0)
        if brk is not None:
            self.breaks.append(brk)
            self.break_count += 1
            by_cause = self.rebilled_by_cause
            by_cause[brk.cause] = by_cause.get(brk.cause, 0) + brk.tokens_rebilled
        self._update(req, pred, usage, now, echo)
        return brk

    def _update(
        self,
        req: WireRequest,
        pred: Prediction,
        usage: Usage,
        now: float,
        echo: Mapping[str, Any] | None = None,
    ) -> None:
        """Bring the cache model in line with what the provider did for `req`."""
        self._restarted = None  # the first request after a restart has said so
        written = len(self._written)  # this request's writes are appended after these
        hit = -1
        model = req.model
        rules = _rules_for(req.api, self.price(model), model)
        units = req.units
        cached_end = 0
        cached_key: Hashable | None = None
        min_tokens = self.min_tokens(model, req.api)
        if rules == "anthropic":
            hit = -1
            if usage.cache_read > 0:
                for u in units:
                    if u.end == usage.cache_read:
                        hit = u.position
                if hit < 0 and pred.read_position >= 0:
                    hit = pred.read_position  # provider counts differ from ours: trust the rules
            if hit >= 0:
                # The read refreshes each entry it finds on its way to the one it reads (an
                # earlier breakpoint's too), as the emulator's does.
                anthropic.read(
                    units,
                    lambda u: u.position <= hit and self._touch(("a", model, u.chain), now),
                    min_tokens,
                    self.lookback,
                )
                cached_key = ("a", model, units[hit].chain)
                if not self._touch(cached_key, now):
                    # The provider read an entry the model no longer held (dropped as
                    # superseded: the same content written again, as after a compaction to
                    # the same summary): it holds it, refreshed. Without it each later
                    # request named the entry "expired after 0s idle", a break a request.
                    self._write(
                        cached_key, units[hit], now, anthropic.ttl_seconds(units[hit].breakpoint)
                    )
                cached_end = units[hit].end
            for w in anthropic.writes(units, hit, min_tokens):
                cached_key = self._write(("a", model, w.unit.chain), w.unit, now, w.seconds)
                cached_end = w.unit.end
        elif rules == "deepseek":
            ttl = self.ttl_seconds(model)
            deepseek.read(units, lambda u: self._touch(("d", model, u.chain), now))  # refreshes
            # With `echo`, the unit at the end of the output (input + reply as re-sent), which
            # the emulator stores too: the next turn reads through the previous reply.
            reply = openai_reply_chain(units, echo) if echo is not None else None
            stored = deepseek.stored(units, min_tokens, reply)
            for chain in stored:
                self._cache.put(("d", model, chain), now, ttl)
            if stored:
                cached_key = ("d", model, units[-1].chain)
                cached_end = req.input_tokens
        elif rules == "openai-breakpoints":
            hit = -1
            if usage.cache_read > 0:  # the provider read nothing: it wrote every breakpoint
                hit = openai.breakpoint_read(
                    units, lambda u: self._touch(("b", model, u.chain), now), min_tokens
                )
                if hit < 0:
                    hit = pred.read_position  # provider counts differ from ours: trust the rules
            if hit >= 0:
                cached_end = units[hit].end
                cached_key = ("b", model, units[hit].chain)
            mode, request_ttl = openai_cache_options(req.body)
            for w in openai.breakpoint_writes(units, hit, mode, min_tokens, request_ttl):
                cached_key = self._write(("b", model, w.unit.chain), w.unit, now, w.seconds)
                cached_end = w.unit.end
            if req.meta.get("volatile") and len(units) > 1:
                # The implicit breakpoint sits on the volatile text the builder appended last;
                # the next request replaces that text, so only what precedes it counts as left
                # readable (as on Anthropic, where volatile text carries no breakpoint).
                cached_end = min(cached_end, units[-2].end)
        else:
            n_tokens, keys = self._blocks(req)
            stored_blocks, _ = openai.block_writes(n_tokens, 0, min_tokens, self.block_tokens)
            # A request that asks for the day-long retention keeps its blocks a day, as the
            # provider does; the in-memory TTL alone made a retained cache look cold after 10
            # minutes (an early compaction, pings for nothing).
            retention = req.body.get("prompt_cache_retention")
            ttl = openai.retention_seconds(retention, self.ttl_seconds(model))
            self._cache.insert(keys[:stored_blocks], now, ttl)
            if stored_blocks:
                cached_end = stored_blocks * self.block_tokens
                cached_key = keys[stored_blocks - 1]
        if rules in ("anthropic", "openai-breakpoints"):
            fresh = [pos for _, pos in self._written[written:]]
            tag = _TAG[rules]
            self._drop_superseded(tag, model, units, [*fresh, hit] if hit >= 0 else fresh)
        # Long expired entries go too (kept a while: a miss on one is still named "ttl").
        self._cache.drop_expired(now - EXPIRED_KEPT_SECONDS)
        self._last = _Seen(
            model,
            req.api,
            as_tuple(units),  # a request's packed units stay packed (cache.packed_units)
            cached_end,
            now,
            _anthropic_settings(req),
            cached_key,
            req.body,
        )

    def _write(
        self, key: tuple[str, str, str], unit: Unit, now: float, seconds: float
    ) -> tuple[str, str, str]:
        """Store the entry a breakpoint writes; remember a message-level one's position."""
        self._cache.put(key, now, seconds)
        if unit.section == "messages":
            self._written.append((key, unit.position))
        return key

    def _drop_superseded(
        self, tag: str, model: str, units: Sequence[Unit], fresh: Sequence[int]
    ) -> None:
        """Drop the message-level entries that this request's entries (`fresh`: the positions
        it read or wrote at) supersede: on the same model and lineage (this request's units
        hold their chain), further back than a read looks from the entry that supersedes
        them, and expiring no later than it. A growing conversation never reads them again
        (each turn reads the newest), so without this a session whose clock does not pass the
        TTL between turns (a manual clock, turns faster than the TTL) kept every turn's."""
        if not fresh or not self._written:
            return
        newer = [
            (pos, self._cache.expires_at((tag, model, units[pos].chain)) or 0.0) for pos in fresh
        ]
        kept: list[tuple[tuple[str, str, str], int]] = []
        for key, pos in self._written:
            expires = self._cache.expires_at(key)
            if expires is None:
                continue  # gone already (expired and dropped, or the cache restarted)
            if (
                key[0] == tag
                and key[1] == model
                and pos < len(units)
                and units[pos].chain == key[2]
                and any(pos < at - self.lookback and expires <= until for at, until in newer)
            ):
                self._cache.evict(key)
                continue
            kept.append((key, pos))
        self._written = kept

    def provider_restarted(self, detail: str) -> None:
        """The provider's cache is known to be empty because we started it again (a chat on
        the built-in emulator, resumed in a new process): forget every entry, and name the
        next request's miss as a `restart` with `detail`, never as the provider's eviction."""
        self._cache = BlockCache()
        self._written = []
        self._restarted = detail

    def forget_last(self) -> None:
        """Start a new lineage (after compaction): the next request is not compared to the last."""
        self._last = None

    # -- state for quotes and keep-alive ---------------------------------------------------------

    @property
    def last_model(self) -> str | None:
        """The model of the last request (None before any)."""
        return self._last.model if self._last else None

    @property
    def last_cached_tokens(self) -> int:
        """Tokens the last request left cached (0 before any)."""
        return self._last.cached_end if self._last else 0

    @property
    def last_time(self) -> float | None:
        """When the last request was sent (None before any)."""
        return self._last.time if self._last else None

    def warm_until(self, req: WireRequest, now: float) -> float | None:
        """When the entry `req` would read expires (None: it reads nothing now)."""
        read, _, expiry = self._read_tokens(req, req.model, now)
        return expiry if read > 0 else None

    def snapshot(self) -> dict[str, Any]:
        """Counters for reports: re-billed tokens and dollars, misses by cause."""
        return {
            "requests": self.requests,
            "rebilled_tokens": self.rebilled_tokens,
            "rebilled_dollars": str(self.rebilled_dollars),
            "breaks": self.break_count,
            "by_cause": dict(self.rebilled_by_cause),
        }

    def forget_breaks(self) -> None:
        """Start the misses and their sums over (a replayed history's were counted when they
        happened)."""
        self.breaks.clear()
        self.break_count = 0
        self.rebilled_by_cause = {}
        self.rebilled_tokens = 0
        self.rebilled_dollars = Decimal(0)


def _reordered(prev: _Seen, req: WireRequest, position: int) -> str:
    """Why unit `position` differs, when the only difference is the key order of free-form JSON
    (a tool call's input, a schema) in it: the detail of a "key_order" miss; "" otherwise."""
    if prev.body is None or prev.api != req.api:
        return ""
    api = "anthropic" if req.api == "anthropic" else "openai"
    before, now = unit_objects(api, prev.body), unit_objects(api, req.body)
    if position >= min(len(before), len(now)):
        return ""
    if not key_order_only(before[position], now[position]):
        return ""
    return (
        f"unit {position} was re-sent with its JSON keys in another order (same content): the "
        "provider matches the bytes, so the cache misses from there; serialize tool inputs and "
        "schemas with a stable key order"
    )


def _anthropic_settings(req: WireRequest) -> bytes:
    if req.api != "anthropic":
        return b""
    return anthropic_message_settings(req.body)
