"""What the server writes: status, headers, and a JSON body or the SSE frames of a stream.

Pure: a planned response, an API error or a listing becomes an Answer, bytes included, and the
server writes it as it is. A fault's delivery is decided here too: a cut response is half its
body or half its events and then a dropped connection; an `sse-error` stream is half its events
and then the error event each API sends.
"""

# pure: imports no I/O (tests/test_layout.py checks it)

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from .apierror import ApiError, anthropic_error_body, openai_error_body
from .faults import Delivery

Headers = tuple[tuple[str, str], ...]
Event = tuple[str | None, dict[str, Any]]  # (SSE event name, data)


@dataclass(frozen=True)
class Answer:
    """One HTTP response. `frames` None: a JSON `body` with its content-length; else a chunked
    stream of SSE frames. `abort`: the server drops the connection after writing it (the body
    or the frames are then only the part the client gets)."""

    status: int
    headers: Headers
    body: bytes = b""
    frames: tuple[bytes, ...] | None = None
    abort: bool = False


def json_answer(
    status: int, payload: Mapping[str, Any], headers: Mapping[str, str] | None = None
) -> Answer:
    data = json.dumps(payload).encode("utf-8")
    head = (("content-type", "application/json"), ("content-length", str(len(data))))
    return Answer(status, head + tuple((headers or {}).items()), data)


def error_answer(flavor: str, err: ApiError, rid: str) -> Answer:
    """`err` in the error shape of `flavor` (anthropic | openai), with its headers."""
    body = anthropic_error_body(err, rid) if flavor == "anthropic" else openai_error_body(err)
    return json_answer(err.status, body, {"request-id": rid, "x-request-id": rid, **err.headers})


def response_answer(
    body: Mapping[str, Any],
    events: Sequence[Event] | None,
    *,
    api: str,
    done_marker: bool,
    rid: str,
    delivery: Delivery = "full",
) -> Answer:
    """A served response: JSON `body`, or `events` as a stream when the request asked for one."""
    if events is not None:
        return _stream(events, api, done_marker, rid, delivery)
    if delivery == "cut":
        data = json.dumps(body).encode("utf-8")
        head = (("content-type", "application/json"), ("content-length", str(len(data))))
        return Answer(200, head, data[: len(data) // 2], abort=True)
    return json_answer(200, body, {"request-id": rid, "x-request-id": rid})


def sse_frame(name: str | None, data: Mapping[str, Any]) -> bytes:
    text = json.dumps(data, separators=(",", ":"))
    return ((f"event: {name}\n" if name else "") + f"data: {text}\n\n").encode("utf-8")


def _stream(
    events: Sequence[Event], api: str, done_marker: bool, rid: str, delivery: Delivery
) -> Answer:
    head = (
        ("content-type", "text/event-stream; charset=utf-8"),
        ("cache-control", "no-cache"),
        ("transfer-encoding", "chunked"),
        ("request-id", rid),
        ("x-request-id", rid),
    )
    if delivery != "full":
        events = events[: max(1, len(events) // 2)]
    frames = [sse_frame(name, data) for name, data in events]
    if delivery == "cut":
        return Answer(200, head, frames=tuple(frames), abort=True)
    if delivery == "sse-error":
        frames.append(_error_frame(api, rid, len(events)))
    elif done_marker:
        frames.append(b"data: [DONE]\n\n")
    return Answer(200, head, frames=tuple(frames))


def _error_frame(api: str, rid: str, sequence_number: int) -> bytes:
    """The overloaded error each API sends mid-stream after HTTP 200."""
    err = ApiError(529, "Overloaded")
    if api == "openai-chat":  # chat streams carry errors as a data line
        return ("data: " + json.dumps(openai_error_body(err)) + "\n\n").encode("utf-8")
    if api == "openai-responses":
        data = {
            "type": "error",
            "code": "server_error",
            "message": err.message,
            "param": None,
            "sequence_number": sequence_number,
        }
        return ("event: error\ndata: " + json.dumps(data) + "\n\n").encode("utf-8")
    return ("event: error\ndata: " + json.dumps(anthropic_error_body(err, rid)) + "\n\n").encode(
        "utf-8"
    )
