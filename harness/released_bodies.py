"""Bounding what a session keeps of the requests it sent: each request's body holds the whole
conversation so far (as references to its messages, and a units tuple as long), so keeping
every one grows with the square of a session's length. `release` keeps a request's record
(api, model, path, cache key, meta, input token count) and drops its body and units; reading
the released body raises `BodyReleased`, never an empty mapping that reads as a real one. The
store, when the session has one, keeps every body.
"""

# pure: imports no I/O (tests/test_layout.py checks it)

from __future__ import annotations

import dataclasses
from collections.abc import Iterator, Mapping
from typing import Any, NoReturn

from .errors import PrefixlockError
from .wire import WireRequest


class BodyReleased(PrefixlockError, LookupError):
    """The body of an older request, released (`Session.keep_request_bodies`)."""


class ReleasedBody(Mapping[str, Any]):
    """What an older request's `body` becomes: any read of it raises BodyReleased."""

    def _refuse(self) -> NoReturn:
        raise BodyReleased(
            "this request's body was released (Session.keep_request_bodies keeps the newest "
            "ones); the session store keeps every body"
        )

    def __getitem__(self, key: str) -> Any:
        self._refuse()

    def __iter__(self) -> Iterator[str]:
        self._refuse()

    def __len__(self) -> int:
        self._refuse()

    def __repr__(self) -> str:
        return "ReleasedBody()"


def release(request: WireRequest) -> WireRequest:
    """The request's record without its body and units (its last unit stays: the input token
    count reads it)."""
    if released(request):
        return request
    return dataclasses.replace(request, body=ReleasedBody(), units=request.units[-1:])


def released(request: WireRequest) -> bool:
    return isinstance(request.body, ReleasedBody)


def keep_newest(requests: list[WireRequest], keep: int | None, done: int) -> int:
    """Release the bodies of all but the newest `keep` requests (None: keep every one), from
    index `done` (those before it are released already); returns the new `done`."""
    if keep is None:
        return done
    upto = max(done, len(requests) - keep)
    for i in range(done, upto):
        requests[i] = release(requests[i])
    return upto


def drop_oldest(requests: list[WireRequest], keep: int | None) -> int:
    """Take all but the newest `keep` requests out of `requests` (None: keep every one);
    returns how many went."""
    if keep is None or len(requests) <= keep:
        return 0
    gone = len(requests) - keep
    del requests[:gone]
    return gone
