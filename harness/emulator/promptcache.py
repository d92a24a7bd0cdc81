"""The emulator's prompt caches: Anthropic's, OpenAI's and DeepSeek's rules over one engine.

Pure: each call takes the request's cache units (prefixlock.cache.units, the one definition of
what the cache sees) and the clock's time, and returns token counts; nothing here reads a clock or
a socket. Storage, TTLs and eviction are prefixlock.cache.blocks.BlockCache, the simulator's
engine, so prefix matching has one implementation.

Writes are two-phase (`lookup` then `commit`): an entry becomes readable only when the response
that wrote it starts, so parallel requests on a cold prefix all pay the write, as Anthropic says.
"""

from __future__ import annotations

import hashlib
import random
from array import array
from collections import OrderedDict, deque
from collections.abc import Hashable, Sequence
from dataclasses import dataclass, field

from ..cache.blocks import BlockCache
from ..cache.units import (
    OPENAI_TTL_SECONDS,
    Unit,
    openai_breakpoint_read,
    openai_breakpoint_writes,
)
from ..canonical import chain_hash
from .config import AnthropicCacheConfig, OpenAICacheConfig

TTL_SECONDS = {"5m": 300.0, "1h": 3600.0}


def key_id(api_key: str) -> str:
    """A short, one-way id of an API key: caches are scoped by it, and it is safe to log."""
    return hashlib.sha256(api_key.encode("utf-8")).hexdigest()[:16]


@dataclass(frozen=True)
class PendingWrite:
    """Entries to store once the response starts: (cache key, ttl seconds) pairs."""

    entries: tuple[tuple[Hashable, float | None], ...] = ()
    machine: int = 0


@dataclass(frozen=True)
class AnthropicOutcome:
    """Disjoint counters as Anthropic reports them, plus what to commit."""

    input_tokens: int
    cache_read: int
    write_5m: int
    write_1h: int
    read_position: int | None  # unit position of the entry that was read
    pending: PendingWrite = field(default_factory=PendingWrite)
    machine: int = 0

    @property
    def cache_creation(self) -> int:
        return self.write_5m + self.write_1h


class AnthropicPromptCache:
    """Per model and per API key; writes at breakpoints; reads look back from each breakpoint."""

    def __init__(self, config: AnthropicCacheConfig | None = None, seed: int = 0) -> None:
        self.config = config or AnthropicCacheConfig()
        self.machines = [
            BlockCache(self.config.capacity_blocks, self.config.policy)
            for _ in range(self.config.machines)
        ]
        self.store = self.machines[0]
        self._rng = random.Random(seed)

    def route(self, scope: str, model: str, units: Sequence[Unit]) -> int:
        n = len(self.machines)
        if n == 1:
            return 0
        if self.config.routing == "random":
            return self._rng.randrange(n)
        head = units[0].chain if units else ""
        return int(chain_hash(head, f"{scope}/{model}".encode())[:8], 16) % n

    def lookup(
        self, scope: str, model: str, units: Sequence[Unit], min_tokens: int, now: float
    ) -> AnthropicOutcome:
        """Read what the cache holds for this request; say what it will write."""
        machine = self.route(scope, model, units)
        self.store = self.machines[machine]
        total = units[-1].end if units else 0
        eligible = [u for u in units if u.breakpoint is not None and u.end >= min_tokens]
        hit = -1
        for bp in eligible:
            stop = max(-1, bp.position - self.config.lookback_blocks)
            for pos in range(bp.position, stop, -1):
                if pos <= hit:
                    break
                if self.store.get((scope, model, units[pos].chain), now):
                    hit = pos
                    break
        read = units[hit].end if hit >= 0 else 0
        w5 = w1 = 0
        prev = read
        entries: list[tuple[Hashable, float | None]] = []
        for bp in eligible:
            if bp.position <= hit:
                continue
            ttl = bp.breakpoint or "5m"
            span = bp.end - prev
            prev = bp.end
            if ttl == "1h":
                w1 += span
            else:
                w5 += span
            entries.append(((scope, model, bp.chain), TTL_SECONDS.get(ttl, 300.0)))
        return AnthropicOutcome(
            input_tokens=total - read - w5 - w1,
            cache_read=read,
            write_5m=w5,
            write_1h=w1,
            read_position=hit if hit >= 0 else None,
            pending=PendingWrite(tuple(entries), machine),
            machine=machine,
        )

    def commit(self, pending: PendingWrite, now: float) -> None:
        """Store the entries of a response that has started (TTL from the request's start)."""
        self.drop_expired(now)
        store = self.machines[pending.machine]
        for key, ttl in pending.entries:
            store.put(key, now, ttl)

    def drop_expired(self, now: float) -> None:
        """Remove the entries expired by `now` (they read as absent already)."""
        _drop_expired(self.machines, now)

    def evict(self, model: str | None = None, scope: str | None = None) -> int:
        """Drop entries (all, or one model's, or one key's): a provider-side eviction."""
        dropped = 0
        for m in self.machines:
            for key in m.stored_keys():
                assert isinstance(key, tuple)  # (scope, model, chain)
                if (model is None or key[1] == model) and (scope is None or key[0] == scope):
                    dropped += m.evict(key)
        return dropped


@dataclass(frozen=True)
class OpenAIOutcome:
    """OpenAI-style counters: prompt tokens include the cached ones."""

    prompt_tokens: int
    cached_tokens: int
    machine: int
    pending: PendingWrite = field(default_factory=PendingWrite)
    written_tokens: int = 0  # whole blocks stored by this request (billed where writes cost)
    # gpt-5.6 and later: how many of `written_tokens` went into 12-hour entries (the rest into
    # 30-minute ones), for the Responses usage's `cache_write_tokens_details`.
    written_12h: int = 0


def _block_keys(model: str, tokens: Sequence[int], block: int) -> list[tuple[str, str]]:
    """(model, chained hash) per whole block: the hash alone names the block, the model beside
    it lets one model's entries be evicted."""
    keys: list[tuple[str, str]] = []
    parent = chain_hash("", model.encode("utf-8"))
    for start in range(0, len(tokens) - block + 1, block):
        parent = chain_hash(parent, array("I", tokens[start : start + block]).tobytes())
        keys.append((model, parent))
    return keys


def _drop_expired(stores: Sequence[BlockCache], now: float) -> None:
    """Expired entries read as absent; removing them at each write keeps a long-running
    server's caches to what is still within its TTL (an uncapped store never evicts)."""
    for store in stores:
        store.drop_expired(now)


def _evict_model(store: BlockCache, model: str | None) -> int:
    """Drop `store`'s entries of `model` (None: all); keys are tuples that start with it."""
    dropped = 0
    for key in store.stored_keys():
        if model is None or (isinstance(key, tuple) and key[0] == model):
            dropped += store.evict(key)
    return dropped


class OpenAIPromptCache:
    """Automatic caching over several machines, routed by prefix hash and prompt_cache_key.

    Models before gpt-5.6 store every 128-token block of a prompt (`lookup`); gpt-5.6 and later
    store entries only at breakpoints (`lookup_breakpoints`). Both live on the same machines."""

    def __init__(self, config: OpenAICacheConfig | None = None, seed: int = 0) -> None:
        self.config = config or OpenAICacheConfig()
        self.machines = [
            BlockCache(self.config.capacity_blocks, self.config.policy)
            for _ in range(self.config.machines)
        ]
        self._rng = random.Random(seed)
        # Per routed prefix, its requests of the last minute; least recently routed first.
        self._recent: OrderedDict[str, deque[float]] = OrderedDict()
        self._next = 0

    def route(self, model: str, tokens: Sequence[int], cache_key: str | None, now: float) -> int:
        """The machine that serves this request."""
        n = self.config.machines
        if self.config.routing == "random":
            return self._rng.randrange(n)
        if self.config.routing == "round-robin":
            self._next = (self._next + 1) % n
            return self._next
        head = array("I", tokens[: self.config.route_tokens]).tobytes()
        route = chain_hash(
            chain_hash("", model.encode()), head + b"\x00" + (cache_key or "").encode()
        )
        home = int(route[:8], 16) % n
        recent = self._recent.pop(route, None) or deque()
        while recent and recent[0] <= now - 60.0:
            recent.popleft()
        recent.append(now)
        self._recent[route] = recent
        self._forget_idle_routes(now)
        if len(recent) > self.config.overflow_per_minute and n > 1:
            # Past the per-prefix rate the router spills over to other machines.
            return (home + 1 + self._rng.randrange(n - 1)) % n
        return home

    def _forget_idle_routes(self, now: float) -> None:
        """A prefix not routed for a minute counts nothing toward the rate: forget it, or a
        long-running server keeps a window for every prefix it ever saw."""
        while self._recent:
            first = next(iter(self._recent))
            if self._recent[first][-1] > now - 60.0:
                break
            del self._recent[first]

    def drop_expired(self, now: float) -> None:
        """Forget what no longer counts at `now`: expired entries and idle routes."""
        _drop_expired(self.machines, now)
        self._forget_idle_routes(now)

    def lookup(
        self,
        model: str,
        tokens: Sequence[int],
        cache_key: str | None,
        min_tokens: int,
        ttl: float,
        now: float,
    ) -> OpenAIOutcome:
        machine = self.route(model, tokens, cache_key, now)
        block = self.config.block_tokens
        keys = _block_keys(model, tokens, block)
        cached = 0
        if len(tokens) >= min_tokens:
            cached = self.machines[machine].match_prefix(keys, now) * block
            if cached < min_tokens:
                cached = 0
        entries = tuple((k, ttl) for k in keys) if len(tokens) >= min_tokens else ()
        written = len(entries) * block - cached if entries else 0
        return OpenAIOutcome(
            len(tokens), cached, machine, PendingWrite(entries, machine), max(written, 0)
        )

    def lookup_breakpoints(
        self,
        model: str,
        units: Sequence[Unit],
        tokens: Sequence[int],
        cache_key: str | None,
        mode: str,
        request_ttl: str,
        min_tokens: int,
        now: float,
    ) -> OpenAIOutcome:
        """gpt-5.6 and later: entries only at breakpoints, matched exactly (cacheunits' rules),
        on the machine the usual routing picks."""
        machine = self.route(model, tokens, cache_key, now)
        store = self.machines[machine]
        hit = openai_breakpoint_read(units, lambda u: store.get((model, u.chain), now), min_tokens)
        written, writes = openai_breakpoint_writes(units, hit, mode, min_tokens, request_ttl)
        entries = tuple(((model, u.chain), ttl) for u, ttl in writes)
        cached = units[hit].end if hit >= 0 else 0
        total = units[-1].end if units else 0
        # Each written span (from the previous write, or the read point, to a breakpoint) is
        # stored with that breakpoint's TTL, as Anthropic's 5m/1h spans are.
        prev = cached
        long_lived = 0
        for u, ttl in writes:
            if ttl >= OPENAI_TTL_SECONDS["12h"]:
                long_lived += u.end - prev
            prev = u.end
        return OpenAIOutcome(
            total, cached, machine, PendingWrite(entries, machine), written, long_lived
        )

    def commit(self, pending: PendingWrite, now: float) -> None:
        self.drop_expired(now)
        store = self.machines[pending.machine]
        for key, ttl in pending.entries:
            store.put(key, now, ttl)

    def evict(self, model: str | None = None) -> int:
        """Drop entries (all, or one model's) on every machine: a provider-side eviction."""
        return sum(_evict_model(m, model) for m in self.machines)


@dataclass(frozen=True)
class DeepSeekOutcome:
    prompt_tokens: int
    hit_tokens: int
    pending: PendingWrite = field(default_factory=PendingWrite)

    @property
    def miss_tokens(self) -> int:
        return self.prompt_tokens - self.hit_tokens


class DeepSeekPromptCache:
    """Best-effort disk cache: a hit needs a full match of a stored prefix unit.

    Units are stored at the end of each request's input, at the end of its input and output
    (the reply as the client sends it back, `reply_chain`), and at the end of its fixed part
    (settings, system, tools), the common prefix every later request shares (FACTS.md). The
    reply unit is what lets the next turn read through the previous assistant message.
    """

    def __init__(self, capacity: int | None = None) -> None:
        self.store = BlockCache(capacity, "lru")

    def lookup(
        self,
        model: str,
        units: Sequence[Unit],
        min_tokens: int,
        ttl: float,
        now: float,
        reply_chain: str | None = None,
    ) -> DeepSeekOutcome:
        total = units[-1].end if units else 0
        hit = 0
        for unit in reversed(units):
            if self.store.get((model, unit.chain), now):
                hit = unit.end
                break
        entries: list[tuple[Hashable, float | None]] = []
        if total >= min_tokens and units:
            fixed = [u for u in units if u.section != "messages"]
            if fixed and fixed[-1].end >= min_tokens:
                entries.append(((model, fixed[-1].chain), ttl))
            entries.append(((model, units[-1].chain), ttl))
            if reply_chain is not None:
                entries.append(((model, reply_chain), ttl))
        return DeepSeekOutcome(total, hit, PendingWrite(tuple(entries)))

    def drop_expired(self, now: float) -> None:
        """Remove the units expired by `now` (they read as absent already)."""
        self.store.drop_expired(now)

    def commit(self, pending: PendingWrite, now: float) -> None:
        self.drop_expired(now)
        for key, ttl in pending.entries:
            self.store.put(key, now, ttl)

    def evict(self, model: str | None = None) -> int:
        """Drop entries (all, or one model's)."""
        return _evict_model(self.store, model)
