"""Reading request traces from files: Mooncake JSONL (plain lines straight from the bytes, a
batch at a time; other lines through the JSON parser), gzipped or not, and prefixlock's own JSONL
(`prefixlock_trace`). The simulator's only I/O; `trace.Trace` is what it builds.

A malformed line stops the read with its line number and what is wrong, or, with
`skip_bad=True`, is skipped and counted in `Trace.skipped`.
"""

from __future__ import annotations

import io
import json
import os
import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np

from .trace import (
    F64,
    I64,
    MOONCAKE_BLOCK,
    Trace,
    TraceError,
    bad_line,
    block_tokens,
    check_times,
)


def open_text(path: str | os.PathLike[str]) -> io.TextIOBase:
    p = Path(path)
    try:
        if p.suffix == ".gz":
            import gzip

            return gzip.open(p, "rt", encoding="utf-8")
        return open(p, encoding="utf-8")
    except OSError as exc:
        raise TraceError(f"cannot read trace: {exc.strerror}", where=str(p)) from None


def _lines(path: str | os.PathLike[str]) -> Iterator[tuple[int, str]]:
    with open_text(path) as fh:
        try:
            yield from enumerate(fh, 1)
        except UnicodeDecodeError:
            raise TraceError("not UTF-8 text", where=str(path)) from None


def sniff(path: str | os.PathLike[str]) -> str:
    """'mooncake' or 'prefixlock', from the first non-empty line."""
    for _, rec, error in _records(path, batch=1):
        # A bad first line reads as Mooncake: let the reader name it.
        return (
            "prefixlock"
            if error is None and isinstance(rec, dict) and "body" in rec
            else "mooncake"
        )
    return "mooncake"


class _Bad(Exception):
    pass


def _batches(path: str | os.PathLike[str], batch: int) -> Iterator[tuple[list[int], list[str]]]:
    """(line numbers, stripped texts) of the non-empty lines, `batch` lines at a time."""
    numbers: list[int] = []
    texts: list[str] = []
    for lineno, line in _lines(path):
        s = line.strip()
        if not s:
            continue
        numbers.append(lineno)
        texts.append(s)
        if len(texts) >= batch:
            yield numbers, texts
            numbers, texts = [], []
    if texts:
        yield numbers, texts


# Deepest nesting of arrays and objects a line may have: a trace record needs a handful of levels;
# past Python's recursion limit the parser would end in a RecursionError instead of a message.
MAX_DEPTH = 200


def _depth(text: str) -> int:
    """Deepest nesting of `text`'s arrays and objects, brackets inside strings not counted."""
    depth = deepest = 0
    in_string = escaped = False
    for ch in text:
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
        elif ch in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif ch in "]}":
            depth -= 1
    return deepest


def _shallow(texts: list[str]) -> bool:
    """No line could nest past `MAX_DEPTH` (a bracket count, no parse)."""
    return all(t.count("[") + t.count("{") <= MAX_DEPTH for t in texts)


def _loads(text: str) -> Any:
    """`json.loads`, refusing nesting past `MAX_DEPTH` with a JSONDecodeError-like message."""
    if text.count("[") + text.count("{") > MAX_DEPTH and _depth(text) > MAX_DEPTH:
        raise ValueError(f"nested deeper than {MAX_DEPTH} levels")
    try:
        return json.loads(text)
    except RecursionError:
        raise ValueError(f"nested deeper than {MAX_DEPTH} levels") from None


def _parse(numbers: list[int], texts: list[str]) -> Iterator[tuple[int, Any, str | None]]:
    """(line number, parsed value, error) of each line: all lines parsed as one JSON array (one
    call into the C parser instead of one per line); a batch that does not parse into exactly
    one value per line is parsed again line by line, so a bad line is still reported with its
    own number."""
    try:
        values = json.loads("[" + ",".join(texts) + "]") if _shallow(texts) else None
    except (json.JSONDecodeError, RecursionError):
        values = None
    if isinstance(values, list) and len(values) == len(texts):
        for no, value in zip(numbers, values, strict=True):
            yield no, value, None
        return
    for no, text in zip(numbers, texts, strict=True):
        try:
            value = _loads(text)
        except json.JSONDecodeError as exc:
            yield no, None, f"invalid JSON ({exc.msg} at column {exc.colno})"
        except ValueError as exc:
            yield no, None, str(exc)
        else:
            yield no, value, None


def _records(
    path: str | os.PathLike[str], batch: int = 2000
) -> Iterator[tuple[int, Any, str | None]]:
    """(line number, parsed value, error) of every non-empty line, parsed `batch` at a time."""
    for numbers, texts in _batches(path, batch):
        yield from _parse(numbers, texts)


_KEY = '"hash_ids"'


def _split_hash_ids(texts: list[str]) -> tuple[list[str], I64, list[int]] | None:
    """The usual Mooncake lines, read fast: each line's `hash_ids` array cut out and all of them
    parsed at once by numpy; what is left of each line (the array replaced by 0) is for the
    JSON parser. Returns (rest of each line, the ids, ids per line).

    None unless every line is plainly that: `"hash_ids"` once, where a key starts (after `{` or
    `,` and at most one space), then `:` and a non-empty array of non-negative integers of at
    most 18 digits written as JSON writes them (no leading zero; a space only after a comma).
    The caller then parses the lines whole, so any other line (string ids, a float, an empty
    list, two keys) is read, or reported, exactly as before."""
    rest: list[str] = []
    bodies: list[str] = []
    before: set[str] = set()  # the two characters before each key
    between: set[str] = set()  # what separates each key from its array
    for s in texts:
        head, key, tail = s.partition(_KEY)
        mid, bracket, tail = tail.partition("[")
        body, bracket_, after = tail.partition("]")
        if not (key and bracket and bracket_):
            return None
        rest.append(f"{head}{key}{mid}0{after}")
        bodies.append(body)
        before.add(head[-2:])
        between.add(mid)
    if not all(b[-1:] in ("{", ",") or (b[-1:] == " " and b[:1] in ("{", ",")) for b in before):
        return None  # "hash_ids" not where a key starts: inside a string
    if any(m.strip(" ") != ":" for m in between) or "".join(texts).count(_KEY) != len(texts):
        return None  # another value after the key, or a second "hash_ids" in a line
    joined = ",".join(bodies).encode()
    if joined.translate(None, b"0123456789, "):
        return None  # anything but digits, commas and spaces (ASCII only: UTF-8 is longer)
    raw = np.frombuffer(joined, np.uint8)
    space = np.flatnonzero(raw == 32)
    if space.shape[0] and (space[0] == 0 or bool((raw[space - 1] != 44).any())):
        return None  # "1 2", "1 ,2", "2 ]": JSON's problems, the slow path's to report
    compact = joined.replace(b" ", b"")
    ids, _ = _plain_ints(compact, np.flatnonzero(np.frombuffer(compact, np.uint8) == 44), 18)
    if ids is None:
        return None  # 19 digits may pass 2**62
    return rest, ids, [body.count(",") + 1 for body in bodies]


def _plain_ints(text: bytes, seps: I64, most: int) -> tuple[I64 | None, I64]:
    """The integers of `text` (ASCII digits and commas only, the commas at `seps`) when each
    item is a JSON integer of at most `most` digits (not empty, no leading zero), else None;
    and the digits of each item."""
    digits = np.frombuffer(text, np.uint8)
    bounds = np.empty(seps.shape[0] + 2, np.int64)
    bounds[0], bounds[1:-1], bounds[-1] = -1, seps, digits.shape[0]
    length = np.diff(bounds) - 1
    if int(length.min()) < 1 or int(length.max()) > most:
        return None, length  # an empty list or item, or too many digits
    if bool(((digits[bounds[:-1] + 1] == 48) & (length > 1)).any()):
        return None, length  # a leading zero
    values = np.fromstring(text, dtype=np.int64, sep=",")
    return (values if values.shape[0] == length.shape[0] else None), length


# Mooncake lines exactly as json.dumps writes the published traces' records. A batch of lines
# that all match is read without a JSON parser (see `_plain_lines`).
# (Possessive quantifiers: nothing to backtrack into, as fast as one character class.)
_PLAIN_LINE = (
    rb'\{"timestamp": [0-9]++, "input_length": [0-9]++, "output_length": [0-9]++, '
    rb'"hash_ids": \[[0-9]++(?:, ?+[0-9]++)*+\]\}'
)
_PLAIN = re.compile(_PLAIN_LINE + rb"(?:\n" + _PLAIN_LINE + rb")*+\n?+")
_NOT_NUMBERS = bytes(sorted(set(range(256)) - set(b"0123456789,\n")))
BATCH = 2000  # lines parsed at a time


def _plain_lines(data: bytes) -> tuple[F64, I64, I64, I64, I64] | None:
    """(arrival seconds, input lengths, output lengths, ids, ids per line) of a batch of lines
    (text separated by newlines, one may end it) that all read `{"timestamp": T,
    "input_length": N, "output_length": M, "hash_ids": [I, ...]}` as json.dumps writes it (the
    published Mooncake traces): one regular expression checks the batch, everything but the
    numbers is deleted and numpy parses these, with no JSON parser and no Python object per
    record.

    None unless every number is a plain JSON integer (no sign, no leading zero, at most 15
    digits for the three counts, which the record-by-record reader passes through float64, and
    18 for the ids), every input length is positive and the ids are separated by ", " or ","
    alone; the caller then reads the batch as before, so anything else is read, or reported,
    exactly as it was."""
    if _PLAIN.fullmatch(data) is None:
        return None  # a line that is not one of these (no line of these holds a newline)
    numbers = data.translate(None, _NOT_NUMBERS)  # "T,N,M,I,I\nT,N,M,I\n"
    if numbers.endswith(b"\n"):
        numbers = numbers[:-1]
    digits = np.frombuffer(numbers, np.uint8)
    seps = np.flatnonzero(digits < 48)  # commas, and newlines between records
    values, length = _plain_ints(numbers.replace(b"\n", b","), seps, 18)
    if values is None:
        return None
    breaks = np.flatnonzero(digits[seps] == 10)
    firsts = np.empty(breaks.shape[0] + 1, np.int64)  # each record's first item
    firsts[0] = 0
    firsts[1:] = breaks + 1
    fields = (firsts[:, None] + np.arange(3)).reshape(-1)  # T, N, M of each record
    if int(length[fields].max()) > 15 or not bool((values[firsts + 1] > 0).all()):
        return None
    is_id = np.ones(values.shape[0], bool)
    is_id[fields] = False
    per_line = np.diff(firsts, append=values.shape[0]) - 3
    return (
        values[firsts] / 1000.0,
        values[firsts + 1],
        values[firsts + 2],
        np.compress(is_id, values),
        per_line,
    )


def _byte_batches(path: str | os.PathLike[str], chunk: int = 1 << 22) -> Iterator[bytes]:
    """The file's bytes, `BATCH` lines at a time (the last batch may be shorter), read in large
    blocks and cut at newlines; gzip is decompressed. Only for lines that will be checked by
    `_plain_lines`: it neither decodes nor strips."""
    p = Path(path)
    with _gzip_bytes(p) if p.suffix == ".gz" else open(p, "rb") as fh:
        rest = b""
        while True:
            block = fh.read(chunk)
            if not block:
                if rest:
                    yield rest
                return
            data = rest + block
            ends = np.flatnonzero(np.frombuffer(data, np.uint8) == 10)[BATCH - 1 :: BATCH] + 1
            start = 0
            for end in ends.tolist():
                yield data[start:end]
                start = end
            rest = data[start:]


def _gzip_bytes(path: Path) -> Any:
    import gzip

    return gzip.open(path, "rb")


def _mooncake_records(
    numbers: list[int], texts: list[str]
) -> Iterator[tuple[int, Any, str | None, I64 | None]]:
    """`_parse` of one batch, with each line's `hash_ids` as an array when the batch reads fast
    (see `_split_hash_ids`; the record's own `hash_ids` is then a placeholder), else None."""
    fast = _split_hash_ids(texts)
    if fast is not None:
        rest, ids, counts = fast
        try:
            values = json.loads("[" + ",".join(rest) + "]") if _shallow(rest) else None
        except (json.JSONDecodeError, RecursionError):
            values = None
        if isinstance(values, list) and len(values) == len(texts):
            bounds = np.cumsum([0, *counts]).tolist()
            for i, (no, value) in enumerate(zip(numbers, values, strict=True)):
                yield no, value, None, ids[bounds[i] : bounds[i + 1]]
            return
    for no, value, error in _parse(numbers, texts):
        yield no, value, error, None


def _int(rec: dict[str, Any], key: str, default: int | None = None) -> int:
    v = rec.get(key, default)
    if v is None:
        raise _Bad(f"missing field {key!r}")
    ok = isinstance(v, (int, float)) and not isinstance(v, bool) and abs(v) < 2**62
    if not ok or v != int(v):
        raise _Bad(f"field {key!r} must be an integer below 2**62, got {v!r}"[:200])
    return int(v)


class _Interner:
    """String hash ids to integers; integer ids pass through (they already name blocks)."""

    def __init__(self) -> None:
        self.strings: dict[str, int] = {}

    def ids(self, raw: list[Any]) -> list[int]:
        if set(map(type, raw)) == {int}:
            if min(raw) < 0 or max(raw) >= 2**62:
                raise _Bad("hash_ids must be non-negative integers below 2**62")
            return raw
        out: list[int] = []
        for h in raw:
            if type(h) is int:
                if h < 0 or h >= 2**62:
                    raise _Bad("hash_ids must be non-negative integers below 2**62")
                out.append(h)
            elif isinstance(h, str) and h:
                # Strings live above the integer range so they never collide with integer ids.
                out.append(self.strings.setdefault(h, 2**62 + len(self.strings)))
            else:
                raise _Bad(f"hash_ids must hold integers or strings, got {h!r}")
        return out


def read_mooncake(
    path: str | os.PathLike[str],
    *,
    skip_bad: bool = False,
    block_size: int = MOONCAKE_BLOCK,
    limit: int = 0,
    on_progress: Callable[[int], None] | None = None,
) -> Trace:
    """Read a Mooncake JSONL trace: `timestamp` (ms), `input_length`, `output_length`, `hash_ids`.

    Optional fields: `session_id`/`session`, `tenant`, `block_size`. `limit` stops after that many
    requests. Records are parsed in chunks so a trace of tens of millions of block references
    does not hold them all as Python objects at once; a batch of plain lines (`_plain_lines`)
    holds none.
    """
    where = str(path)
    interner = _Interner()
    # Per chunk of requests: ids, ids per request, and the per-request columns.
    id_parts: list[I64] = []
    len_parts: list[I64] = []
    time_parts: list[F64] = []
    col_parts: list[I64] = []  # input length, output length, session, tenant (4 x chunk)
    meta: list[tuple[float, int, int, int, int]] = []
    lens: list[int] = []
    sessions: dict[Any, int] = {}
    skipped = 0
    read = 0  # requests kept so far
    chunk: list[list[int] | I64] = []
    rec_block: int | None = None

    def flush() -> None:
        if chunk:
            id_parts.append(np.concatenate([np.asarray(c, np.int64) for c in chunk]))
            chunk.clear()
            len_parts.append(np.array(lens, dtype=np.int64))
            lens.clear()
            m = np.array(meta, dtype=np.float64)
            meta.clear()
            time_parts.append(m[:, 0].copy())
            col_parts.append(m[:, 1:].T.astype(np.int64))

    def add_plain(plain: tuple[F64, I64, I64, I64, I64]) -> int:
        """Keep a plain batch (up to the limit); returns its requests kept."""
        nonlocal read
        times, inp, out, ids, per_line = plain
        n = int(per_line.shape[0])
        k = n if not limit else min(n, limit - read)
        if k < n:
            times, inp, out = times[:k], inp[:k], out[:k]
            per_line = per_line[:k]
            ids = ids[: int(per_line.sum())]
        id_parts.append(ids)
        len_parts.append(per_line)
        time_parts.append(times)
        cols = np.empty((4, k), np.int64)
        cols[0], cols[1], cols[2], cols[3] = inp, out, -1, 0  # no session, tenant 0
        col_parts.append(cols)
        read += k
        return k

    # Straight from the bytes while every batch is plain; from the first batch that is not, the
    # lines are read as text as always (the batches before it are the same lines: no blank line,
    # no carriage return, no byte outside ASCII), each batch again trying the plain read.
    done = 0  # lines read from the bytes
    finished = False
    try:
        for data in _byte_batches(path):
            plain = _plain_lines(data)
            if plain is None:
                break
            add_plain(plain)
            done += plain[4].shape[0]
            if on_progress is not None:
                on_progress(done)
            if limit and read >= limit:
                finished = True
                break
        else:
            finished = True
    except Exception:  # unreadable or a broken gzip: the text reader meets it and reports it
        for parts in (id_parts, len_parts, time_parts, col_parts):
            parts.clear()
        done, read = 0, 0
    for numbers, texts in () if finished else _batches(path, BATCH):
        if numbers[-1] <= done:
            continue  # read from the bytes already
        plain = _plain_lines("\n".join(texts).encode())
        if plain is not None:
            flush()
            k = add_plain(plain)
            if on_progress is not None:
                on_progress(numbers[k - 1])
            if limit and read >= limit:
                break
            continue
        stop = False
        for lineno, rec, error, parsed_ids in _mooncake_records(numbers, texts):
            try:
                if error is not None:
                    raise _Bad(error)
                if not isinstance(rec, dict):
                    raise _Bad("expected a JSON object")
                ids: list[int] | I64
                if parsed_ids is not None:
                    ids = parsed_ids
                else:
                    hash_ids = rec.get("hash_ids")
                    if not isinstance(hash_ids, list) or not hash_ids:
                        raise _Bad("'hash_ids' must be a non-empty list")
                    ids = interner.ids(hash_ids)
                ts = rec.get("timestamp", 0)
                if (
                    isinstance(ts, bool)
                    or not isinstance(ts, (int, float))
                    or not abs(ts) < 1e15  # NaN, infinities and ms past year 30,000
                ):
                    raise _Bad(f"'timestamp' must be a finite number of ms, got {ts!r}"[:200])
                inp = rec.get("input_length")
                if type(inp) is not int:  # the common case skips the full check
                    inp = _int(rec, "input_length")
                if not 0 < inp < 2**62:
                    raise _Bad(f"'input_length' must be positive, below 2**62, got {inp}"[:200])
                out = rec.get("output_length", 0)
                if type(out) is not int or not 0 <= out < 2**62:
                    out = _int(rec, "output_length", 0)
                    if out < 0:
                        raise _Bad(f"'output_length' must be >= 0, got {out}")
                bs = rec.get("block_size")
                if bs is not None:
                    if isinstance(bs, bool) or not isinstance(bs, int) or bs <= 0:
                        raise _Bad(f"'block_size' must be a positive integer, got {bs!r}")
                    if rec_block is not None and bs != rec_block:
                        raise _Bad(f"'block_size' {bs} differs from earlier records ({rec_block})")
                    rec_block = bs
                sess = rec.get("session_id", rec.get("session"))
                sid = -1 if sess is None else sessions.setdefault(str(sess), len(sessions))
                tenant = rec.get("tenant", 0)
                tid = (
                    tenant
                    if isinstance(tenant, int)
                    and not isinstance(tenant, bool)
                    and 0 <= tenant < 2**62
                    else 0
                )
            except _Bad as exc:
                if skip_bad:
                    skipped += 1
                    continue
                raise bad_line(exc, where, lineno) from None
            chunk.append(ids)
            lens.append(len(ids))
            meta.append((float(ts) / 1000.0, inp, out, sid, tid))
            read += 1
            if limit and read >= limit:
                stop = True
                break
        if on_progress is not None and chunk:
            on_progress(numbers[-1])
        flush()
        if stop:
            break
    flush()
    if not read:
        raise TraceError(
            "the trace has no requests" + (f" ({skipped} bad lines skipped)" if skipped else ""),
            where=where,
        )
    ids_all = np.concatenate(id_parts) if len(id_parts) > 1 else id_parts[0]
    lengths = np.concatenate(len_parts) if len(len_parts) > 1 else len_parts[0]
    times = np.concatenate(time_parts) if len(time_parts) > 1 else time_parts[0]
    cols = np.concatenate(col_parts, axis=1) if len(col_parts) > 1 else col_parts[0]
    starts = np.zeros(lengths.shape[0] + 1, np.int64)
    np.cumsum(lengths, out=starts[1:])
    check_times(times, where)
    bsz = rec_block or block_size
    input_len = cols[0].copy()
    r = lengths.shape[0]
    return Trace(
        ids=ids_all,
        tokens=block_tokens(input_len, lengths, bsz),
        starts=starts,
        times=times,
        input_len=input_len,
        output_len=cols[1].copy(),
        session=cols[2].copy(),
        tenant=cols[3].copy(),
        model=np.zeros(r, np.int64),
        block_size=bsz,
        name=Path(path).name,
        skipped=skipped,
        cache_key=np.full(r, -1, np.int64),
    )


def read_trace(
    path: str | os.PathLike[str],
    *,
    fmt: str = "auto",
    skip_bad: bool = False,
    block_size: int | None = None,
    limit: int = 0,
    on_progress: Callable[[int], None] | None = None,
) -> Trace:
    """Read a Mooncake or prefixlock trace (format sniffed from the first line unless given).
    A malformed line stops the read with its line number and what is wrong, or, with
    `skip_bad=True`, is skipped and counted in `Trace.skipped`. `on_progress(lines_read)` is
    called now and then on long Mooncake traces."""
    if block_size is not None and block_size <= 0:
        raise TraceError(
            f"must be a positive number of tokens, got {block_size}", where="--block-size"
        )
    if not Path(path).exists():
        raise TraceError("no such file", where=str(path))
    kind = sniff(path) if fmt == "auto" else fmt
    if kind == "mooncake":
        return read_mooncake(
            path,
            skip_bad=skip_bad,
            block_size=block_size or MOONCAKE_BLOCK,
            limit=limit,
            on_progress=on_progress,
        )
    if kind == "prefixlock":
        from .prefixlock_trace import read_prefixlock

        return read_prefixlock(path, block_size=block_size or 64, skip_bad=skip_bad, limit=limit)
    raise TraceError(
        f"unknown trace format {fmt!r}; choose auto, mooncake or prefixlock", where="--format"
    )
