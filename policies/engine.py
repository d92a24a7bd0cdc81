"""The lint run: find files, read them, dispatch to the checks, apply suppressions and baseline.

This is the I/O shell around the pure checks (`pycheck`, `textcheck`, `tracecheck`). Files are
linted in worker processes when `jobs > 1`; a trace is one task, Python files go in chunks.
"""

from __future__ import annotations

import ast
import contextlib
import json
import os
import re
import signal
import stat
import sys
import threading
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from prefixlock.billing.prices import PriceTable
from prefixlock.errors import ConfigError, UserError

from .bundles import looks_minified
from .collapse import collapse, expanded, selected
from .config import LintConfig
from .findings import Finding, fingerprints, sort_key, source_lines
from .jscheck import JS_SUFFIXES, Module, check_js
from .jscheck.syntax import Source
from .jscheck.syntax import parse as parse_js
from .pycallers import PyCallers
from .pycheck import check_python
from .pycheck.analyzer import ModuleSummaries
from .pycheck.projectreach import ProjectReach
from .suppress import SIDECAR_SUFFIX, Suppressions, parse_inline, parse_sidecar
from .textcheck import FINDINGS_CAP, TEXT_SUFFIXES, check_text
from .tracecheck import check_request_file, check_trace, looks_like_request

TRACE_SUFFIXES = frozenset({".jsonl", ".ndjson", ".trace"})
# Project documents found by a directory walk are not prompts (name them explicitly to lint).
# Exact names only (any case, any text suffix): `history.py` and `security-auditor.md` are code
# and agents, not documents.
_DOC_NAMES = re.compile(
    r"(?i)^(readme|changelog|changes|history|contributing|license|licence|copying|notice|"
    r"code_of_conduct|security|authors|citation)(\.(md|markdown|txt|rst))?$"
)
# Folders that hold no project source: version control data, caches, installed third-party
# code and virtual environments (also found by their `pyvenv.cfg`). Every other folder is read,
# dot-folders included: agents read `.claude`, `.cursor` or `.github`, and web frameworks keep
# server code in folders such as Remix's `app/lib/.server/`.
_SKIPPED_DIRS = frozenset(
    {
        ".git",
        ".hg",
        ".svn",
        ".jj",
        ".bzr",
        "node_modules",
        "bower_components",
        "__pycache__",
        "site-packages",
        ".venv",
        "venv",
        ".tox",
        ".nox",
        ".eggs",
        ".mypy_cache",
        ".pytest_cache",
        ".ruff_cache",
        ".hypothesis",
        ".cache",
        ".next",
        ".nuxt",
        ".svelte-kit",
        ".turbo",
        ".parcel-cache",
        ".yarn",
        ".pnpm-store",
        ".gradle",
        ".idea",
    }
)


def _skipped_dir(path: Path, name: str) -> bool:
    return name in _SKIPPED_DIRS or name.endswith(".egg-info") or (path / "pyvenv.cfg").is_file()


# Bounds on one file's analysis (traces excepted: their checks stream line by line).
FILE_TIME_S = 10.0
MAX_FINDINGS_PER_FILE = FINDINGS_CAP
# A Python syntax tree takes about 140 bytes of memory per byte of source, built in one C call
# that no timer interrupts: a larger module (generated code, vendored data) is not analysed.
MAX_PYTHON_BYTES = 1_000_000


@dataclass
class Result:
    findings: list[Finding]
    files: int = 0
    suppressed: int = 0
    baselined: int = 0
    fixed: int = 0
    problems: list[str] = field(default_factory=list)


def kind_of(path: Path) -> str | None:
    suffix = path.suffix.lower()
    if suffix in (".py", ".pyi"):
        return "python"
    if suffix in TRACE_SUFFIXES:
        return "trace"
    if suffix in TEXT_SUFFIXES:
        return "text"
    if suffix in JS_SUFFIXES and not path.name.endswith((".min.js", ".d.ts")):
        return "js"
    return None


def discover(paths: Sequence[str], config: LintConfig) -> list[tuple[str, str]]:
    """(path, kind) of every file to lint. A path that does not exist is a usage error."""
    out: list[tuple[str, str]] = []
    seen: set[str] = set()
    for raw in paths:
        p = Path(raw)
        if not p.exists():
            raise UserError("no such file or directory", where=raw)
        if not p.is_dir():
            # An explicitly named file is linted whatever its name (binary files become PL903).
            k = kind_of(p) or "text"
            if str(p) not in seen:
                seen.add(str(p))
                out.append((str(p), k))
            continue
        # Symbolic links to folders are not followed (os.walk's default): no loops.
        for root, dirs, files in os.walk(p):
            rootp = Path(root)
            # Exclusions apply below the path given, not to the folders above it.
            rel = rootp.relative_to(p)
            dirs[:] = sorted(
                d
                for d in dirs
                if not config.excluded(rootp / d, rel / d) and not _skipped_dir(rootp / d, d)
            )
            for name in sorted(files):
                fp = rootp / name
                fk = kind_of(fp)
                if fk is None or name.endswith(SIDECAR_SUFFIX) or not _regular(fp):
                    continue
                if config.excluded(fp, rel / name):
                    continue
                if name == "pyproject.toml" or _DOC_NAMES.match(name):
                    continue
                if str(fp) not in seen:
                    seen.add(str(fp))
                    out.append((str(fp), fk))
    return out


_PRICES: dict[str | None, PriceTable] = {}  # per override file: loaded once per process


def _prices(override: str | None) -> PriceTable:
    table = _PRICES.get(override)
    if table is None:
        table = _PRICES[override] = PriceTable.default(override)
    return table


def _regular(path: Path) -> bool:
    """A regular file (through links): FIFOs, sockets and devices would block or never end,
    and a link loop or a dangling link has nothing to read."""
    try:
        return stat.S_ISREG(os.stat(path).st_mode)
    except (OSError, ValueError):
        return False


class _Timeout(Exception):
    pass


@contextlib.contextmanager
def _time_limit(seconds: float) -> Any:
    """Raise _Timeout in this thread after `seconds` of the process's CPU time (a no-op where
    no interval timer can be set: off the main thread, or on a platform without SIGPROF).
    Yields a list that holds True once the timer fired: an exception raised inside C code (the
    `ast` constructor) can surface as a SystemError instead of the _Timeout itself."""
    fired: list[bool] = []
    if (
        seconds <= 0
        or not hasattr(signal, "setitimer")
        or (threading.current_thread() is not threading.main_thread())
    ):
        yield fired
        return

    def _expire(signum: int, frame: object) -> None:
        fired.append(True)
        # Raised while a gc callback or a finalizer runs, the exception is lost (Python prints
        # it as unraisable) and the analysis would go on: fire again soon, until it lands.
        signal.setitimer(signal.ITIMER_PROF, 0.05)
        raise _Timeout

    hook = sys.unraisablehook

    def _quiet(unraisable: Any) -> None:
        # The timer's own exception, lost in a finalizer, is expected (the timer fires again);
        # printing it would only alarm the user. Anything else goes to the previous hook.
        if not isinstance(unraisable.exc_value, _Timeout):
            hook(unraisable)

    # The budget is CPU time (ITIMER_PROF), not wall time: on a loaded machine a file that needs
    # 0.6 s of CPU can wait 10 s for it, and a bound that fires on waiting would make the
    # findings depend on the machine's load.
    old = signal.signal(signal.SIGPROF, _expire)
    sys.unraisablehook = _quiet
    signal.setitimer(signal.ITIMER_PROF, seconds)
    try:
        yield fired
    finally:
        signal.setitimer(signal.ITIMER_PROF, 0)
        signal.signal(signal.SIGPROF, old)
        sys.unraisablehook = hook


@contextlib.contextmanager
def _untimed() -> Iterator[None]:
    """The file's CPU budget paused: for work done once a run for every file of a project (its
    files indexed and parsed for the search of callers), which is no one file's."""
    try:
        left = signal.getitimer(signal.ITIMER_PROF)[0]
    except (AttributeError, ValueError):  # no such timer on this platform
        left = 0.0
    if left > 0:
        signal.setitimer(signal.ITIMER_PROF, 0)
    try:
        yield
    finally:
        if left > 0:
            signal.setitimer(signal.ITIMER_PROF, left)


def _overran(path: str, budget: float) -> tuple[list[Finding], int]:
    return [
        Finding(
            path,
            1,
            1,
            "PL906",
            f"analysis used over {budget:g} s of CPU time and was stopped; nothing in this "
            "file was checked",
        )
    ], 0


def _binary(head: bytes) -> bool:
    return b"\x00" in head


def lint_file(
    path: str,
    kind: str,
    model: str | None,
    prices_path: str | None = None,
    provider: str | None = None,
    time_s: float | None = None,
) -> tuple[list[Finding], int]:
    """Findings of one file after its inline/front-matter/sidecar suppressions, and how many
    those suppressions hid. A file whose analysis overruns a bound (recursion, `time_s`, the
    findings cap) is one PL906 finding; the run goes on."""
    found, hidden = _bounded(path, kind, model, prices_path, provider, time_s)
    if kind == "js" and [f.code for f in found] == ["PL906"] and _minified(path):
        # A minified bundle is generated code, skipped by name (`.min.js`) and here by its
        # shape: no one writes a prompt in it, so a notice that it went unread is no finding.
        return [], 0
    if len(found) > MAX_FINDINGS_PER_FILE:
        found = [
            *found[:MAX_FINDINGS_PER_FILE],
            Finding(
                path,
                found[MAX_FINDINGS_PER_FILE].line,
                1,
                "PL906",
                f"more findings not shown: a file stops being reported at "
                f"{MAX_FINDINGS_PER_FILE} findings",
            ),
        ]
    return found, hidden


def _bounded(
    path: str,
    kind: str,
    model: str | None,
    prices_path: str | None,
    provider: str | None,
    time_s: float | None,
) -> tuple[list[Finding], int]:
    """`_lint_file` within the bounds: past one (recursion, CPU time, memory) the file is one
    PL906 finding."""
    budget = FILE_TIME_S if time_s is None else time_s
    fired: list[bool] = []
    try:
        with _time_limit(0 if kind == "trace" else budget) as fired:
            found, hidden = _lint_file(path, kind, model, prices_path, provider)
        if fired:  # the timer fired but its exception was lost: over budget all the same
            return _overran(path, budget)
    except SystemError:
        if not fired:
            raise
        return _overran(path, budget)
    except RecursionError:
        return [
            Finding(
                path,
                1,
                1,
                "PL906",
                "nested too deeply to analyse (recursion limit); nothing in this file was checked",
            )
        ], 0
    except _Timeout:
        return _overran(path, budget)
    except MemoryError:
        return [
            Finding(
                path,
                1,
                1,
                "PL906",
                "out of memory while analysing; nothing in this file was checked",
            )
        ], 0
    except Exception as exc:  # a bug of ours on code we did not foresee: the run goes on
        return [
            Finding(
                path,
                1,
                1,
                "PL906",
                f"the linter failed on this file ({type(exc).__name__}, a bug in prefixlock: "
                "please report it); nothing in this file was checked",
            )
        ], 0
    return found, hidden


# A line this long is written by a minifier, not a person.
MINIFIED_LINE = 10_000


def _minified(path: str) -> bool:
    """A JavaScript file with a line of MINIFIED_LINE characters or more: a minified bundle."""
    try:
        with open(path, "rb") as fh:
            return any(len(line) >= MINIFIED_LINE for line in fh)
    except OSError:
        return False


def _lint_file(
    path: str, kind: str, model: str | None, prices_path: str | None, provider: str | None
) -> tuple[list[Finding], int]:
    if not _regular(Path(path)):
        # Named on the command line: opening a FIFO would block, a device never end.
        return [
            Finding(
                path,
                1,
                1,
                "PL903",
                "not a regular file (a FIFO, socket, device or broken link); skipped",
            )
        ], 0
    prices = _prices(prices_path)
    sup = Suppressions()
    sidecar = path + SIDECAR_SUFFIX
    if os.path.isfile(sidecar):
        with contextlib.suppress(OSError, UnicodeDecodeError):
            parse_sidecar(path, Path(sidecar).read_text(encoding="utf-8"), sup)
    findings: list[Finding]
    lines: list[str] | None = None  # the file's text, where it is read whole
    try:
        if kind == "trace":
            with open(path, "rb") as fh:
                head = fh.read(8192)
            if _binary(head):
                return [Finding(path, 1, 1, "PL903", "binary file, not a JSONL trace")], 0
            findings = check_trace(path, prices, model, provider)
        else:
            data = Path(path).read_bytes()
            if _binary(data[:8192]):
                return [Finding(path, 1, 1, "PL903", "binary file skipped")], 0
            try:
                text = data.decode("utf-8")
            except UnicodeDecodeError as exc:
                line = data[: exc.start].count(b"\n") + 1
                return [Finding(path, line, 1, "PL903", f"not valid UTF-8: {exc.reason}")], 0
            if text.startswith("\ufeff"):
                text = text[1:]
            lines = source_lines(text)
            parse_inline(path, lines, sup)
            if kind == "python" and len(data) > MAX_PYTHON_BYTES:
                findings = [
                    Finding(
                        path,
                        1,
                        1,
                        "PL906",
                        f"{len(data):,} bytes of Python, over "
                        f"the {MAX_PYTHON_BYTES:,}-byte bound; not analysed",
                    )
                ]
            elif kind == "python":
                findings = check_python(
                    path,
                    text,
                    model,
                    prices,
                    _module_loader(path),
                    _summaries(model, prices_path),
                    _PY_CALLERS.of(path),
                    _PY_REACH,
                )
            elif kind == "js":
                # A minified bundle's names are a minifier's; read as source they mislead.
                findings = (
                    []
                    if looks_minified(text)
                    else check_js(
                        path,
                        text,
                        _js_module,
                        _js_importers,
                        checked=_js_importer_findings,
                        project_words=_js_project_words,
                    )
                )
            else:
                findings, parsed = check_text(path, text, model, prices, sup)
                if looks_like_request(parsed):
                    findings += check_request_file(path, parsed, prices, model)
    except OSError as exc:
        return [Finding(path, 1, 1, "PL903", f"cannot read: {exc.strerror}")], 0
    # One finding per value and sink, before suppressions: a suppression at any of its lines
    # still applies.
    findings = collapse(findings, lines)
    kept = [f for f in findings if not sup.covers(f)]
    return kept + sup.problems, len(findings) - len(kept)


# Imports are followed only to files inside what this run lints (its folders, a named file's
# folder) or the project it is part of (the nearest folder above with a project file): a
# module found elsewhere is not the project's. None: anywhere above the file (a file linted
# on its own, outside `lint_paths`).
_ROOTS: frozenset[str] | None = None
_PROJECT_FILES = (
    ".git",
    "pyproject.toml",
    "setup.py",
    "setup.cfg",
    "package.json",
    "tsconfig.json",
)
# Per process and lint run: where a module was found, each file's syntax tree and what the
# project's modules carry, each read and analysed once (reset by `_start_run`).
_PY_FOUND: dict[tuple[str, str], str | None] = {}
_PY_TREES: dict[str, ast.Module | None] = {}
_PY_SUMMARIES: dict[tuple[str | None, str | None], ModuleSummaries] = {}


def _start_run(roots: frozenset[str] | None) -> None:
    """Forget what an earlier run read (files may have changed) and bound imports to `roots`;
    also the initializer of each worker process."""
    global _ROOTS
    _ROOTS = roots
    _PY_FOUND.clear()
    _PY_TREES.clear()
    _PY_SUMMARIES.clear()
    _JS_MODULES.clear()
    _JS_PROJECT_FILES.clear()
    _JS_WORDS.clear()
    _JS_PROJECT_WORDS.clear()
    _JS_TEXTS.clear()
    _JS_PROJECTS.clear()
    _JS_IMPORTERS.clear()
    _JS_CHECKED.clear()
    _PY_CALLERS.clear()
    _PY_REACH.clear()


def _roots(paths: Sequence[str]) -> frozenset[str]:
    """The folders a run follows imports in: each linted folder (a named file's own) and the
    project above it."""
    out: set[str] = set()
    for p in paths:
        d = os.path.abspath(p) if os.path.isdir(p) else os.path.dirname(os.path.abspath(p))
        out.add(d)
        for _ in range(12):
            if any(os.path.exists(os.path.join(d, name)) for name in _PROJECT_FILES):
                out.add(d)
                break
            parent = os.path.dirname(d)
            if parent == d:
                break
            d = parent
    return frozenset(out)


def _within(path: str) -> bool:
    """Whether `path` (absolute) lies inside what the run lints."""
    if _ROOTS is None:
        return True
    d = os.path.dirname(path)
    while True:
        if d in _ROOTS:
            return True
        parent = os.path.dirname(d)
        if parent == d:
            return False
        d = parent


def _py_find(importer: str, module: str) -> tuple[str, ast.Module] | None:
    """The file and syntax tree of the module `importer` imports as `module` (`pkg.sub.mod`),
    found in the importer's folder or a folder above it, inside the run's roots."""
    base = os.path.dirname(os.path.abspath(importer))
    key = (base, module)
    if key not in _PY_FOUND:
        _PY_FOUND[key] = _py_locate(base, module)
    path = _PY_FOUND[key]
    if path is None:
        return None
    if path not in _PY_TREES:
        tree = None
        with contextlib.suppress(OSError, SyntaxError, ValueError, UnicodeDecodeError):
            tree = ast.parse(Path(path).read_text(encoding="utf-8"))
        _PY_TREES[path] = tree
    found = _PY_TREES[path]
    return None if found is None else (path, found)


def _py_locate(base: str, module: str) -> str | None:
    rel = module.replace(".", "/")
    d = base
    for _ in range(12):
        for cand in (f"{d}/{rel}.py", f"{d}/{rel}/__init__.py"):
            if _within(cand) and os.path.isfile(cand):
                p = Path(cand)
                if _regular(p) and p.stat().st_size <= MAX_PYTHON_BYTES:
                    return cand
        parent = os.path.dirname(d)
        if parent == d:
            break
        d = parent
    return None


def _module_loader(path: str) -> Callable[[str], ast.Module | None]:
    """Finds a module the linted file imports (`pkg.sub.mod`) as a file in a folder above it,
    parsed, for rules that read a class defined elsewhere (PL304); None when not found."""

    def load(module: str) -> ast.Module | None:
        found = _py_find(path, module)
        return None if found is None else found[1]

    return load


# The callers of a module's functions in the project's other files (`policies/pycallers.py`).
_PY_CALLERS = PyCallers(
    lambda p: _js_project(p), lambda d, m: _py_locate(d, m), _skipped_dir, _untimed
)
# Whether a function's values reach a model request anywhere in its project (its callers and
# callees found through the same search: `pycheck/projectreach.py`).
_PY_REACH = ProjectReach(_PY_CALLERS.holding, _PY_CALLERS.defining, PyCallers.norm)


def _summaries(model: str | None, prices_path: str | None) -> ModuleSummaries:
    key = (model, prices_path)
    if key not in _PY_SUMMARIES:
        _PY_SUMMARIES[key] = ModuleSummaries(_py_find, model, _prices(prices_path), os.path.abspath)
    return _PY_SUMMARIES[key]


_JS_TRIES = ("", ".ts", ".tsx", ".js", ".jsx", ".mjs", ".mts", ".cjs", ".cts")
_JS_INDEX = ("/index.ts", "/index.tsx", "/index.js", "/index.jsx", "/index.mjs")
_JS_MODULES: dict[str, Module | None] = {}  # per process: a helper module is parsed once
# Per process and lint run: each project folder's script files (bounded), the files each word
# (an identifier) occurs in, each file's text, each export's importers and each importer's own
# findings, each found once: a scan of the project per finding would be quadratic in its size.
_JS_PROJECT_FILES: dict[str, list[str]] = {}
_JS_WORDS: dict[str, dict[str, list[str]]] = {}
_JS_PROJECT_WORDS: dict[str, frozenset[str]] = {}
_JS_TEXTS: dict[str, str | None] = {}
_JS_PROJECTS: dict[str, str | None] = {}
_JS_IMPORTERS: dict[tuple[str, str], list[tuple[Source, str]]] = {}
_JS_CHECKED: dict[str, list[Finding]] = {}
_JS_PROJECT_CAP = 5000  # script files
_JS_WALK_CAP = 50_000  # entries visited (a tree of data or of another language's files)
_JS_WORD = re.compile(r"[A-Za-z_$][\w$]*")
_STAR_EXPORT = re.compile(r"\bexport\s*\*")


def _js_project(path: str) -> str | None:
    """The project `path` belongs to: the nearest folder above with a project file, inside
    what the run lints; None when there is none (a file linted on its own)."""
    start = os.path.dirname(os.path.abspath(path))
    if start in _JS_PROJECTS:
        return _JS_PROJECTS[start]
    found: str | None = None
    d = start
    for _ in range(12):
        if any(os.path.exists(os.path.join(d, name)) for name in _PROJECT_FILES):
            found = d if _ROOTS is not None and _within(os.path.join(d, "x")) else None
            break
        parent = os.path.dirname(d)
        if parent == d:
            break
        d = parent
    _JS_PROJECTS[start] = found
    return found


def _js_files(root: str) -> list[str]:
    if root not in _JS_PROJECT_FILES:
        out: list[str] = []
        seen = 0
        for d, dirs, files in os.walk(root):
            dirs[:] = sorted(x for x in dirs if not _skipped_dir(Path(d) / x, x))
            seen += len(dirs) + len(files)
            out += [
                os.path.join(d, f) for f in sorted(files) if Path(f).suffix.lower() in JS_SUFFIXES
            ]
            if len(out) > _JS_PROJECT_CAP or seen > _JS_WALK_CAP:
                out = []  # too large to search: callers in other files are not followed
                break
        _JS_PROJECT_FILES[root] = out
    return _JS_PROJECT_FILES[root]


def _js_words(root: str) -> dict[str, list[str]]:
    """The project's files by the words (identifiers) their text holds, each file read once;
    a minified bundle's names are a minifier's, and left out."""
    if root not in _JS_WORDS:
        index: dict[str, list[str]] = {}
        for f in _js_files(root):
            text = _js_text(f)
            if text is None or looks_minified(text):
                continue
            for w in set(_JS_WORD.findall(text)):
                index.setdefault(w, []).append(f)
            if _STAR_EXPORT.search(text):
                index.setdefault("*", []).append(f)  # passes on exports it does not name
        _JS_WORDS[root] = index
    return _JS_WORDS[root]


def _js_project_words(path: str) -> frozenset[str] | None:
    """The words of the project `path` belongs to (`_js_words`' index); None when the file
    has no project inside what the run lints."""
    root = _js_project(path)
    if root is None:
        return None
    if root not in _JS_PROJECT_WORDS:
        _JS_PROJECT_WORDS[root] = frozenset(_js_words(root))
    return _JS_PROJECT_WORDS[root]


def _js_text(path: str) -> str | None:
    if path not in _JS_TEXTS:
        text = None
        with contextlib.suppress(OSError, UnicodeDecodeError):
            p = Path(path)
            if _regular(p) and p.stat().st_size <= MAX_PYTHON_BYTES:
                text = p.read_text(encoding="utf-8")
        _JS_TEXTS[path] = text
    return _JS_TEXTS[path]


def _js_importer_findings(path: str, text: str) -> list[Finding]:
    """An importing file's own findings, for a helper whose clock it writes into a prompt
    (`jscheck/placedelsewhere.py`): that file's work, not the helper's, so it runs outside the
    helper's CPU budget with a budget of its own (past it, nothing is had from it), once a
    run however many helpers it imports."""
    key = os.path.normpath(os.path.abspath(path))
    if key not in _JS_CHECKED:
        found: list[Finding] = []
        with _untimed():
            try:
                with _time_limit(FILE_TIME_S) as fired:
                    found = check_js(
                        path,
                        text,
                        _js_module,
                        _js_importers,
                        elsewhere=False,
                        project_words=_js_project_words,
                    )
                if fired:
                    found = []
            except (_Timeout, SystemError, RecursionError):
                found = []  # over its own bounds: it tells the helper nothing
        _JS_CHECKED[key] = found
    return _JS_CHECKED[key]


def _js_importers(path: str, name: str) -> list[tuple[Source, str]]:
    """The other files of `path`'s project that import its export `name`, each with the local
    name they call it by (`import { AnswerSystemPrompt as P } from "./prompts"`). A file that
    reaches it in a way not followed (a namespace import, a re-export) comes with the local
    name "": its callers are not known."""
    key = (os.path.normpath(os.path.abspath(path)), name)
    if key not in _JS_IMPORTERS:
        root = _js_project(path)
        found = [] if root is None else _find_importers(root, key[0], name, os.path.isabs(path))
        _JS_IMPORTERS[key] = found
    return _JS_IMPORTERS[key]


def _find_importers(
    root: str, target: str, name: str, absolute: bool = True
) -> list[tuple[Source, str]]:
    """The files under `root` importing `target`'s export `name`; named as the run names its
    files (relative where the linted path was), since findings quote their paths."""
    out: list[tuple[Source, str]] = []

    def is_target(f: str, spec: str) -> bool:
        found = _js_module(f, spec)
        return found is not None and os.path.normpath(os.path.abspath(found.src.path)) == target

    words = _js_words(root)
    for f in sorted(set(words.get(name, []) + words.get("*", []))):
        if os.path.normpath(f) == target:
            continue
        f = f if absolute else os.path.relpath(f)
        mod = _js_module(f, "./" + os.path.basename(f))  # parsed once, shared with imports
        if mod is None:
            continue
        for local, (spec, imported) in mod.imports.items():
            if imported == name and is_target(f, spec):
                out.append((mod.src, local))
            elif imported in ("*", "default") and is_target(f, spec):
                out.append((mod.src, ""))  # `import * as prompts`: its uses are not followed
        passed = [spec for spec, remote in mod.reexports.values() if remote == name]
        if any(is_target(f, spec) for spec in passed + mod.star_exports):
            out.append((mod.src, ""))  # an index file passes it on: its importers not read
    return out


def _js_module(importer: str, spec: str) -> Module | None:
    """The TypeScript/JavaScript module `importer` imports as `spec`: relative paths (with or
    without a suffix; `./x.js` names `x.ts` in TypeScript's ESM style, a folder its index) and
    the `@/` / `~/` aliases of a `src` folder in a folder above; None when not a project file."""
    base = Path(importer).parent
    if spec.startswith((".", "/")):
        roots = [base / spec]
    elif spec.startswith(("@/", "~/")):
        roots = [p / "src" / spec[2:] for p in list(base.resolve().parents)[:8]]
        roots += [p / spec[2:] for p in list(base.resolve().parents)[:8]]
    elif spec.startswith("src/"):
        roots = [p / spec for p in list(base.resolve().parents)[:8]]
    elif "/" in spec and not spec.startswith("@") and not spec.startswith("node:"):
        # `lib/ai/prompts` under a tsconfig `baseUrl` of `src` or the project's folder: a
        # project file only where one is found there (a package's path, `lodash/fp`, is not).
        roots = [p / "src" / spec for p in list(base.resolve().parents)[:8]]
    else:
        return None
    for root in roots:
        stem = str(root)
        stems = [stem]
        if stem.endswith((".js", ".jsx", ".mjs", ".cjs")):
            stems.append(stem.rsplit(".", 1)[0])
        for st in stems:
            for tail in (*_JS_TRIES, *_JS_INDEX):
                cand = st + tail
                key = os.path.normpath(cand)
                if os.path.isabs(key) and not os.path.isabs(importer):
                    # An alias resolved through the folders above (`@/lib/x`): named as the
                    # importer is, relative, so that no finding names this machine's folders.
                    key = os.path.relpath(key)
                if key in _JS_MODULES:
                    return _JS_MODULES[key]
                cp = Path(cand)
                if (
                    cp.suffix.lower() in JS_SUFFIXES
                    and _within(os.path.abspath(cand))
                    and cp.is_file()
                    and _regular(cp)
                ):
                    mod = None
                    # Named by its normalised path: whichever importer reads it first
                    # (`tests/../server/x.js` or `server/x.js`), findings name it the same.
                    with contextlib.suppress(OSError, UnicodeDecodeError):
                        if cp.stat().st_size <= MAX_PYTHON_BYTES:
                            mod = Module(parse_js(key, cp.read_text(encoding="utf-8")), _js_module)
                    _JS_MODULES[key] = mod
                    return mod
    return None


def _chunk(
    paths: list[tuple[str, str]],
    model: str | None,
    prices_path: str | None,
    provider: str | None = None,
) -> tuple[list[Finding], int]:
    out: list[Finding] = []
    hidden = 0
    for path, kind in paths:
        found, n = lint_file(path, kind, model, prices_path, provider)
        out.extend(found)
        hidden += n
    return out, hidden


def lint_paths(
    paths: Sequence[str], config: LintConfig, jobs: int = 1, prices_path: str | None = None
) -> Result:
    files = discover(paths, config)
    roots = _roots(paths)
    try:
        return _lint_files(files, roots, config, jobs, prices_path)
    finally:
        _start_run(None)


def _lint_files(
    files: list[tuple[str, str]],
    roots: frozenset[str],
    config: LintConfig,
    jobs: int,
    prices_path: str | None,
) -> Result:
    _start_run(roots)
    traces = [(p, k) for p, k in files if k == "trace"]
    others = [(p, k) for p, k in files if k != "trace"]
    raw: list[Finding] = []
    suppressed = 0
    if jobs > 1 and len(files) > 1:
        tasks: list[list[tuple[str, str]]] = [[t] for t in traces]
        size = max(1, len(others) // (jobs * 4) or 1)
        tasks += [others[i : i + size] for i in range(0, len(others), size)]
        with ProcessPoolExecutor(
            max_workers=jobs, initializer=_start_run, initargs=(roots,)
        ) as pool:
            for part, n in pool.map(
                _chunk,
                tasks,
                [config.model] * len(tasks),
                [prices_path] * len(tasks),
                [config.provider] * len(tasks),
            ):
                raw.extend(part)
                suppressed += n
    else:
        raw, suppressed = _chunk(files, config.model, prices_path, config.provider)
    findings: list[Finding] = []
    for f in raw:
        findings += selected(f, lambda g: config.enabled(g.code, g.path))
    findings.sort(key=sort_key)
    return Result(findings, files=len(files), suppressed=suppressed)


# --- baseline ---------------------------------------------------------------------------------

BASELINE_VERSION = 1


def write_baseline(path: str, findings: list[Finding]) -> None:
    entries = [
        {"fingerprint": fp, "code": f.code, "path": f.path, "message": f.message}
        for f, fp in zip(findings, fingerprints(findings), strict=True)
    ]
    data = {"version": BASELINE_VERSION, "tool": "prefixlock-lint", "findings": entries}
    atomic_write(path, json.dumps(data, indent=2, ensure_ascii=False) + "\n")


def read_baseline(path: str) -> set[str]:
    try:
        data: Any = json.loads(Path(path).read_text(encoding="utf-8"))
    except OSError as exc:
        raise ConfigError(f"cannot read baseline: {exc.strerror}", where=path) from None
    except json.JSONDecodeError as exc:
        raise ConfigError(
            f"invalid baseline JSON: {exc.msg}", where=f"{path}:{exc.lineno}"
        ) from None
    if not isinstance(data, dict) or not isinstance(data.get("findings"), list):
        raise ConfigError("expected an object with a 'findings' list", where=path)
    return {str(e.get("fingerprint")) for e in data["findings"] if isinstance(e, dict)}


def apply_baseline(result: Result, known: Iterable[str]) -> Result:
    known_set = set(known)
    kept: list[Finding] = []
    dropped = 0
    # A baseline written before findings were collapsed (`collapse`) holds the fingerprints
    # of the findings one now stands for: any of them known keeps it baselined.
    before = expanded(result.findings)
    known_before = {
        i
        for (i, _), fp in zip(before, fingerprints([m for _, m in before]), strict=True)
        if fp in known_set
    }
    for i, (f, fp) in enumerate(zip(result.findings, fingerprints(result.findings), strict=True)):
        if fp in known_set or i in known_before:
            dropped += 1
        else:
            kept.append(f)
    result.findings = kept
    result.baselined = dropped
    return result


def atomic_write(path: str, text: str) -> None:
    """Replace `path` with `text` whole (a temporary file renamed into place)."""
    from prefixlock.atomicfile import write_text

    try:
        write_text(path, text)
    except OSError as exc:
        raise UserError(f"cannot write: {exc.strerror or exc}", where=path) from None


def lint_source(text: str, path: str = "<string>.py", model: str | None = None) -> list[Finding]:
    """Lint one file's text without touching the disk (inline suppressions apply)."""
    prices = PriceTable.builtin()
    sup = parse_inline(path, source_lines(text), Suppressions())
    if Path(path).suffix == ".py":
        found = check_python(path, text, model, prices)
    elif Path(path).suffix.lower() in JS_SUFFIXES:
        found = check_js(path, text)
    else:
        found, _ = check_text(path, text, model, prices, sup)
    return [f for f in collapse(found, source_lines(text)) if not sup.covers(f)] + sup.problems
