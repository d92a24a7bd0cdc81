"""The scorer shared by the real-code corpora real2 to real19 (each folder's score.py calls it
with its own folder): recall of the breakers labelled by reading (`labels.toml`), precision over
every finding (each labelled true or false by reading in `findings.toml`), per half (`dev`,
`test`) and per language.

    python tests/policies/corpus/realN/score.py --extract [--mirror DIR]   # fill files/
    python tests/policies/corpus/realN/score.py --half dev                # score a half

`--extract` writes, for each sampled project, its source tree at the recorded commit from bare
clones under DIR (`owner+name/repo`, default /work/.mirror): the script files and project files
the linter reads around a file, not only the sampled files. A user runs the linter inside the
project, and whether a request re-sends a prefix often depends on a caller or a helper in
another of its files; the labels were made with the project as context, so the files are scored
with it. Only the sampled files are linted (as a user who names one), and only findings in them
are counted. The files are third-party code and stay out of the repository (files/ is ignored).
A finding not yet in findings.toml is printed as `UNLABELLED` and counted as neither true nor
false until it is read and labelled.
"""

from __future__ import annotations

import argparse
import csv
import fcntl
import re
import shutil
import subprocess
import sys
import tomllib
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any

from prefixlock.policies.collapse import related_lines
from prefixlock.policies.config import LintConfig
from prefixlock.policies.engine import (
    _PROJECT_FILES,
    _SKIPPED_DIRS,
    MAX_PYTHON_BYTES,
    lint_paths,
)
from prefixlock.policies.findings import Finding
from prefixlock.policies.jscheck.syntax import JS_SUFFIXES

VOLATILE = ("PL1", "PL2")
STRUCTURAL = ("PL3",)


@dataclass(frozen=True)
class Corpus:
    """One corpus folder and the scoring rule its PROCEDURE.md states.

    ranks: the manifest ranks that are labelled and scored (None: every row; real2 has no rank).
    matched: each breaker found by a finding of its own, located at the value's line where the
    message names one (real3, real4); False: any finding of the family on a labelled line
    counts (real2, scored so before the matching rule existed).
    """

    here: Path
    ranks: tuple[str, ...] | None = None
    matched: bool = True

    @property
    def files(self) -> Path:
        return self.here / "files"

    def manifest(self) -> list[dict[str, str]]:
        with open(self.here / "MANIFEST.tsv", encoding="utf-8") as fh:
            rows = list(csv.DictReader(fh, delimiter="\t"))
        return [r for r in rows if self.ranks is None or r["rank"] in self.ranks]

    def local(self, row: dict[str, str]) -> Path:
        return self.files / row["lang"] / row["repo"].replace("/", "+") / row["path"]


# What `extract` writes of a sampled file's project: what the linter reads around a file it is
# given (imports followed, callers searched for in the project's other files): the script
# files, and the files that mark the project's root (the engine's list; `.git`, which a user's
# checkout has, is written as an empty folder). Folders the engine's walk leaves out are left
# out, as are files it never reads: a minified bundle by name, and a file over its size bound.
_SCRIPTS = frozenset({".py", *JS_SUFFIXES})
_ROOT_FILES = frozenset(_PROJECT_FILES) - {".git"}
# A project over either bound gets its sampled files only (said on stderr). The engine stops
# searching a project for callers past 5000 script files, so more would change no finding; the
# byte bound keeps a whole corpus's extraction to a minute or two and its disk use small.
PROJECT_FILES_CAP = 5000
PROJECT_BYTES_CAP = 64_000_000


def _snapshot(mirror: Path, repo: str) -> Path | None:
    git = mirror / repo.replace("/", "+") / "repo"
    # a few snapshots come from the fetch tool as `repo/.git` (a clone without its work
    # tree) rather than a bare `repo`; realsample.open_snapshot reads them the same way
    if (git / ".git").is_dir():
        git = git / ".git"
    return git if git.is_dir() else None


def _wanted(path: str, size: int, venvs: set[str]) -> bool:
    """Whether the linter would read the tree's file `path` (of `size` bytes) around a file."""
    parts = path.split("/")
    folders = parts[:-1]
    if any(_skipped_name(d) for d in folders):
        return False
    if any("/".join(folders[: i + 1]) in venvs for i in range(len(folders))):
        return False  # a virtual environment, known by its pyvenv.cfg
    name = parts[-1]
    if name in _ROOT_FILES:
        return True
    suffix = PurePosixPath(name).suffix.lower()
    return suffix in _SCRIPTS and not name.endswith(".min.js") and size <= MAX_PYTHON_BYTES


def _skipped_name(name: str) -> bool:
    return name in _SKIPPED_DIRS or name.endswith(".egg-info")


def project_files(git: Path, commit: str, sampled: set[str]) -> list[tuple[str, str]] | None:
    """(path, blob) of the files `extract` writes of the project at `commit`: the sampled ones
    and every file the linter reads around them; None when the project is over the bounds."""
    listing = subprocess.run(
        ["git", "--git-dir", str(git), "ls-tree", "-r", "-l", "-z", commit],
        capture_output=True,
        check=True,
    ).stdout.decode("utf-8", "surrogateescape")
    entries: list[tuple[str, str, int]] = []
    for item in filter(None, listing.split("\0")):
        meta, path = item.split("\t", 1)
        mode, kind, blob, size = meta.split()
        # no links, no submodules; a blob the snapshot lacks (its size is listed as BAD: the
        # fetch leaves a repository's largest files out) cannot be written
        if kind == "blob" and mode in ("100644", "100755") and size.isdigit():
            entries.append((path, blob, int(size)))
    venvs = {p.rsplit("/", 1)[0] for p, _, _ in entries if p.endswith("/pyvenv.cfg")}
    kept = [(p, b, n) for p, b, n in entries if p in sampled or _wanted(p, n, venvs)]
    if len(kept) > PROJECT_FILES_CAP or sum(n for _, _, n in kept) > PROJECT_BYTES_CAP:
        return None
    return [(p, b) for p, b, _ in kept]


def _write_blobs(git: Path, files: list[tuple[str, str]], dest: Path) -> None:
    """Write each (path, blob) under `dest`, all read through one `git cat-file --batch`."""
    if not files:
        return
    feed = "".join(f"{blob}\n" for _, blob in files).encode()
    out = subprocess.run(
        ["git", "--git-dir", str(git), "cat-file", "--batch"],
        input=feed,
        capture_output=True,
        check=True,
    ).stdout
    at = 0
    for path, _ in files:
        header_end = out.index(b"\n", at)
        size = int(out[at:header_end].split()[2])
        body = out[header_end + 1 : header_end + 1 + size]
        at = header_end + 1 + size + 1  # the body is followed by a newline
        target = dest / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(body)


# What one extraction of a project wrote, kept in its `.git` marker (a folder the engine's walk
# skips): a later run that would write the same skips the project. Bump the version when what
# `project_files` keeps changes.
_STAMP_VERSION = 1


def _stamp(rows: list[dict[str, str]]) -> str:
    commits = sorted({r["commit"] for r in rows})
    paths = sorted(r["path"] for r in rows)
    bounds = (PROJECT_FILES_CAP, PROJECT_BYTES_CAP, MAX_PYTHON_BYTES)
    return f"{_STAMP_VERSION} {bounds} {commits} {paths}\n"


def extract(corpus: Corpus, mirror: Path) -> int:
    """Write each sampled file's project at its recorded commit (`project_files`) into
    files/<lang>/<owner+name>/, replacing what an earlier run wrote there unless it wrote the
    same; the number of rows whose snapshot is not here (skipped).

    Runs are serialised by a lock in files/, and a project already written the same way is not
    touched: the slow tests score a corpus's two halves in parallel workers, each extracting
    first, and one must not delete the files the other is linting."""
    missing = 0
    projects: dict[tuple[str, str], list[dict[str, str]]] = {}
    for row in corpus.manifest():
        projects.setdefault((row["lang"], row["repo"]), []).append(row)
    corpus.files.mkdir(parents=True, exist_ok=True)
    with open(corpus.files / ".extract.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        for (lang, repo), rows in projects.items():
            git = _snapshot(mirror, repo)
            if git is None:
                # a session fetches only the repositories of the language it works on
                print(f"skipped, no mirror: {repo}", file=sys.stderr)
                missing += len(rows)
                continue
            _extract_project(git, rows, corpus.files / lang / repo.replace("/", "+"))
    return missing


def _extract_project(git: Path, rows: list[dict[str, str]], dest: Path) -> None:
    stamp = dest / ".git" / "extracted"
    if stamp.is_file() and stamp.read_text(encoding="utf-8") == _stamp(rows):
        return
    shutil.rmtree(dest, ignore_errors=True)
    commits = {r["commit"] for r in rows}
    files = None
    if len(commits) == 1:
        files = project_files(git, rows[0]["commit"], {r["path"] for r in rows})
    if files is None:
        # one folder holds one tree: a project sampled at two commits, or over the bounds, is
        # written as its sampled files alone
        why = "sampled at two commits" if len(commits) > 1 else "over the bounds"
        print(f"project {why}, its sampled files only: {rows[0]['repo']}", file=sys.stderr)
        for r in rows:
            _write_blobs(git, [(r["path"], f"{r['commit']}:{r['path']}")], dest)
    else:
        _write_blobs(git, files, dest)
    # the project's root, as a user's checkout marks it, so that the engine's search for a
    # project stops here (not at a project file of the repository the corpus is in); the
    # stamp last, so that an interrupted run is done again
    stamp.parent.mkdir(parents=True, exist_ok=True)
    stamp.write_text(_stamp(rows), encoding="utf-8")


def lines_of(f: Finding) -> set[int]:
    """The lines a finding points at: the value's, where its message names one ("is a date
    value (new Date(), line 18)"), else its own and those of the findings collapsed into it
    (one value reaching one prompt is one finding, `policies/collapse.py`, and each of those
    lines was a finding of its own before). A sink shared by several values is no line of any
    one of them."""
    named = re.search(r" value \(.*?, line (\d+)\) that reaches ", f.message)
    return {int(named.group(1))} if named else {f.line, *related_lines(f)}


def match(edges: dict[int, list[int]]) -> set[int]:
    """The breakers found, each by a finding of its own (a maximum bipartite matching): one
    finding at a sink shared by several breakers finds one of them, not all."""
    owner: dict[int, int] = {}

    def augment(i: int, seen: set[int]) -> bool:
        for j in edges[i]:
            if j in seen:
                continue
            seen.add(j)
            if j not in owner or augment(owner[j], seen):
                owner[j] = i
                return True
        return False

    for i in edges:
        augment(i, set())
    return set(owner)


def score(corpus: Corpus, half: str, stratum: str | None = None) -> int:
    rows = [
        r
        for r in corpus.manifest()
        if r["half"] == half and (stratum is None or r.get("stratum", "1") == stratum)
    ]
    missing = [r for r in rows if not corpus.local(r).is_file()]
    for r in missing:
        print(f"skipped, not extracted: {r['repo']}/{r['path']}", file=sys.stderr)
    rows = [r for r in rows if r not in missing]
    labels = tomllib.loads((corpus.here / "labels.toml").read_text(encoding="utf-8"))
    seen = tomllib.loads((corpus.here / "findings.toml").read_text(encoding="utf-8"))
    judged = {(f["repo"], f["file"], f["line"], f["code"]): f for f in seen.get("finding", [])}
    paths = {(r["repo"], r["path"]) for r in rows}
    breakers = [b for b in labels.get("breaker", []) if (b["repo"], b["file"]) in paths]
    by_file = {str(corpus.local(r)): r for r in rows}
    result = lint_paths(
        [str(corpus.local(r)) for r in rows], LintConfig(model="claude-sonnet-4-6"), jobs=1
    )
    unlabelled = 0
    stats: dict[str, dict[str, int]] = {
        lang: {"true": 0, "false": 0, "vol": 0, "vol_hit": 0, "str": 0, "str_hit": 0}
        for lang in ("ts", "py")
    }

    def hits(b: dict[str, Any], row: dict[str, str], f: Finding) -> bool:
        fam = VOLATILE if b["kind"] == "volatile" else STRUCTURAL
        # unmatched: any line the finding stands for (one value's lines collapsed into it)
        at = lines_of(f) if corpus.matched else {f.line, *related_lines(f)}
        return (
            b["repo"] == row["repo"]
            and b["file"] == row["path"]
            and f.code.startswith(fam)
            and bool(at & set(b["lines"]))
        )

    edges: dict[int, list[int]] = {}
    # a finding is counted where a user who names the sampled file sees it: in that file (the
    # project around it is read, not reported on)
    for i, f in enumerate(f for f in result.findings if f.path in by_file):
        row = by_file[f.path]
        key = (row["repo"], row["path"], f.line, f.code)
        edges[i] = [j for j, b in enumerate(breakers) if hits(b, row, f)]
        verdict = judged.get(key)
        if edges[i]:
            stats[row["lang"]]["true"] += 1
            print(f"TRUE       {row['repo']}/{row['path']}:{f.line} {f.code} {f.message}")
        elif verdict is not None:
            stats[row["lang"]]["true" if verdict["label"] else "false"] += 1
            tag = "TRUE" if verdict["label"] else "FALSE"
            print(f"{tag:10} {row['repo']}/{row['path']}:{f.line} {f.code} {f.message}")
        else:
            unlabelled += 1
            print(f"UNLABELLED {row['repo']}/{row['path']}:{f.line} {f.code} {f.message}")
    found = match(edges) if corpus.matched else {j for e in edges.values() for j in e}
    for j, b in enumerate(breakers):
        lang = next(r["lang"] for r in rows if r["repo"] == b["repo"])
        hit = j in found
        s = stats[lang]
        s["vol" if b["kind"] == "volatile" else "str"] += 1
        s["vol_hit" if b["kind"] == "volatile" else "str_hit"] += hit
        where = f"{b['repo']}/{b['file']}:{b['line']}"
        print(f"{'found' if hit else 'MISSED':10} {b['kind']:10} {where}")
    print(f"\n{half}{f' (stratum {stratum})' if stratum else ''}: {len(rows)} files")
    for lang, s in stats.items():
        n = s["true"] + s["false"]
        print(
            f"  {lang}: volatile recall {s['vol_hit']}/{s['vol']}, structural recall "
            f"{s['str_hit']}/{s['str']}, precision {s['true']}/{n}"
        )
    return 1 if unlabelled else 0


def main(corpus: Corpus) -> int:
    p = argparse.ArgumentParser()
    p.add_argument("--extract", action="store_true")
    p.add_argument("--mirror", default="/work/.mirror")
    p.add_argument("--half", choices=("dev", "test"))
    p.add_argument("--stratum", help="score one stratum of a corpus that has them (real4)")
    a = p.parse_args()
    if a.extract and extract(corpus, Path(a.mirror)) and not a.half:
        return 1  # some snapshots are not here: the corpus is not whole (tests skip it)
    return score(corpus, a.half, a.stratum) if a.half else 0
