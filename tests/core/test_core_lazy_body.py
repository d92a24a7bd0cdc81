"""An Anthropic body holds its message list as a recipe and its units packed: read any way, it is
the body a list of dicts and a tuple of units gave; what reads every request (the encoder, the
store, a copy to send) takes the recipe an item at a time; a later build never changes an
earlier request."""

from __future__ import annotations

import copy
import json
import pickle
from typing import Any

import pytest

from prefixlock.cache.packed_units import PackedUnits
from prefixlock.prefix import FrozenPrefix
from prefixlock.providers import SessionInfo, make_builder
from prefixlock.providers.body import encode_body
from prefixlock.providers.lazy_body import LazyBody, MessagesRecipe, copy_body
from prefixlock.settings import Settings
from prefixlock.transcript import Message, Transcript, text_block, tool_result_block
from prefixlock.transcript import tool_use_block as use
from prefixlock.wire import WireRequest

SONNET = "claude-sonnet-4-6"


def _chat(turns: int) -> Transcript:
    t = Transcript()
    for i in range(turns):
        t.append(Message.user(f"q{i} \u00e9\u65e5"))
        if i % 2:
            t.append(Message.assistant([text_block("look"), use(f"t{i}", "ls", {"p": "."})]))
            t.append(Message.user([tool_result_block(f"t{i}", "a.py \U0001f600")]))
        t.append(Message.assistant(f"a{i}"))
    return t


def _build(t: Transcript, volatile: tuple[str, ...] = ()) -> WireRequest:
    return make_builder("anthropic", SONNET).build_request(
        FrozenPrefix(system="s " * 600), t, Settings(), SessionInfo("s"), volatile
    )


def _plain(body: Any) -> dict[str, Any]:
    """The body as plain JSON data (what the list of dicts gave)."""
    out: dict[str, Any] = json.loads(json.dumps(body, ensure_ascii=False))
    return out


@pytest.mark.parametrize("volatile", [(), ("today \u00e9",)])
def test_a_lazy_body_reads_as_the_plain_body_it_stands_for(volatile: tuple[str, ...]) -> None:
    t = _chat(6)
    t.append(Message.user("last"))
    req = _build(t, volatile)
    body = req.body
    assert type(body) is LazyBody
    assert type(dict.__getitem__(body, "messages")) is MessagesRecipe
    plain = _plain(body)
    messages = body["messages"]
    assert isinstance(messages, list) and len(messages) == len(plain["messages"])
    # The dict of the same items (the list of the messages' dicts, as a builder made it).
    held = {k: body[k] for k in body}
    assert isinstance(held["messages"], list) and held["messages"] == messages
    assert body == held and held == body and dict(body) == held and {**body} == held
    assert list(body) == list(plain) and body.get("messages") == messages
    assert [k for k, _ in body.items()] == list(plain) and body.values()[-1] is True
    assert pickle.loads(pickle.dumps(body)) == held and copy.deepcopy(body) == held
    assert _plain(held) == plain
    want = json.dumps(plain, ensure_ascii=False, separators=(",", ":")).encode()
    assert encode_body(body) == want == encode_body(held)
    # A copy to send keeps the recipe (no list made) and is the body's own to change.
    sent = copy_body(body)
    assert type(sent) is LazyBody and sent == body
    sent["max_tokens"] = 0
    assert body["max_tokens"] != 0 and encode_body(sent) != encode_body(body)
    # The recipe under the methods is no JSON: a reader that bypasses them fails, loudly.
    with pytest.raises(TypeError):
        json.JSONEncoder().encode(dict(dict.items(body)))
    if volatile:
        assert messages[-1]["content"][-1] == {"type": "text", "text": volatile[0]}


def test_packed_units_read_as_the_tuple_of_units() -> None:
    req = _build(_chat(8))
    units = req.units
    assert isinstance(units, PackedUnits) and isinstance(units, tuple)
    plain = tuple(units)
    assert type(plain) is tuple and len(plain) == len(units) > 20
    assert units == plain and plain == units and units == req.recomputed_units()
    assert hash(units) == hash(plain) and units[-1] == plain[-1] and units[3:9] == plain[3:9]
    assert list(reversed(units)) == list(reversed(plain)) and units[-1:] == plain[-1:]
    assert plain[7] in units and units.index(plain[7]) == 7 and units.count(plain[7]) == 1
    empty: tuple[Any, ...] = ()
    assert units + empty == plain == empty + units and pickle.loads(pickle.dumps(units)) == plain
    assert [u.position for u in units] == list(range(len(units)))
    marked = [u.position for u in units if u.breakpoint is not None]
    assert marked and all(plain[i].breakpoint is not None for i in marked)
    with pytest.raises(IndexError):
        units[len(units)]


def test_a_later_build_or_a_fork_leaves_an_earlier_request_as_it_was() -> None:
    builder = make_builder("anthropic", SONNET)
    prefix, settings, info = FrozenPrefix(system="s " * 600), Settings(), SessionInfo("s")
    t = _chat(5)
    first = builder.build_request(prefix, t, settings, info)
    units, body = tuple(first.units), encode_body(first.body)
    t.append(Message.user("more"))
    builder.build_request(prefix, t, settings, info)  # appends to the memo's buffer and list
    builder.build_request(prefix, t.fork(3), settings, info)  # cuts them
    assert first.units == units and encode_body(first.body) == body
    assert first.units == first.recomputed_units()


async def test_the_store_writes_only_the_items_it_has_not(tmp_path: Any, monkeypatch: Any) -> None:
    """A request's messages that were the previous request's, unmarked in both, are not
    encoded, hashed and written again; every body reads back as sent."""
    from prefixlock.store import blobs
    from prefixlock.store.database import SessionStore
    from prefixlock.testing import TestModel

    puts: list[int] = []
    put = blobs.put

    def counted(db: Any, value: Any) -> str:
        puts.append(1)
        return put(db, value)

    monkeypatch.setattr(blobs, "put", counted)
    model = TestModel()
    prefix = FrozenPrefix(system="s " * 600)
    counts = []
    async with model.agent(prefix, SONNET, store=tmp_path / "s.sqlite").session("s") as s:
        for i in range(30):
            puts.clear()
            await s.ask(f"turn {i} \u00e9")
            counts.append(len(puts))
        sent = [_plain(r.body) for r in s.requests]
        n = len(s.requests[-1].body["messages"])
    with SessionStore(tmp_path / "s.sqlite", read_only=True) as store:
        read = [_plain(q.body) for q in store.requests("s")]
    assert read[-len(sent) :] == sent and len(read) == 30
    # Each turn's write: the system's blocks, the new messages, those whose marks moved; as
    # many at turn 30 as at turn 3, not every message (it was n, growing every turn).
    assert n >= 59 and max(counts[2:]) <= 8, counts


@pytest.mark.parametrize(
    "make_copy", [copy.copy, copy.deepcopy, lambda b: b.copy()], ids=["copy", "deepcopy", "method"]
)
def test_a_copy_of_a_body_is_the_callers_to_change(make_copy: Any) -> None:
    """A body is read-only; a copy (copy.copy, copy.deepcopy, `.copy()`) is how a caller
    changes one, and a change to its message list must take, as on a plain dict's copy. A copy
    that kept the recipe made a new list at each read, and the change was lost in silence."""
    req = _build(_chat(3), ("today",))
    body = req.body
    before = encode_body(body)
    n = len(body["messages"])
    out = make_copy(body)
    out["messages"].append({"role": "assistant", "content": [{"type": "text", "text": "x"}]})
    del out["messages"][0]
    assert len(out["messages"]) == n and out["messages"][-1]["content"][0]["text"] == "x"
    assert json.loads(json.dumps(out))["messages"][-1]["content"][0]["text"] == "x"
    assert out["messages"][0] != body["messages"][0]
    assert encode_body(body) == before and len(body["messages"]) == n  # the request as it was


def test_a_diagnostics_request_keeps_the_recipe() -> None:
    """The transport's copy with the diagnostics field, like its plain copy, keeps the message
    list as its recipe (no dict a message made for the whole request), and sends the body
    with the field."""
    from prefixlock.providers.diagnostics import ANTHROPIC_FIELD, diagnostics_request

    req = _build(_chat(4), ("today",))
    out, headers = diagnostics_request("anthropic", req.body, "msg_1")
    assert headers and type(out) is LazyBody
    assert type(dict.__getitem__(out, "messages")) is MessagesRecipe
    want = {**_plain(req.body), ANTHROPIC_FIELD: {"previous_message_id": "msg_1"}}
    assert _plain(out) == want and ANTHROPIC_FIELD not in req.body


@pytest.mark.parametrize(
    "change",
    [
        lambda m: m.append({"role": "user", "content": "x"}),
        lambda m: m.extend([]),
        lambda m: m.insert(0, {}),
        lambda m: m.pop(),
        lambda m: m.clear(),
        lambda m: m.__setitem__(0, {}),
        lambda m: m.__delitem__(0),
        lambda m: m.sort(key=id),
    ],
)
def test_a_change_to_a_bodys_own_message_list_is_refused_not_lost(change: Any) -> None:
    """The list `body["messages"]` (and so `dict(body)`'s) is made at each read: a change to it
    would be lost in silence, so it raises and names the copy to change instead; the list reads
    as a list (JSON, equality, slices, deepcopy, pickle) and the request stays as it was."""
    req = _build(_chat(3), ("today",))
    body = req.body
    before = encode_body(body)
    for messages in (body["messages"], dict(body)["messages"], {**body}["messages"]):
        assert isinstance(messages, list)
        with pytest.raises(TypeError, match=r"read-only.*copy"):
            change(messages)
    messages = body["messages"]
    assert json.dumps(messages) == json.dumps(messages[:]) and type(messages[:]) is list
    for plain in (
        copy.deepcopy(messages),
        pickle.loads(pickle.dumps(messages)),
        copy.copy(messages),
    ):
        assert type(plain) is list and plain == messages
        plain.append({})  # a copy of the list is the caller's
    assert encode_body(body) == before
