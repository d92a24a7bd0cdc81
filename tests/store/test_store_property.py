"""Property: whatever sequence of bodies a session sends, the store gives back each one exactly,
and each row keeps of the previous request's lists exactly the items they start with in common."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from prefixlock.billing.usage import Usage
from prefixlock.canonical import canonical_bytes
from prefixlock.store.blobs import ordered_bytes
from prefixlock.store.database import SessionStore
from tests.helpers.storekit import bare_request, bare_session

item = st.fixed_dictionaries(
    {"role": st.sampled_from(["user", "assistant"]), "content": st.text(max_size=12)}
)
# Each step keeps some of the previous list, drops the rest, and appends new items: appends,
# rewrites and truncations (compaction) all happen.
step = st.tuples(st.integers(0, 8), st.lists(item, max_size=4), st.booleans(), st.booleans())


@settings(max_examples=40, deadline=None)
@given(st.lists(step, min_size=1, max_size=12))
def test_stored_bodies_round_trip(steps: list[tuple[int, list[Any], bool, bool]]) -> None:
    bodies: list[dict[str, Any]] = []
    messages: list[dict[str, Any]] = []
    for keep, new, with_tools, as_input in steps:
        messages = [*messages[:keep], *new]
        body: dict[str, Any] = {"model": "m", "max_tokens": 5, "stream": True}
        body["input" if as_input else "messages"] = list(messages)
        if with_tools:
            body["tools"] = [{"name": "t", "input_schema": {"type": "object"}}]
        bodies.append(body)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "s.sqlite"
        with SessionStore(path) as store:
            bare_session(store, "p")
            for i, b in enumerate(bodies):
                if i % 4 == 3:
                    store._refs_cache.clear()  # as a new connection: the base is read from disk
                req = bare_request(b, float(i), Usage(1, 2, 3, 0, 4))
                if i % 3 == 2:
                    store.record_request("p", req)
                else:
                    store.record_turn(
                        "p", requests=[req], messages=[], first_index=0, model="m", time=float(i)
                    )
            in_order = [canonical_bytes(r.body) for r in store.requests("p")]
            kept = [
                {k: v.get("keep", 0) for k, v in json.loads(_skel(store, seq))["lists"].items()}
                for seq in range(len(bodies))
            ]
        # A fresh connection has no cache: every body is rebuilt from the deltas on disk.
        with SessionStore(path, read_only=True) as store:
            backwards = [
                store._body("p", r.seq, _skel(store, r.seq))
                for r in reversed(list(store.requests("p")))
            ]
    expected = [canonical_bytes(b) for b in bodies]
    assert in_order == expected
    assert kept == [_in_common(bodies[i - 1] if i else {}, b) for i, b in enumerate(bodies)]
    assert [canonical_bytes(b) for b in reversed(backwards)] == expected


def _skel(store: SessionStore, seq: int) -> str:
    store._refs_cache.clear()
    row = store._db.execute(
        "SELECT skeleton FROM requests WHERE session_id='p' AND seq=?", (seq,)
    ).fetchone()
    return str(row[0])


def _in_common(before: dict[str, Any], body: dict[str, Any]) -> dict[str, int]:
    """For each list of `body`: how many items it starts with that `before`'s list starts with."""
    out: dict[str, int] = {}
    for k in ("messages", "input", "tools"):
        if k in body:
            n = 0
            for a, b in zip(before.get(k, []), body[k], strict=False):
                if ordered_bytes(a) != ordered_bytes(b):
                    break
                n += 1
            out[k] = n
    return out
