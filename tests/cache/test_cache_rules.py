"""Each provider's cache rules (prefixlock.cache) on hand-made units: where a read lands, what a
write spans and how long it lives, and the edges the documentation names (the 20-position
lookback, 1h before 5m, minimums, 128-token blocks, the four-write limit, DeepSeek's units)."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from prefixlock.cache import anthropic, deepseek, openai
from prefixlock.cache.ceiling import readable
from prefixlock.cache.prefix import Write, shared_units
from prefixlock.cache.rules import rules_for, writes_at_breakpoints
from prefixlock.cache.units import IMPLICIT, Unit
from prefixlock.canonical import chain_hash


def make(
    sizes: Sequence[int],
    marks: dict[int, str] | None = None,
    sections: Sequence[str] | None = None,
    salt: str = "",
) -> list[Unit]:
    """Units of the given token sizes; `marks`: position -> breakpoint label."""
    out: list[Unit] = []
    chain, end = "", 0
    for i, n in enumerate(sizes):
        chain = chain_hash(chain, f"{salt}{i}".encode())
        end += n
        section = sections[i] if sections else "messages"
        out.append(Unit(section, i, chain, n, end, (marks or {}).get(i)))
    return out


# ---- Anthropic ----------------------------------------------------------------------------------


@pytest.mark.parametrize(("gap", "reads"), [(19, True), (20, False)])
def test_anthropic_lookback_spans_20_positions_counting_the_breakpoints_own(
    gap: int, reads: bool
) -> None:
    """An entry at position 5 is found from a breakpoint 19 positions later (the breakpoint's own
    block and 19 before it: 20 positions) and not from one 20 positions later."""
    units = make([100] * 40, {5 + gap: "5m"})
    entries = {units[5].chain}
    asked: list[int] = []

    def present(u: Unit) -> bool:
        asked.append(u.position)
        return u.chain in entries

    hit = anthropic.read(units, present, min_tokens=0)
    assert hit == (5 if reads else -1)
    assert len(asked) == (gap + 1 if reads else 20)


def test_anthropic_read_takes_the_furthest_entry_any_breakpoint_reaches() -> None:
    units = make([100] * 30, {3: "5m", 25: "5m"})
    entries = {units[2].chain, units[24].chain}
    assert anthropic.read(units, lambda u: u.chain in entries, 0) == 24
    # The later breakpoint reaches nothing: the earlier one's read stands.
    assert anthropic.read(units, lambda u: u.chain == units[2].chain, 0) == 2


def test_anthropic_breakpoints_under_the_minimum_neither_read_nor_write() -> None:
    units = make([300] * 5, {1: "5m", 4: "5m"})  # ends 600 and 1500
    assert anthropic.eligible(units, 1024) == [units[4]]
    assert anthropic.read(units, lambda u: True, 1024) == 4  # looked back from 4 only
    assert anthropic.read(make([300] * 2, {1: "5m"}), lambda u: True, 1024) == -1
    assert [w.unit.position for w in anthropic.writes(units, -1, 1024)] == [4]


def test_anthropic_writes_span_from_the_read_point_and_split_1h_before_5m() -> None:
    units = make([1000, 500, 200, 300, 50], {0: "1h", 1: "1h", 3: "5m"})
    fresh = anthropic.writes(units, -1, 1024)  # unit 0 (1000 tokens) is under the minimum
    assert fresh == [
        Write(units[1], 1500, 3600.0),  # from the start through the 1h breakpoint
        Write(units[3], 500, 300.0),  # then on to the 5m one; the tail is plain input
    ]
    assert anthropic.written(fresh) == (500, 1500)
    after = anthropic.writes(units, 1, 1024)  # read through unit 1: only the 5m span is new
    assert after == [Write(units[3], 500, 300.0)]
    assert anthropic.written(after) == (500, 0)
    assert anthropic.writes(units, 3, 1024) == []


def test_anthropic_ttls() -> None:
    assert anthropic.ttl_seconds(None) == anthropic.ttl_seconds("5m") == 300.0
    assert anthropic.ttl_seconds("1h") == 3600.0
    assert anthropic.shortest_ttl([]) == 300.0
    assert anthropic.shortest_ttl(["1h", "1h"]) == 3600.0
    assert anthropic.shortest_ttl(["1h", "5m"]) == 300.0


@pytest.mark.parametrize(
    ("labels", "late"),
    [
        ([], None),
        (["1h", "1h", "5m", None, "5m"], None),  # longer first: fine
        (["5m", "1h"], 1),
        ([None, "1h"], 1),  # no label is the default 5m
        (["1h", "5m", "1h", "1h"], 2),  # the first late one
        (["10m", "1h"], 1),  # a label that is not a TTL reads as the default
    ],
)
def test_anthropic_a_longer_ttl_must_come_before_a_shorter_one(
    labels: list[str | None], late: int | None
) -> None:
    assert anthropic.late_longer_ttl(labels) == late


# ---- OpenAI up to gpt-5.5: blocks -------------------------------------------------------------


def test_block_keys_chain_whole_blocks_from_the_model() -> None:
    tokens = list(range(300))
    keys = openai.block_keys("gpt-5.4", tokens)
    assert len(keys) == 2  # 44 tokens of a third block are not a block
    assert openai.block_keys("gpt-4o", tokens) != keys  # per model
    other = [7, *tokens[1:]]  # the first block differs: so does every key after it
    assert set(openai.block_keys("gpt-5.4", other)).isdisjoint(keys)
    # Extending known keys hashes only the new blocks and gives the same keys.
    known = keys[:1]
    assert openai.block_keys("gpt-5.4", tokens + [1] * 100, into=known) is known
    assert known[:2] == keys and len(known) == 3


def test_block_reads_count_leading_blocks_and_nothing_under_the_minimum() -> None:
    keys = [f"k{i}" for i in range(10)]
    stored = set(keys[:9]) - {"k5"}
    asked: list[str] = []

    def present(k: str) -> bool:
        asked.append(k)
        return k in stored

    assert openai.read_blocks(keys, present, 1300, 512) == 5 * 128  # up to the missing k5
    assert asked == keys[:6]
    asked.clear()
    assert openai.read_blocks(keys, present, 1000, 1024) == 0  # the prompt is under the minimum
    assert asked == []  # ... and nothing was touched
    assert openai.read_blocks(keys, present, 1300, 1024) == 0  # 640 read < 1024: counts nothing
    assert openai.cached_tokens(8, 1100, 1024) == 1024


def test_block_writes_store_every_whole_block_and_bill_what_is_new() -> None:
    assert openai.block_writes(1000, 0, 1024) == (0, 0)
    assert openai.block_writes(1300, 0, 1024) == (10, 1280)
    assert openai.block_writes(1300, 1024, 1024) == (10, 256)
    assert openai.block_writes(1300, 1280, 1024) == (10, 0)
    assert openai.whole_blocks(1300) == 1280


# ---- OpenAI from gpt-5.6: breakpoints ---------------------------------------------------------


def test_at_most_four_writes_the_implicit_one_and_the_latest_explicit_marks() -> None:
    assert openai.select_writes([1, 2, 3, 4, 5], [9], "implicit") == ([3, 4, 5, 9], [1, 2])
    assert openai.select_writes([1, 2, 3, 4, 5], [], "explicit") == ([2, 3, 4, 5], [1])
    assert openai.select_writes([1], [9], "implicit") == ([1, 9], [])


def test_breakpoint_writes_take_each_marks_ttl_and_the_request_ttl_for_the_implicit_one() -> None:
    units = make([600, 600, 100, 100, 100], {1: "12h", 3: "30m", 4: IMPLICIT})
    writes = openai.breakpoint_writes(units, -1, "implicit", 1024, "30m")
    assert writes == [
        Write(units[1], 1200, 43200.0),
        Write(units[3], 200, 1800.0),
        Write(units[4], 100, 1800.0),
    ]
    long = openai.breakpoint_writes(units, -1, "implicit", 1024, "12h")
    assert long[-1].seconds == 43200.0  # the implicit breakpoint follows the request's TTL
    # Read at unit 3: only what follows is written.
    assert openai.breakpoint_writes(units, 3, "implicit", 1024, "30m") == [
        Write(units[4], 100, 1800.0)
    ]


def test_breakpoint_reads_match_an_entry_exactly_at_its_end() -> None:
    units = make([600, 600, 100, 100], {1: "30m"})
    assert openai.breakpoint_read(units, lambda u: u.position == 1, 1024) == 1
    assert openai.breakpoint_read(units, lambda u: u.position == 0, 1024) == -1  # 600 < min
    asked: list[int] = []

    def present(u: Unit) -> bool:
        asked.append(u.position)
        return False

    assert openai.breakpoint_read(units, present, 1024) == -1
    assert asked == [3, 2, 1]  # from the end back, stopping under the minimum


# ---- DeepSeek ---------------------------------------------------------------------------------


def test_deepseek_stores_fixed_part_whole_input_and_reply() -> None:
    units = make([100, 50, 30, 20], sections=["settings", "system", "messages", "messages"])
    assert deepseek.stored(units, 64, "reply") == [units[1].chain, units[3].chain, "reply"]
    assert deepseek.stored(units, 64) == [units[1].chain, units[3].chain]
    assert deepseek.stored(units, 200) == [units[3].chain]  # the fixed part alone is too short
    assert deepseek.stored(units, 201, "reply") == []  # the whole input is under the minimum
    assert deepseek.stored([], 0) == []


def test_deepseek_reads_the_longest_stored_unit() -> None:
    units = make([100, 50, 30, 20])
    held = {units[1].chain, units[2].chain}
    assert deepseek.read(units, lambda u: u.chain in held) == 2
    assert deepseek.read(units, lambda u: False) == -1


# ---- prefixes, ceilings, which rules ----------------------------------------------------------


def test_shared_units() -> None:
    a = make([10] * 8)
    assert shared_units(a, a) == 8
    assert shared_units(a[:5], a) == 5  # appended
    assert shared_units(a, a[:3]) == 3  # cut short
    assert shared_units(a[:4] + make([10] * 4, salt="x")[4:], a) == 4  # rewritten from unit 4
    assert shared_units(make([10] * 8, salt="y"), a) == 0
    assert shared_units([], a) == 0


def test_ceiling_is_the_last_breakpoint_or_whole_blocks_from_the_minimum() -> None:
    units = make([600, 600, 100, 100], {0: "5m", 2: "5m"})
    assert readable(units, True, 1024) == 1300
    assert readable(units, True, 1024, upto=2) == 0  # only the 600-token breakpoint is shared
    assert readable(units, True, 0, upto=2) == 600
    assert readable(make([600, 600]), True, 0) == 0  # no breakpoint, nothing written
    assert readable(units, False, 1024) == 1280
    assert readable(units, False, 1024, upto=1) == 0
    assert readable(make([100]), False, 64) == 0  # a partial block is never cached
    assert readable(units, False, 1024, upto=0) == 0


@pytest.mark.parametrize(
    ("api", "provider", "model", "rules"),
    [
        ("anthropic", "anthropic", "claude-opus-4-7", "anthropic"),
        ("openai-compat", "deepseek", "deepseek-v4-flash", "deepseek"),
        ("openai-compat", None, "my-local-model", "deepseek"),
        ("openai-compat", "openai", "gpt-5.4", "openai"),
        ("openai-chat", "openai", "gpt-5.4", "openai"),
        ("openai-responses", "openai", "gpt-5.6-terra", "openai-breakpoints"),
        ("openai-compat", "openai", "gpt-5.6-terra", "openai-breakpoints"),
    ],
)
def test_rules_for(api: str, provider: str | None, model: str, rules: str) -> None:
    assert rules_for(api, provider, model) == rules
    assert writes_at_breakpoints(api, model) == (rules in ("anthropic", "openai-breakpoints"))
