"""The emulator's prompt caches: each provider's rules served over machines, keys and scopes.

The rules (what a request reads, what it writes) are prefixlock.cache's `anthropic`, `openai` and
`deepseek`, the ones the guard predicts with; this module adds what a server has: machines and
routing, per-key and per-model scopes, storage in prefixlock.cache.blocks.BlockCache (the
simulator's engine), eviction. Pure: each call takes the request's cache units and the clock's
time, and returns token counts; nothing here reads a clock or a socket.

Writes are two-phase (`lookup` then `commit`): an entry becomes readable only when the response
that wrote it starts, so parallel requests on a cold prefix all pay the write, as Anthropic says.
"""

# pure: imports no I/O (tests/test_layout.py checks it)

from __future__ import annotations

import hashlib
import random
from array import array
from collections import OrderedDict, deque
from collections.abc import Hashable, Sequence
from dataclasses import dataclass, field

from ..cache import anthropic, deepseek, openai
from ..cache.blocks import BlockCache
from ..cache.units import Unit
from ..canonical import chain_hash
from .config import AnthropicCacheConfig, OpenAICacheConfig


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
        self.config: AnthropicCacheConfig = config or AnthropicCacheConfig()
        self.machines: list[BlockCache] = [
            BlockCache(self.config.capacity_blocks, self.config.policy)
            for _ in range(self.config.machines)
        ]
        self.store: BlockCache = self.machines[0]
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
        store = self.store
        hit = anthropic.read(
            units,
            lambda u: store.get((scope, model, u.chain), now),
            min_tokens,
            self.config.lookback_blocks,
        )
        read = units[hit].end if hit >= 0 else 0
        writes = anthropic.writes(units, hit, min_tokens)
        w5, w1 = anthropic.written(writes)
        entries = tuple(((scope, model, w.unit.chain), w.seconds) for w in writes)
        return AnthropicOutcome(
            input_tokens=total - read - w5 - w1,
            cache_read=read,
            write_5m=w5,
            write_1h=w1,
            read_position=hit if hit >= 0 else None,
            pending=PendingWrite(entries, machine),
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


def _drop_expired(stores: Sequence[BlockCache], now: float) -> None:
    """Expired entries read as absent; removing them at each write keeps a long-running
    server's caches to what is still within its TTL (an uncapped store never evicts)."""
    for store in stores:
        store.drop_expired(now)


def _evict_model(store: BlockCache, model: str | None, scope: str | None = None) -> int:
    """Drop `store`'s entries of `model` (None: all) and of `scope` (None: every key's); keys
    are tuples (model, ..., scope)."""
    dropped = 0
    for key in store.stored_keys():
        assert isinstance(key, tuple)
        if (model is None or key[0] == model) and (scope is None or key[-1] == scope):
            dropped += store.evict(key)
    return dropped


class OpenAIPromptCache:
    """Automatic caching over several machines, routed by prefix hash and prompt_cache_key.

    Models before gpt-5.6 store every 128-token block of a prompt (`lookup`); gpt-5.6 and later
    store entries only at breakpoints (`lookup_breakpoints`). Both live on the same machines.
    Entries are scoped by organization (`scope`, the emulator's one-way id of the API key): as
    OpenAI documents, prompt caches are not shared between organizations."""

    def __init__(self, config: OpenAICacheConfig | None = None, seed: int = 0) -> None:
        self.config: OpenAICacheConfig = config or OpenAICacheConfig()
        self.machines: list[BlockCache] = [
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
        scope: str,
        model: str,
        tokens: Sequence[int],
        cache_key: str | None,
        min_tokens: int,
        ttl: float,
        now: float,
    ) -> OpenAIOutcome:
        machine = self.route(model, tokens, cache_key, now)
        block = self.config.block_tokens
        # (model, key, scope): the key names the block, the model beside it lets one model's
        # entries be evicted, the scope keeps organizations apart.
        keys = [(model, k, scope) for k in openai.block_keys(model, tokens, block)]
        store = self.machines[machine]
        cached = openai.read_blocks(
            keys, lambda k: store.get(k, now), len(tokens), min_tokens, block
        )
        stored, written = openai.block_writes(len(tokens), cached, min_tokens, block)
        entries = tuple((k, ttl) for k in keys[:stored])
        return OpenAIOutcome(len(tokens), cached, machine, PendingWrite(entries, machine), written)

    def lookup_breakpoints(
        self,
        scope: str,
        model: str,
        units: Sequence[Unit],
        tokens: Sequence[int],
        cache_key: str | None,
        mode: str,
        request_ttl: str,
        min_tokens: int,
        now: float,
    ) -> OpenAIOutcome:
        """gpt-5.6 and later: entries only at breakpoints, matched exactly, on the machine the
        usual routing picks."""
        machine = self.route(model, tokens, cache_key, now)
        store = self.machines[machine]
        hit = openai.breakpoint_read(
            units, lambda u: store.get((model, u.chain, scope), now), min_tokens
        )
        writes = openai.breakpoint_writes(units, hit, mode, min_tokens, request_ttl)
        entries = tuple(((model, w.unit.chain, scope), w.seconds) for w in writes)
        cached = units[hit].end if hit >= 0 else 0
        total = units[-1].end if units else 0
        # Each written span is stored with its breakpoint's TTL, as Anthropic's 5m/1h spans are.
        written = sum(w.tokens for w in writes)
        long_lived = sum(w.tokens for w in writes if w.seconds >= openai.TTL_SECONDS["12h"])
        return OpenAIOutcome(
            total, cached, machine, PendingWrite(entries, machine), written, long_lived
        )

    def commit(self, pending: PendingWrite, now: float) -> None:
        self.drop_expired(now)
        store = self.machines[pending.machine]
        for key, ttl in pending.entries:
            store.put(key, now, ttl)

    def evict(self, model: str | None = None, scope: str | None = None) -> int:
        """Drop entries (all, one model's, one key's) on every machine: a provider-side
        eviction."""
        return sum(_evict_model(m, model, scope) for m in self.machines)


@dataclass(frozen=True)
class DeepSeekOutcome:
    prompt_tokens: int
    hit_tokens: int
    pending: PendingWrite = field(default_factory=PendingWrite)

    @property
    def miss_tokens(self) -> int:
        return self.prompt_tokens - self.hit_tokens


class DeepSeekPromptCache:
    """Best-effort disk cache of whole prefix units (prefixlock.cache.deepseek); `reply_chain`
    is the unit through the reply as the client will send it back. Per user (`scope`): DeepSeek
    documents that each user's cache is isolated from others'."""

    def __init__(self, capacity: int | None = None) -> None:
        self.store: BlockCache = BlockCache(capacity, "lru")

    def lookup(
        self,
        scope: str,
        model: str,
        units: Sequence[Unit],
        min_tokens: int,
        ttl: float,
        now: float,
        reply_chain: str | None = None,
    ) -> DeepSeekOutcome:
        total = units[-1].end if units else 0
        hit = deepseek.read(units, lambda u: self.store.get((model, u.chain, scope), now))
        entries = tuple(
            ((model, chain, scope), ttl)
            for chain in deepseek.stored(units, min_tokens, reply_chain)
        )
        return DeepSeekOutcome(total, units[hit].end if hit >= 0 else 0, PendingWrite(entries))

    def drop_expired(self, now: float) -> None:
        """Remove the units expired by `now` (they read as absent already)."""
        self.store.drop_expired(now)

    def commit(self, pending: PendingWrite, now: float) -> None:
        self.drop_expired(now)
        for key, ttl in pending.entries:
            self.store.put(key, now, ttl)

    def evict(self, model: str | None = None, scope: str | None = None) -> int:
        """Drop entries (all, one model's, one key's)."""
        return _evict_model(self.store, model, scope)
