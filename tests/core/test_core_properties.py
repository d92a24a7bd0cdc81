"""Canonical bytes are the same whatever the dict order, the tool registration order, the set
iteration order or the process: property tests (hypothesis), one of them across new processes
with different hash seeds."""

from __future__ import annotations

import json
import random
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from prefixlock.canonical import canonical_bytes
from prefixlock.prefix import FrozenPrefix
from prefixlock.providers import SessionInfo, make_builder
from prefixlock.settings import Settings
from prefixlock.transcript import Message, Transcript
from tests.helpers.hash_seed import run_with_hash_seed

APIS = ["anthropic", "openai-chat", "openai-responses", "openai-compat"]

json_leaf = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(10**6), 10**6),
    st.text(max_size=12),
    st.floats(allow_nan=False, allow_infinity=False, width=32),
)
json_value = st.recursive(
    json_leaf,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=12,
)
names = st.from_regex(r"[a-z][a-z0-9_]{0,15}", fullmatch=True)
tool_specs = st.lists(
    st.fixed_dictionaries(
        {
            "name": names,
            "description": st.text(max_size=40),
            "input_schema": st.dictionaries(st.text(max_size=8), json_value, max_size=5),
        }
    ),
    max_size=6,
    unique_by=lambda t: str(t["name"]),  # str() for mypy: the dict's values are mixed
)
systems = st.lists(st.text(max_size=60), max_size=3)


def shuffled(value: Any, rng: random.Random) -> Any:
    """The same JSON value with every dict's insertion order shuffled."""
    if isinstance(value, dict):
        items = list(value.items())
        rng.shuffle(items)
        return {k: shuffled(v, rng) for k, v in items}
    if isinstance(value, list):
        return [shuffled(v, rng) for v in value]
    return value


def _requests(prefix: FrozenPrefix) -> list[bytes]:
    t = Transcript([Message.user("hello"), Message.assistant("hi"), Message.user("go on")])
    return [
        make_builder(api, "m").build_request(prefix, t, Settings(), SessionInfo("p")).body_bytes
        for api in APIS
    ]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(tools=tool_specs, system=systems, seed=st.integers(0, 2**32))
def test_dict_order_and_tool_order_do_not_change_bytes(
    tools: list[dict[str, Any]], system: list[str], seed: int
) -> None:
    rng = random.Random(seed)
    a = FrozenPrefix(system=system, tools=tools)
    other = [shuffled(t, rng) for t in tools]
    rng.shuffle(other)
    b = FrozenPrefix(system=system, tools=other)
    assert a.fingerprint == b.fingerprint
    assert [s.data for s in a.segments] == [s.data for s in b.segments]
    assert _requests(a) == _requests(b)
    assert FrozenPrefix.from_dict(json.loads(json.dumps(a.to_dict()))) == a


@given(value=json_value, seed=st.integers(0, 2**32))
def test_canonical_bytes_ignore_dict_order_and_set_order(value: Any, seed: int) -> None:
    rng = random.Random(seed)
    assert canonical_bytes(value) == canonical_bytes(shuffled(value, rng))
    items = [canonical_bytes(value).decode(), "a", "b"]
    as_set = set(items)
    as_list = sorted(items, key=lambda s: canonical_bytes(s))
    assert canonical_bytes(as_set) == canonical_bytes(as_list)


_CHILD = r"""
import json, sys
from prefixlock.prefix import FrozenPrefix
from prefixlock.providers import SessionInfo, make_builder
from prefixlock.settings import Settings
from prefixlock.transcript import Message, Transcript
out = []
for case in json.load(sys.stdin):
    tools = case["tools"]
    for t in tools:  # a set enters the schema: its iteration order depends on the hash seed
        t["input_schema"]["x-tags"] = set(case["tags"])
    p = FrozenPrefix(system=case["system"], tools=reversed(tools))
    t = Transcript([Message.user("hello"), Message.assistant("hi"), Message.user("go on")])
    s = SessionInfo("p")
    bodies = [make_builder(api, "m").build_request(p, t, Settings(), s).body_bytes.hex()
              for api in ("anthropic", "openai-chat", "openai-responses", "openai-compat")]
    out.append([p.fingerprint, bodies])
print(json.dumps(out))
"""


def _in_new_process(cases: list[dict[str, Any]], hash_seed: str) -> Any:
    return run_with_hash_seed(_CHILD, hash_seed, stdin=json.dumps(cases))


@settings(max_examples=3, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    cases=st.lists(
        st.fixed_dictionaries(
            {
                "tools": tool_specs,
                "system": systems,
                "tags": st.lists(st.text(max_size=6), max_size=6),
            }
        ),
        min_size=4,
        max_size=4,
    )
)
def test_prefix_rebuilt_in_a_new_process_has_the_same_bytes(cases: list[dict[str, Any]]) -> None:
    here = []
    for case in cases:
        tools = json.loads(json.dumps(case["tools"]))
        for t in tools:
            t["input_schema"]["x-tags"] = sorted(set(case["tags"]), key=canonical_bytes)
        p = FrozenPrefix(system=case["system"], tools=tools)
        here.append([p.fingerprint, [b.hex() for b in _requests(p)]])
    assert _in_new_process(cases, "1") == here
    assert _in_new_process(cases, "4242") == here


@given(st.text())
def test_every_character_of_the_text_is_in_one_token(text: str) -> None:
    # A character the tokenizer skipped would be billed as nothing: \r\n line ends, no-break
    # and other Unicode spaces once counted 0 tokens.
    from prefixlock.tokenizer import count_tokens, pieces

    cut = pieces(text)
    assert "".join(cut) == text
    assert count_tokens(text) == len(cut) >= (1 if text else 0)


def test_windows_line_ends_and_unicode_spaces_cost_tokens() -> None:
    from prefixlock.tokenizer import count_tokens

    assert count_tokens("a\r\nb") == count_tokens("a\nb") == 3
    assert count_tokens("x\u00a0y") == 3
    assert count_tokens("\r" * 8) == 1
