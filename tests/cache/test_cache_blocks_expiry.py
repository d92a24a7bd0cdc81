"""BlockCache's expiry: `drop_expired(now)` removes exactly the entries whose TTL has passed by
`now`, whatever hits, refreshes and re-writes came before (in any time order: a response may
commit after a later request's read), while a hit costs no queue push."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from prefixlock.cache.blocks import BlockCache

KEYS = st.sampled_from("abcdef")
TIMES = st.integers(0, 400).map(float)
TTLS = st.sampled_from([None, 5.0, 50.0, 300.0])
OPS = st.lists(
    st.one_of(
        st.tuples(st.just("put"), KEYS, TIMES, TTLS),
        st.tuples(st.just("get"), KEYS, TIMES, st.none()),
        st.tuples(st.just("drop"), st.just(""), TIMES, st.none()),
    ),
    max_size=60,
)


class Reference:
    """key -> [expires, ttl], the documented semantics spelled out plainly."""

    def __init__(self) -> None:
        self.e: dict[str, list[float | None]] = {}

    def alive(self, key: str, now: float) -> bool:
        if key not in self.e:
            return False
        expires = self.e[key][0]
        if expires is not None and now >= expires:
            del self.e[key]
            return False
        return True

    def get(self, key: str, now: float) -> bool:
        if not self.alive(key, now):
            return False
        ttl = self.e[key][1]
        if ttl is not None:
            self.e[key][0] = now + ttl
        return True

    def put(self, key: str, now: float, ttl: float | None) -> None:
        if self.alive(key, now):
            old = self.e[key][1]
            if ttl is not None and (old is None or ttl > old):
                self.e[key][1] = ttl
            self.get(key, now)
            return
        self.e[key] = [None if ttl is None else now + ttl, ttl]

    def drop(self, now: float) -> int:
        gone = [k for k, (x, _) in self.e.items() if x is not None and x <= now]
        for k in gone:
            del self.e[k]
        return len(gone)


@settings(max_examples=300, deadline=None)
@given(ops=OPS)
def test_drop_expired_removes_exactly_what_has_expired(
    ops: list[tuple[str, str, float, float | None]],
) -> None:
    cache, ref = BlockCache(), Reference()
    for op, key, now, ttl in ops:
        if op == "put":
            cache.put(key, now, ttl)
            ref.put(key, now, ttl)
        elif op == "get":
            assert cache.get(key, now) == ref.get(key, now)
        else:
            assert cache.drop_expired(now) == ref.drop(now)
        assert sorted(map(str, cache.stored_keys())) == sorted(ref.e)
        assert all(cache.expires_at(k) == x for k, (x, _) in ref.e.items())


def test_stale_expiry_items_stay_within_a_small_multiple_of_the_live_entries() -> None:
    # The guard's model of a chat's cache: each request's entries replace the previous ones, so
    # almost every queued expiry goes stale. The queue is rebuilt from the live entries well
    # before it holds a thousand dead items (it once grew to 4x live + 1024, ~250 KB).
    from prefixlock.cache.blocks import STALE_SLACK

    cache = BlockCache()
    for i in range(3000):
        cache.put(("a", i), float(i), 3600.0)
        if i:
            cache.evict(("a", i - 1))
        assert len(cache._expiry) <= STALE_SLACK + 8  # a few live entries, the rest stale
    assert len(cache) == 1
    assert cache.drop_expired(10_000.0) == 1  # the live entry is still queued and expires
