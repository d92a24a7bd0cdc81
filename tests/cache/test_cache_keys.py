"""OpenAI cache keys by prefix family: sessions that follow each other share one key (and the
machine that holds their prefix); sessions running at once take shards of their own."""

from __future__ import annotations

from prefixlock.cache.keys import ACTIVE_SECONDS, FORGET_SECONDS, KeyShards, family_key
from prefixlock.events import UsageReport
from tests.helpers.guardkit import advance, agent, of, prefix, start_emulator, turn


def test_sessions_one_after_another_share_shard_0() -> None:
    shards = KeyShards()
    assert shards.take("f", "a", 0.0) == 0
    shards.sent("f", "a", 1.0)
    shards.release("f", "a")
    assert shards.take("f", "b", 2.0) == 0  # the first closed: same key, same machine


def test_sessions_at_once_take_their_own_shard_until_one_idles() -> None:
    shards = KeyShards()
    assert [shards.take("f", s, 0.0) for s in "abc"] == [0, 1, 2]
    assert shards.take("g", "d", 0.0) == 0  # another family: its own shards
    assert shards.take("f", "a", 5.0) == 0  # a session keeps its shard
    shards.sent("f", "a", 10.0)
    shards.sent("f", "b", 10.0)
    shards.sent("f", "c", 10.0 + ACTIVE_SECONDS)
    # a and b have been quiet for a minute: a new session joins the lowest of theirs.
    assert shards.take("f", "e", 10.0 + ACTIVE_SECONDS) == 0
    assert family_key("f", 0) != family_key("f", 1) != family_key("g", 0)


def test_a_session_silent_past_the_hour_is_forgotten() -> None:
    """A proxy sees sessions that never close: the silent ones are dropped (memory stays
    bounded), and one that comes back takes the lowest free shard, as a new one would."""
    shards = KeyShards()
    assert [shards.take("f", s, 0.0) for s in "ab"] == [0, 1]
    shards.sent("f", "a", 0.0)
    shards.sent("f", "b", 0.0)
    late = FORGET_SECONDS + 1.0
    assert shards.take("f", "c", late) == 0
    assert set(shards._users["f"]) == {"c"}


async def test_one_session_per_task_reads_the_shared_prefix_on_openai() -> None:
    """A stateless program: three tasks, a new session each, one after another. Every session
    after the first reads the system prompt and tools the first one cached (with a key per
    session each would be routed to its own machine and miss them)."""
    with start_emulator() as emu:
        a = agent(emu, model="gpt-5")
        keys, first_reads = [], []
        for task in range(3):
            async with a.session() as s:
                events = await turn(s, f"task {task}: look at src/app.py")
                keys.append(emu.requests[-1].body["prompt_cache_key"])
                first_reads.append(of(events, UsageReport)[0].usage.cache_read)
            advance(emu, 20)
        assert len(set(keys)) == 1 == len({family_key(prefix().fingerprint, 0)} | set(keys))
        assert first_reads[0] == 0 and min(first_reads[1:]) >= 1024
