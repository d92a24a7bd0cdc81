"""Properties of the pure cache logic (no HTTP): counters are disjoint and add up, a repeated
request reads exactly up to its last cacheable breakpoint, and nothing is readable before commit."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from prefixlock.cache.units import Unit
from prefixlock.canonical import chain_hash
from prefixlock.emulator.promptcache import AnthropicPromptCache


@st.composite
def requests(draw: st.DrawFn) -> list[Unit]:
    sizes = draw(st.lists(st.integers(1, 400), min_size=1, max_size=40))
    marks = draw(st.sets(st.integers(0, len(sizes) - 1), max_size=4))
    one_hour = draw(st.integers(0, len(marks)))  # the first `one_hour` marks are 1h
    units: list[Unit] = []
    chain, end = "", 0
    for i, n in enumerate(sizes):
        chain = chain_hash(chain, str(i).encode())
        end += n
        bp = None
        if i in marks:
            bp = "1h" if sorted(marks).index(i) < one_hour else "5m"
        units.append(Unit("messages", i, chain, n, end, bp))
    return units


@settings(max_examples=150, deadline=None)
@given(units=requests(), minimum=st.sampled_from([0, 512, 1024, 4096]))
def test_counters_add_up_and_repeat_reads_to_last_breakpoint(
    units: list[Unit], minimum: int
) -> None:
    cache = AnthropicPromptCache()
    total = units[-1].end
    first = cache.lookup("key", "m", units, minimum, now=0.0)
    assert min(first.input_tokens, first.cache_read, first.write_5m, first.write_1h) >= 0
    assert first.input_tokens + first.cache_read + first.cache_creation == total
    assert first.cache_read == 0
    # Not committed yet: a parallel request cannot read it.
    assert cache.lookup("key", "m", units, minimum, now=0.0).cache_read == 0
    cache.commit(first.pending, now=0.0)
    second = cache.lookup("key", "m", units, minimum, now=1.0)
    eligible = [u for u in units if u.breakpoint is not None and u.end >= minimum]
    expected = eligible[-1].end if eligible else 0
    assert second.cache_read == expected
    assert second.cache_creation == 0
    assert second.input_tokens == total - expected
    assert first.cache_creation == expected
    # Another model or key reads nothing.
    assert cache.lookup("key", "other", units, minimum, now=1.0).cache_read == 0
    assert cache.lookup("other", "m", units, minimum, now=1.0).cache_read == 0


def test_openai_routing_overflows_past_15_a_minute_per_prefix_and_key() -> None:
    """The first 256 tokens plus the key pick a home machine; the 16th request within a minute
    spills to another machine and misses there; a minute later the home machine serves again."""
    from prefixlock.emulator.config import OpenAICacheConfig
    from prefixlock.emulator.promptcache import OpenAIPromptCache

    cache = OpenAIPromptCache(OpenAICacheConfig(machines=4))
    tokens = list(range(2048))
    seen = []
    for i in range(16):
        out = cache.lookup("org", "gpt-5.4", tokens, "session-1", 1024, 600.0, now=float(i))
        cache.commit(out.pending, now=float(i))
        seen.append((out.machine, out.cached_tokens))
    home = seen[0][0]
    assert [m for m, _ in seen[:15]] == [home] * 15
    assert seen[0][1] == 0 and all(cached == 2048 for _, cached in seen[1:15])
    assert seen[15][0] != home and seen[15][1] == 0  # overflow: a cold machine
    # Another key routes on its own count; the same tokens under it are not over the limit.
    other = cache.lookup("org", "gpt-5.4", tokens, "session-2", 1024, 600.0, now=16.0)
    assert other.machine == cache.route("gpt-5.4", tokens, "session-2", now=16.5)
    # After a minute without requests the count has drained: home again, and warm.
    back = cache.lookup("org", "gpt-5.4", tokens, "session-1", 1024, 600.0, now=100.0)
    assert (back.machine, back.cached_tokens) == (home, 2048)
