"""Finding and reading the logs (the I/O of `analyze`): the standard locations of each coding
agent and the variables that move them, folders walked recursively, each file's format sniffed
from its first records, files streamed line by line (several at once on several cores), SQLite
databases opened read-only. The parsing itself is in the pure reader modules."""

from __future__ import annotations

import contextlib
import itertools
import json
import multiprocessing
import os
import sqlite3
import stat
import sys
import threading
import traceback
from collections import Counter
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import IO, Any

import msgspec
from msgspec import UNSET

from ..errors import UserError

try:
    import fcntl
except ImportError:  # Windows
    fcntl = None  # type: ignore[assignment]
from . import claude_code, codex, gemini, opencode, prefixlock_trace
from .model import FileResult

SOURCES = ("claude-code", "codex", "opencode", "gemini", "prefixlock")


def default_roots(env: dict[str, str] | None = None) -> list[tuple[str, Path]]:
    """(source, folder or file) for each standard location that exists."""
    env = dict(os.environ if env is None else env)
    home = Path(env.get("HOME") or Path.home())
    out: list[tuple[str, Path]] = []
    claude = [p for p in env.get("CLAUDE_CONFIG_DIR", "").split(",") if p.strip()]
    cands = [Path(p.strip()).expanduser() for p in claude] or [
        home / ".claude",
        home / ".config" / "claude",
    ]
    for c in cands:
        out.append(("claude-code", c / "projects" if (c / "projects").is_dir() else c))
    codex_home = Path(env.get("CODEX_HOME") or home / ".codex").expanduser()
    out += [("codex", codex_home / "sessions"), ("codex", codex_home / "archived_sessions")]
    xdg = Path(env.get("XDG_DATA_HOME") or home / ".local" / "share")
    oc = Path(env.get("OPENCODE_DATA_DIR") or xdg / "opencode").expanduser()
    out.append(("opencode", oc))
    out.append(
        ("gemini", Path(env.get("GEMINI_DATA_DIR") or home / ".gemini" / "tmp").expanduser())
    )
    store = env.get("PREFIXLOCK_STORE")
    out.append(("prefixlock", Path(store) if store else xdg / "prefixlock" / "sessions.sqlite"))
    return [(s, p) for s, p in out if p.exists()]


def _walk(root: Path, source: str | None) -> Iterator[tuple[str | None, str]]:
    # Paths as text (a gigabyte of logs is ten thousand files: a Path each costs more than
    # walking the folders); `root` made a Path once, so that each is what str(Path) gives.
    if root.is_file():
        yield source, str(root)
        return
    if source == "opencode":
        dbs = sorted(root.glob("opencode*.db"))
        if dbs:
            yield from ((source, str(d)) for d in dbs)
            return
        if (root / "storage" / "message").is_dir():
            yield source, str(root / "storage")
            return
    if root.name == "storage" and (root / "message").is_dir():
        yield "opencode", str(root)
        return
    join = os.path.join
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames.sort()
        for name in sorted(filenames):
            if name.endswith((".jsonl", ".json", ".db", ".sqlite")):
                yield source, join(dirpath, name)


def find_files(paths: Sequence[str], source: str = "auto") -> list[tuple[str | None, str]]:
    """The files to read, with the source each is known to be (None: sniff it)."""
    forced = None if source == "auto" else source
    roots: list[tuple[str | None, Path]]
    if not paths:
        roots = [
            (s if forced is None else forced, p)
            for s, p in default_roots()
            if forced is None or s == forced
        ]
        if not roots:
            raise UserError(
                "no logs found in the standard locations (~/.claude/projects, ~/.codex/sessions, "
                "~/.local/share/opencode, ~/.gemini/tmp); name files or folders",
                where="analyze",
            )
    else:
        roots = []
        for p in paths:
            path = Path(p).expanduser()
            if not path.exists():
                raise UserError("no such file or folder", where=str(path))
            roots.append((forced, path))
    found: list[tuple[str | None, str]] = []
    seen: set[str] = set()
    for s, root in roots:
        for src, f in _walk(root, s):
            if f not in seen:
                seen.add(f)
                found.append((src, f))
    return found


def sniff(path: Path) -> str | None:
    """The source a file comes from, by its name and first records; None if none fits."""
    if path.is_dir():
        return "opencode"
    if path.suffix in (".db", ".sqlite"):
        return _sniff_db(path)
    try:
        fh = open(path, "rb")  # noqa: SIM115 (closed below; lines are read as needed)
    except OSError:
        return None
    with fh:
        return _sniff_lines(path, fh)


def _sniff_lines(path: Path, fh: IO[bytes]) -> str | None:
    # The first 30 lines, read from at most the first 4 MB (a tool result can be long), only
    # as far as the first that tells.
    if path.suffix == ".json":
        text = "".join(line.decode("utf-8", "replace") for line in itertools.islice(_head(fh), 30))
        if '"messages"' in text or ('"type"' in text and '"gemini"' in text):
            return "gemini"
        if '"sessionID"' in text:
            return "opencode"
        return None
    for line in itertools.islice(_head(fh), 30):
        try:
            rec = _decode_head(line)
        except (msgspec.DecodeError, msgspec.ValidationError, RecursionError):
            continue
        kind = rec.type
        if (
            rec.payload is not UNSET
            and kind in ("session_meta", "turn_context", "event_msg", "response_item", "compacted")
        ) or kind in ("turn.completed", "thread.started", "turn.started"):
            return "codex"
        if rec.sessionId is not UNSET and (
            rec.message is not UNSET or kind in ("user", "assistant", "summary", "system")
        ):
            return "claude-code"
        if kind == "summary" and rec.leafUuid is not UNSET:
            return "claude-code"
        if UNSET not in (rec.session_id, rec.usage, rec.seq):
            return "prefixlock"
        if kind in ("gemini", "user") and rec.id is not UNSET:
            return "gemini"
    return None


_Seen = msgspec.Raw | msgspec.UnsetType


class _Head(msgspec.Struct):
    """What tells the formats apart: a type, and which keys a record has (their values are
    skipped, not built)."""

    type: Any = None
    payload: _Seen = UNSET
    sessionId: _Seen = UNSET
    message: _Seen = UNSET
    leafUuid: _Seen = UNSET
    session_id: _Seen = UNSET
    usage: _Seen = UNSET
    seq: _Seen = UNSET
    id: _Seen = UNSET


_decode_head = msgspec.json.Decoder(_Head).decode


def _head(fh: IO[bytes], limit: int = 1 << 22) -> Iterator[bytes]:
    while limit > 0:
        line = fh.readline(limit)
        if not line:
            return
        limit -= len(line)
        yield line


def _connect(path: Path) -> sqlite3.Connection:
    return sqlite3.connect(f"file:{path}?mode=ro", uri=True)


def _tables(db: sqlite3.Connection) -> set[str]:
    return {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type='table'")}


def _sniff_db(path: Path) -> str | None:
    try:
        db = _connect(path)
        try:
            tables = _tables(db)
        finally:
            db.close()
    except sqlite3.Error:
        return None
    if "message" in tables:
        return "opencode"
    if "requests" in tables and "sessions" in tables:
        return "prefixlock"
    return None


def _lines(path: Path) -> Iterator[str]:
    # errors="replace": one bad byte spoils one line (counted corrupt), not the whole file.
    with open(path, encoding="utf-8", errors="replace", newline="") as fh:
        yield from fh


def _bytes(path: Path) -> Iterator[bytes]:
    # Binary lines: the readers decode the UTF-8 themselves, only the fields they need.
    with open(path, "rb", buffering=1 << 20) as fh:
        yield from fh


def read_file(source: str | None, path: Path, text: bool = False) -> FileResult:
    """One file's FileResult; an unreadable or unknown file is a note, not an error."""
    if path.suffix == ".jsonl":
        # Sniffed and read through one opening of the file (most files are these).
        try:
            fh = open(path, "rb", buffering=1 << 20)  # noqa: SIM115 (closed below)
        except OSError:
            fh = None
        if fh is not None:
            with fh:
                src = source or _sniff_lines(path, fh)
                fh.seek(0)
                if src == "claude-code":
                    return _read_lines(src, claude_code.parse, fh, path, text)
                if src == "codex":
                    return _read_lines(src, codex.parse, fh, path)
    src = source or sniff(path)
    where = str(path)
    try:
        if src == "claude-code":
            return claude_code.parse(_bytes(path), where, text)
        if src == "codex":
            return codex.parse(_bytes(path), where)
        if src == "gemini":
            if path.suffix == ".json":
                doc = json.loads(path.read_text("utf-8", errors="replace"))
                if isinstance(doc, dict) and "sessionID" in doc:
                    return opencode.parse_messages([doc], where)
                return gemini.parse_document(doc if isinstance(doc, dict) else {}, where)
            return gemini.parse_lines(_lines(path), where)
        if src == "opencode":
            return _read_opencode(path)
        if src == "prefixlock":
            if path.suffix in (".db", ".sqlite"):
                return _read_store(path)
            return prefixlock_trace.parse(_lines(path), where)
    except (OSError, sqlite3.Error, ValueError, UnicodeError, RecursionError):
        # RecursionError: a JSON document nested deeper than the parser goes.
        res = FileResult(where, src or "unknown")
        res.notes["unreadable_files"] += 1
        return res
    res = FileResult(where, "unknown")
    res.notes["unknown_format"] += 1
    return res


def _read_opencode(path: Path) -> FileResult:
    parts: dict[str, list[Mapping[str, Any]]] = {}
    parents: dict[str, str] = {}
    if path.is_dir():  # legacy storage/: message/<session>/<id>.json, part/<msg>/<id>.json
        messages = []
        for f in sorted((path / "message").rglob("*.json")):
            doc = json.loads(f.read_text("utf-8", errors="replace"))
            if isinstance(doc, dict):
                messages.append(doc)
        for f in sorted((path / "part").rglob("*.json")) if (path / "part").is_dir() else []:
            doc = json.loads(f.read_text("utf-8", errors="replace"))
            if isinstance(doc, dict) and doc.get("type") == "step-finish":
                parts.setdefault(str(doc.get("messageID", f.parent.name)), []).append(doc)
        for f in sorted((path / "session").rglob("*.json")) if (path / "session").is_dir() else []:
            doc = json.loads(f.read_text("utf-8", errors="replace"))
            if isinstance(doc, dict) and isinstance(doc.get("parentID"), str):
                parents[str(doc.get("id"))] = doc["parentID"]
        return opencode.parse_messages(messages, str(path), parts, parents)
    db = _connect(path)
    try:
        tables = _tables(db)
        messages = []
        notes: Counter[str] = Counter()
        for _id, sid, data in db.execute("SELECT id, session_id, data FROM message"):
            try:
                doc = json.loads(data)
            except (TypeError, ValueError):
                notes["corrupt_lines"] += 1
                continue
            if isinstance(doc, dict):
                doc.setdefault("id", _id)
                doc.setdefault("sessionID", sid)
                messages.append(doc)
        if "part" in tables:
            cols = {r[1] for r in db.execute("PRAGMA table_info(part)")}
            if {"message_id", "data"} <= cols:
                for mid, data in db.execute(
                    "SELECT message_id, data FROM part WHERE data LIKE '%step-finish%'"
                ):
                    try:
                        doc = json.loads(data)
                    except (TypeError, ValueError):
                        continue
                    if isinstance(doc, dict) and doc.get("type") == "step-finish":
                        parts.setdefault(str(mid), []).append(doc)
        if "session" in tables:
            cols = {r[1] for r in db.execute("PRAGMA table_info(session)")}
            if {"id", "parent_id"} <= cols:
                for sid, parent in db.execute("SELECT id, parent_id FROM session"):
                    if parent:
                        parents[str(sid)] = str(parent)
    finally:
        db.close()
    res = opencode.parse_messages(messages, str(path), parts, parents)
    res.notes.update(notes)
    return res


def _read_lines(
    src: str, parse: Callable[..., FileResult], fh: IO[bytes], path: Path, *more: Any
) -> FileResult:
    try:
        return parse(fh, str(path), *more)
    except (OSError, ValueError, UnicodeError, RecursionError):
        res = FileResult(str(path), src)
        res.notes["unreadable_files"] += 1
        return res


def _read_store(path: Path) -> FileResult:
    from ..store.database import SessionStore

    res = FileResult(str(path), "prefixlock")
    store = SessionStore(path, read_only=True)
    try:
        for rec in store.sessions():
            first = True
            for q in store.requests(rec.id):
                row = {
                    "session_id": q.session_id,
                    "seq": q.seq,
                    "time": q.time,
                    "model": q.model,
                    "usage": q.usage.to_dict(),
                    "turn": q.turn,
                }
                req = prefixlock_trace.request_from(row, str(path), q.seq)
                if req is None:
                    res.notes["invalid_usage"] += 1
                    continue
                req.first_in_file, first = first, False
                res.requests.append(req)
                res.notes["usage_lines"] += 1
    finally:
        store.close()
    return res


def _read_one(item: Item) -> FileResult:
    return read_file(item[0], Path(item[1]), item[2])


def _read_share(share: list[Item]) -> list[Any]:
    # All of a share's files read, then all made: reading and making file by file, in turn,
    # costs a seventh more CPU (each evicts the other's working set from the CPU's caches).
    got = [_read_one(item) for item in share]
    return [item[3](g) if item[3] is not None else g for item, g in zip(share, got, strict=True)]


POOL_BYTES = 32 << 20  # below this, starting processes costs more than it saves
# A share of the work: small enough that the readers finish together, its results well under
# the pipe's size, and big enough that its files are read before any is analysed for long runs.
CHUNK_BYTES = 8 << 20
TAIL_BYTES = 1 << 20  # the shares of the last jobs x CHUNK_BYTES
PIPE_BYTES = 1 << 20  # Linux's largest pipe an unprivileged process may ask for, by default

# A file's source (None: sniff it), path, whether to keep prompt text, and what to make of its
# result where it is read (None: the result itself).
Item = tuple[str | None, str, bool, Callable[[FileResult], Any] | None]


def _size(path: str) -> int:
    try:
        st = os.stat(path)
    except OSError:
        return 0
    return st.st_size if stat.S_ISREG(st.st_mode) else 0


def read_all(
    files: Sequence[tuple[str | None, str]],
    jobs: int = 1,
    text: bool = False,
    make: Callable[[FileResult], Any] | None = None,
) -> list[Any]:
    """Every file's result, or what `make` makes of it in the process that read it (in no set
    order); files spread over `jobs` readers when there is enough to read: this process and
    jobs - 1 others, each taking the next share of the files, biggest first, until none is
    left, so that no reader is left with one long file at the end."""
    sizes = {p: _size(p) for _, p in files}
    items: list[Item] = [(s, p, text, make) for s, p in sorted(files, key=lambda f: -sizes[f[1]])]
    shares: list[list[Item]] = [[]]
    held = 0
    left = sum(sizes.values())
    for item, size in zip(items, sorted(sizes.values(), reverse=True), strict=True):
        # The last few megabytes in smaller shares: the readers end closer together (the one
        # that ends first waits, and then makes the report alone).
        if held >= (CHUNK_BYTES if left > jobs * CHUNK_BYTES else min(CHUNK_BYTES, TAIL_BYTES)):
            shares.append([])
            held = 0
        shares[-1].append(item)
        held += size
        left -= size
    if jobs <= 1 or len(items) < 2 or sum(sizes.values()) < POOL_BYTES:
        return [got for share in shares for got in _read_share(share)]
    return _read_shared(shares, min(jobs, len(shares)))


def _context() -> Any:  # a ForkContext or the platform's default
    # Forking copies this process as it is (the readers imported, nothing to send); safe
    # only where fork is the platform's own and no other thread holds a lock.
    if sys.platform == "linux" and threading.active_count() == 1:
        return multiprocessing.get_context("fork")
    return multiprocessing.get_context()


def _read_shared(shares: list[list[Item]], jobs: int) -> list[Any]:
    ctx = _context()
    taken = ctx.Value("i", 0)
    readers = []
    for _ in range(jobs - 1):
        mine, theirs = ctx.Pipe(duplex=False)
        _widen(mine)
        proc = ctx.Process(target=_reader, args=(shares, taken, theirs), daemon=True)
        proc.start()
        theirs.close()
        readers.append((proc, mine))
    # This process reads too rather than wait: what it reads is never sent between processes.
    # Between its shares it takes in what the others have sent so far, so that decoding their
    # results overlaps their reading rather than following it.
    out: list[Any] = []
    running = list(readers)
    try:
        while (i := _take(taken)) < len(shares):
            out.extend(_read_share(shares[i]))
            running = [r for r in running if not _received(*r, out, wait=False)]
        for proc, conn in running:
            _received(proc, conn, out, wait=True)
    finally:
        for proc, conn in readers:
            conn.close()
            proc.join()
    return out


def _widen(conn: Any) -> None:
    # A reader blocks when the pipe is full until this process next looks (after its current
    # share): a pipe of 1 MB rather than 64 KB holds several shares' results.
    setsize = getattr(fcntl, "F_SETPIPE_SZ", None) if fcntl is not None else None
    if setsize is not None:
        with contextlib.suppress(OSError):
            fcntl.fcntl(conn.fileno(), setsize, PIPE_BYTES)


def _take(taken: Any) -> int:
    with taken.get_lock():
        i = taken.value
        taken.value = i + 1
    return int(i)


def _received(proc: Any, conn: Any, out: list[Any], wait: bool) -> bool:
    """Take in what reader `proc` has sent (all it will send where `wait`); True once it has
    sent its last."""
    while wait or conn.poll():
        try:
            got = conn.recv()
        except EOFError:
            proc.join()
            raise RuntimeError(
                f"a reading process ended early (exit code {proc.exitcode})"
            ) from None
        if got is None:
            return True
        if isinstance(got, str):
            raise RuntimeError(f"a reading process failed:\n{got}")
        out.extend(got)
    return False


def _reader(shares: list[list[Item]], taken: Any, conn: Any) -> None:
    # Each share's results sent as soon as they are made (a share's are far smaller than the
    # pipe's buffer, and the parent takes them in between its own shares), then None.
    try:
        while (i := _take(taken)) < len(shares):
            conn.send(_read_share(shares[i]))
        conn.send(None)
    except Exception:  # sent to the parent, which raises it
        conn.send(traceback.format_exc())
    conn.close()
