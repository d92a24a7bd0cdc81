"""The search of a Python project for a module-level function's callers in other files, for
`pycheck.callers` (which decides, from where they call it, whether the function runs per
request or once per conversation). Bounded as the TypeScript search is: the project's folders
are walked once a run up to a number of entries, each file is read once (its words indexed),
and only the files whose text holds the function's name are parsed, each once.
"""

from __future__ import annotations

import ast
import contextlib
import os
import re
import warnings
from collections.abc import Callable
from contextlib import AbstractContextManager
from pathlib import Path

from .pycheck.callers import UNKNOWN, Refs, call_kinds, imports_of
from .pycheck.fstrings import downlevel

_WORD = re.compile(r"[A-Za-z_]\w*")
_DEF = re.compile(r"\b(?:def|class)\s+([A-Za-z_]\w*)")


class PyCallers:
    """Per process and lint run (`clear` starts a run): the callers' kinds of each function
    asked about, each found once.

    project: a file's project folder (None: a file linted on its own, not searched);
    locate: (importing folder, dotted module) -> the module's file inside the run, or None;
    skip: (folder path, folder name) -> whether the walk leaves that folder out;
    untimed: a context in which the work done once a run for a whole project (its files
    indexed, each parsed) is not counted against the one file being linted.
    """

    FILE_CAP = 5000  # Python files of one project
    WALK_CAP = 50_000  # entries visited (a tree of data or of another language's files)
    MAX_BYTES = 1_000_000

    def __init__(
        self,
        project: Callable[[str], str | None],
        locate: Callable[[str, str], str | None],
        skip: Callable[[Path, str], bool],
        untimed: Callable[[], AbstractContextManager[None]] = contextlib.nullcontext,
    ) -> None:
        self.project = project
        self.locate = locate
        self.skip = skip
        self.untimed = untimed
        self._files: dict[str, list[str] | None] = {}
        self._words: dict[str, dict[str, list[str]]] = {}
        self._defs: dict[str, dict[str, list[str]]] = {}
        self._unread: set[str] = set()
        self._trees: dict[str, ast.Module | None] = {}
        self._kinds: dict[tuple[str, str], list[str] | None] = {}

    def clear(self) -> None:
        self._files.clear()
        self._words.clear()
        self._defs.clear()
        self._unread.clear()
        self._trees.clear()
        self._kinds.clear()

    def of(self, path: str) -> Callable[[str], list[str] | None]:
        """`pycheck.callers.Callers` for the file at `path`."""
        return lambda name: self.kinds(path, name)

    def kinds(self, path: str, name: str) -> list[str] | None:
        key = (os.path.normpath(os.path.abspath(path)), name)
        if key not in self._kinds:
            self._kinds[key] = self._search(*key)
        return self._kinds[key]

    def _search(self, target: str, name: str) -> list[str] | None:
        root = self.project(target)
        if root is None:
            return None
        index = self._index(root)
        if index is None:
            return None  # too large to search: callers elsewhere are not followed
        out: list[str] = []
        for f in index.get(name, []):
            if f == target:
                continue
            tree = self._tree(f)
            if tree is None:
                continue
            names: set[str] = set()
            prefixes: set[str] = set()
            for module, level, imported, local in imports_of(tree):
                if imported is None:
                    if self._resolve(f, module, 0) == target:
                        prefixes.add(local)
                elif imported == "*":
                    if self._resolve(f, module, level) == target:
                        out.append(UNKNOWN)  # its uses are not told apart from the file's own
                elif imported == name and self._resolve(f, module, level) == target:
                    names.add(local)
                elif self._resolve(f, f"{module}.{imported}" if module else imported, level) == (
                    target
                ):
                    prefixes.add(local)  # `from . import prompts` then `prompts.build()`
            if not names and not prefixes:
                continue
            found = call_kinds(tree, Refs(frozenset(names), frozenset(prefixes)))
            for local in names:
                out += found.get(local, [])
            if prefixes:
                out += found.get(name, [])
        return out

    @staticmethod
    def norm(path: str) -> str:
        return os.path.normpath(os.path.abspath(path))

    def holding(self, path: str, word: str) -> list[tuple[str, ast.Module]] | None:
        """The project's files whose text holds `word` (the file at `path` among them), each
        parsed (a file that does not parse left out); None where the project is not searched."""
        root = self.project(self.norm(path))
        index = None if root is None else self._index(root)
        if root is None or index is None or root in self._unread:
            return None
        return self._parsed(index.get(word, []))

    def defining(self, path: str, name: str) -> list[tuple[str, ast.Module]] | None:
        """The project's files that define a function or a class `name`, each parsed (None as
        above)."""
        root = self.project(self.norm(path))
        index = None if root is None else self._index(root)
        if root is None or index is None:
            return None
        return self._parsed(self._defs[root].get(name, []))

    def _parsed(self, files: list[str]) -> list[tuple[str, ast.Module]] | None:
        out: list[tuple[str, ast.Module]] = []
        for f in files:
            tree = self._tree(f)
            if tree is not None:  # one that does not parse is a PL901 of the run, and runs not
                out.append((f, tree))
        return out

    def _resolve(self, importer: str, module: str, level: int) -> str | None:
        """The file of `module` as `importer` imports it (relative at `level`), normalised."""
        if level == 0:
            found = self.locate(os.path.dirname(importer), module)
            return None if found is None else os.path.normpath(os.path.abspath(found))
        base = os.path.dirname(importer)
        for _ in range(level - 1):
            base = os.path.dirname(base)
        rel = module.replace(".", "/")
        for cand in (
            (f"{base}/{rel}.py", f"{base}/{rel}/__init__.py") if rel else (f"{base}/__init__.py",)
        ):
            if os.path.isfile(cand):
                return os.path.normpath(cand)
        return None

    def _index(self, root: str) -> dict[str, list[str]] | None:
        """The project's Python files by the words their text holds, each read once."""
        if root not in self._files:
            with self.untimed():
                self._build(root)
        return None if self._files[root] is None else self._words[root]

    def _build(self, root: str) -> None:
        if root not in self._files:
            self._files[root] = self._walk(root)
            index: dict[str, list[str]] = {}
            defs: dict[str, list[str]] = {}
            for f in self._files[root] or []:
                text = self._text(f)
                if text is None:
                    self._unread.add(root)  # its calls are not seen: no caller is known
                    continue
                for w in set(_WORD.findall(text)):
                    index.setdefault(w, []).append(f)
                for w in set(_DEF.findall(text)):
                    defs.setdefault(w, []).append(f)
            self._words[root] = index
            self._defs[root] = defs

    def _walk(self, root: str) -> list[str] | None:
        out: list[str] = []
        seen = 0
        for d, dirs, files in os.walk(root):
            dirs[:] = sorted(x for x in dirs if not self.skip(Path(d) / x, x))
            seen += len(dirs) + len(files)
            out += [
                os.path.normpath(os.path.abspath(os.path.join(d, f)))
                for f in sorted(files)
                if f.endswith(".py")
            ]
            if len(out) > self.FILE_CAP or seen > self.WALK_CAP:
                return None
        return out

    def _text(self, path: str) -> str | None:
        with contextlib.suppress(OSError, UnicodeDecodeError):
            p = Path(path)
            if p.is_file() and p.stat().st_size <= self.MAX_BYTES:
                return p.read_text(encoding="utf-8")
        return None

    def _tree(self, path: str) -> ast.Module | None:
        if path not in self._trees:
            with self.untimed():
                self._parse(path)
        return self._trees[path]

    def _parse(self, path: str) -> None:
        if path not in self._trees:
            tree = None
            text = self._text(path)
            if text is not None:
                # The project's own warnings (an invalid escape in its strings) are not ours
                # to print.
                with (
                    warnings.catch_warnings(),
                    contextlib.suppress(SyntaxError, ValueError, RecursionError),
                ):
                    warnings.simplefilter("ignore")
                    try:
                        tree = ast.parse(text)
                    except SyntaxError:
                        # a Python 3.12 f-string read by an older Python, as the linter reads it
                        fixed = downlevel(text)
                        if fixed is None:
                            raise
                        tree = ast.parse(fixed)
            self._trees[path] = tree
