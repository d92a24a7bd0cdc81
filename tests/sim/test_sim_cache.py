"""BlockCache, the emulator's prompt cache: its public semantics, and the same answers as a plain
scan-everything model under random operations (the expiry queue only makes it faster)."""

from __future__ import annotations

from collections import OrderedDict

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from prefixlock.cache.blocks import BlockCache


def test_lru_fifo_lfu_victims() -> None:
    for policy, victim in (("lru", "b"), ("fifo", "a"), ("lfu", "c")):
        c = BlockCache(3, policy)
        c.insert(["a", "b", "c"])
        c.get("a")
        c.get("a")
        c.get("b") if policy == "lfu" else None
        assert c.put("d") == [victim], policy
        assert victim not in c and len(c) == 3


def test_ttl_refresh_peek_and_prefix() -> None:
    c = BlockCache(None, "lru", ttl=300)
    c.insert(["p1", "p2", "p3"], now=0)
    assert c.expires_at("p1") == 300
    assert c.match_prefix(["p1", "p2", "x", "p3"], now=200) == 2  # a hit refreshes the TTL
    assert c.expires_at("p1") == 500 and c.expires_at("p3") == 300
    assert c.peek("p3", now=299) and not c.peek("p3", now=300)
    assert c.expires_at("p3") == 300  # peek changes nothing
    assert not c.get("p3", now=301) and "p3" not in c
    assert c.evict("p1") and not c.evict("p1")


def test_expired_entries_go_before_live_ones() -> None:
    c = BlockCache(3, "lru")
    c.put("short", now=0, ttl=10)
    c.put("long1", now=0, ttl=1000)
    c.put("long2", now=0, ttl=1000)
    assert c.put("new", now=20) == []  # the expired entry made room, nothing was evicted
    assert "short" not in c and c.evictions == 0
    with pytest.raises(ValueError):
        BlockCache(0)
    with pytest.raises(ValueError):
        BlockCache(2, "mru")


class _Model:
    """The obvious implementation: scan every entry for expired ones when full."""

    def __init__(self, cap: int, policy: str) -> None:
        self.cap, self.policy = cap, policy
        self.d: OrderedDict[str, list[float]] = OrderedDict()  # key -> [expires, ttl, hits, stamp]
        self.clock = 0

    def _alive(self, k: str, now: float) -> bool:
        e = self.d.get(k)
        if e is None:
            return False
        if now >= e[0]:
            del self.d[k]
            return False
        return True

    def _use(self, k: str, now: float) -> None:
        self.clock += 1
        e = self.d[k]
        e[2] += 1
        e[3] = self.clock
        e[0] = now + e[1]
        if self.policy == "lru":
            self.d.move_to_end(k)

    def get(self, k: str, now: float) -> bool:
        if not self._alive(k, now):
            return False
        self._use(k, now)
        return True

    def put(self, k: str, now: float, ttl: float) -> list[str]:
        if self._alive(k, now):
            self.d[k][1] = max(self.d[k][1], ttl)
            self._use(k, now)
            return []
        out = []
        if len(self.d) >= self.cap:
            for key in [key for key, e in self.d.items() if now >= e[0]]:
                del self.d[key]
            if len(self.d) >= self.cap:
                if self.policy == "lfu":
                    victim = min(self.d, key=lambda key: (self.d[key][2], self.d[key][3]))
                else:
                    victim = next(iter(self.d))
                del self.d[victim]
                out = [victim]
        self.clock += 1
        self.d[k] = [now + ttl, ttl, 1, self.clock]
        return out


@settings(max_examples=80, deadline=None)
@given(
    policy=st.sampled_from(["lru", "fifo", "lfu"]),
    cap=st.integers(1, 6),
    ops=st.lists(
        st.tuples(
            st.sampled_from(["get", "put"]),
            st.sampled_from("abcdefgh"),
            st.integers(0, 3),
            st.sampled_from([5.0, 20.0, 60.0]),
        ),
        max_size=120,
    ),
)
def test_matches_a_plain_model(
    policy: str, cap: int, ops: list[tuple[str, str, int, float]]
) -> None:
    c = BlockCache(cap, policy)
    m = _Model(cap, policy)
    now = 0.0
    for op, key, dt, ttl in ops:
        now += dt
        if op == "get":
            assert c.get(key, now) == m.get(key, now)
        else:
            assert c.put(key, now, ttl) == m.put(key, now, ttl)
        assert len(c) == len(m.d)
