"""The SSE decoder the proxy reads streams with, on the event-stream format's own rules (the
WHATWG HTML standard, 9.2.6): every line ending, every field, chunks split anywhere."""

from __future__ import annotations

import pytest

from prefixlock.proxy.sse import Event, SSEDecoder

STREAM = (
    b"\xef\xbb\xbf: a comment the client ignores\n"
    b"event: message_start\n"
    b'data: {"type":"message_start"}\n'
    b"id: 1\n"
    b"retry: 2500\n"
    b"\n"
    b"data: first line\n"
    b"data:second line\n"
    b"data\n"
    b"\n"
    b"event: ping\n"
    b"\n"
    b"id: bad\x00id\n"
    b"retry: soon\n"
    b"data:  two spaces\n"
    b"\n"
)
WANT = [
    Event("message_start", '{"type":"message_start"}', "1", 2500),
    Event("message", "first line\nsecond line\n", "1", 2500),
    Event("message", " two spaces", "1", 2500),  # one space dropped, NUL id and bad retry ignored
]


def _decode(chunks: list[bytes]) -> list[Event]:
    decoder = SSEDecoder()
    out: list[Event] = []
    for chunk in chunks:
        out += decoder.feed(chunk)
    return out


@pytest.mark.parametrize("ending", [b"\n", b"\r\n", b"\r"])
def test_every_line_ending_gives_the_same_events(ending: bytes) -> None:
    stream = STREAM.replace(b"\n", ending)
    assert _decode([stream]) == WANT


@pytest.mark.parametrize("ending", [b"\n", b"\r\n", b"\r"])
def test_chunks_split_anywhere_give_the_same_events(ending: bytes) -> None:
    stream = STREAM.replace(b"\n", ending)
    for size in (1, 2, 3, 7):
        assert _decode([stream[i : i + size] for i in range(0, len(stream), size)]) == WANT
    # A CRLF cut between its CR and its LF is one line end, not two.
    cut = stream.find(b"\r\n")
    if cut >= 0:
        assert _decode([stream[: cut + 1], stream[cut + 1 :]]) == WANT


def test_an_event_is_dispatched_only_by_a_blank_line() -> None:
    decoder = SSEDecoder()
    assert decoder.feed(b"data: pending\n") == []
    assert decoder.feed(b"\n") == [Event("message", "pending", "", None)]
