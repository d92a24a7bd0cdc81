"""Request traces as flat arrays.

A `Trace` is one request per row (arrival time, input and output length, session, tenant, model)
plus the chained block ids of every request, flattened: `ids[starts[r]:starts[r + 1]]` are the
blocks of request r in prompt order, `tokens` the tokens each block holds (the last one may be
partial). Three sources produce one: Mooncake JSONL (`hash_ids` of 512-token blocks), prefixlock's
own JSONL traces (see `prefixlock_trace`) and the synthetic workload generator (`synthetic`).

Reading files is the simulator's only I/O and lives in `tracefile` (`read_trace`, `sniff`), so
this module and the engine that uses it stay pure.
"""

# pure: imports no I/O (tests/test_layout.py checks it)

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from itertools import chain

import numpy as np
import numpy.typing as npt

from ..errors import UserError

I64 = npt.NDArray[np.int64]
I32 = npt.NDArray[np.int32]
F64 = npt.NDArray[np.float64]

MOONCAKE_BLOCK = 512


class TraceError(UserError):
    """A trace the simulator cannot read: malformed line, empty file, time going backwards."""


@dataclass(frozen=True)
class Trace:
    """Requests in arrival order with their chained block ids (see module docstring)."""

    ids: I64  # chained block ids, request after request
    tokens: I32  # tokens in each block
    starts: I64  # len = requests + 1
    times: F64  # arrival, seconds from the trace start
    input_len: I64
    output_len: I64
    session: I64  # -1 when unknown
    tenant: I64  # 0 when unknown
    model: I64  # index into `models`
    block_size: int
    models: tuple[str, ...] = ("",)
    name: str = "trace"
    skipped: int = 0
    cache_key: I64 = field(default_factory=lambda: np.zeros(0, np.int64))  # -1: none

    @property
    def requests(self) -> int:
        return int(self.starts.shape[0] - 1)

    @property
    def references(self) -> int:
        return int(self.ids.shape[0])

    @property
    def lengths(self) -> I64:
        return np.diff(self.starts)

    def keys(self) -> I64:
        """Per-request routing key: the cache key where one was sent, else the session."""
        if self.cache_key.shape[0] == self.requests:
            return np.where(self.cache_key >= 0, self.cache_key, self.session)
        return self.session

    def head(self, n: int) -> Trace:
        """The first `n` requests (tests and quick looks use slices of long traces)."""
        n = max(0, min(n, self.requests))
        end = int(self.starts[n])
        ck = self.cache_key[:n] if self.cache_key.shape[0] else self.cache_key
        return replace(
            self,
            ids=self.ids[:end],
            tokens=self.tokens[:end],
            starts=self.starts[: n + 1],
            times=self.times[:n],
            input_len=self.input_len[:n],
            output_len=self.output_len[:n],
            session=self.session[:n],
            tenant=self.tenant[:n],
            model=self.model[:n],
            cache_key=ck,
        )


def block_tokens(input_len: I64, lengths: I64, block_size: int) -> I32:
    """Tokens in each block: full blocks, then what is left in the last one (at least 1)."""
    n = int(lengths.sum())
    ends = np.cumsum(lengths)
    last = input_len - (lengths - 1) * block_size
    if np.all((last >= 1) & (last <= block_size)):
        # The usual case (ceil(input / block) ids): only the last block can be partial. Filled
        # in place, without per-reference temporaries, so long traces stay small in memory.
        tok = np.full(n, block_size, np.int32)
        tok[ends - 1] = last
        return tok
    req = np.repeat(np.arange(lengths.shape[0]), lengths)
    k = np.arange(n, dtype=np.int64) - (ends - lengths)[req]
    remaining = input_len[req] - k * block_size
    out = np.clip(remaining, 1, block_size)
    # A record without a usable input length counts every block as full (as Mooncake's tools do).
    out = np.where(input_len[req] <= 0, block_size, out)
    return out.astype(np.int32)


def check_times(times: F64, where: str) -> None:
    """Arrival times must not go backwards: routing, queues and TTLs depend on the order."""
    if times.shape[0] > 1:
        back = np.flatnonzero(np.diff(times) < 0)
        if back.shape[0]:
            i = int(back[0]) + 1
            raise TraceError(
                f"timestamps decrease at request {i + 1} ({times[i]:g}s after {times[i - 1]:g}s); "
                "sort the trace by time",
                where=where,
            )


def bad_line(problem: object, where: str, lineno: int) -> TraceError:
    """The error a reader stops at a malformed line with (`skip_bad` skips and counts it)."""
    return TraceError(f"{problem} (use --skip-bad to skip bad lines)", where=f"{where}:{lineno}")


def from_requests(
    requests: Iterable[tuple[float, list[int], int, int, int, int, int]],
    *,
    block_size: int,
    models: tuple[str, ...] = ("",),
    name: str = "trace",
    tokens: list[list[int]] | None = None,
) -> Trace:
    """A trace from (time_s, block_ids, input_len, output_len, session, tenant, model) rows."""
    rows = list(requests)
    if not rows:
        raise TraceError("the trace has no requests", where=name)
    lengths = np.array([len(r[1]) for r in rows], np.int64)
    if (lengths <= 0).any():
        raise TraceError("every request needs at least one block", where=name)
    starts = np.zeros(lengths.shape[0] + 1, np.int64)
    np.cumsum(lengths, out=starts[1:])
    ids = np.fromiter(chain.from_iterable(r[1] for r in rows), np.int64, count=int(starts[-1]))
    times = np.array([r[0] for r in rows], np.float64)
    check_times(times, name)
    input_len = np.array([r[2] for r in rows], np.int64)
    if tokens is not None:
        tok = np.fromiter(chain.from_iterable(tokens), np.int32, count=int(starts[-1]))
    else:
        tok = block_tokens(input_len, lengths, block_size)
    return Trace(
        ids=ids,
        tokens=tok,
        starts=starts,
        times=times,
        input_len=input_len,
        output_len=np.array([r[3] for r in rows], np.int64),
        session=np.array([r[4] for r in rows], np.int64),
        tenant=np.array([r[5] for r in rows], np.int64),
        model=np.array([r[6] for r in rows], np.int64),
        block_size=block_size,
        models=models,
        name=name,
        cache_key=np.full(len(rows), -1, np.int64),
    )
