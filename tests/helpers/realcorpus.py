"""The held-out real-code corpora (tests/policies/corpus/realN): a folder's manifest and labels and
the checks that they hold together, the repositories earlier corpora name, and a half scored by
the folder's `score.py` (in a subprocess, as the corpus's RESULTS.md runs it) checked against the
figures pinned as floors."""

from __future__ import annotations

import csv
import importlib.util
import re
import subprocess
import sys
import tomllib
from collections import Counter
from collections.abc import Iterable, Mapping
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

#: Per language ("ts", "py"): (found, labelled) for "volatile" and "structural", and (true, all)
#: findings for "precision".
Figures = dict[str, dict[str, tuple[int, int]]]

_REPO = re.compile(r"[A-Za-z0-9][\w.-]*/[A-Za-z0-9][\w.-]*")
_LINE = re.compile(
    r"^\s+(ts|py): volatile recall (\d+)/(\d+), structural recall (\d+)/(\d+), "
    r"precision (\d+)/(\d+)$"
)


def manifest(folder: Path) -> list[dict[str, str]]:
    """The folder's MANIFEST.tsv rows: one per drawn file."""
    with open(folder / "MANIFEST.tsv", encoding="utf-8") as fh:
        return list(csv.DictReader(fh, delimiter="\t"))


def candidates(folder: Path) -> list[str]:
    """The repositories of a corpus's CANDIDATES.tsv, in the order they were listed."""
    lines = (folder / "CANDIDATES.tsv").read_text(encoding="utf-8").splitlines()
    return [ln.split("\t")[1] for ln in lines if ln and not ln.startswith("#")]


def skipped(folder: Path) -> set[str]:
    """The candidates SKIPPED.txt names (each line `owner/name: why`)."""
    text = (folder / "SKIPPED.txt").read_text(encoding="utf-8")
    return {ln.split(":")[0] for ln in text.splitlines() if ln}


def breakers_by_half(folder: Path) -> Counter[tuple[str, str]]:
    """The labelled breakers counted by (half, kind), the half being their project's."""
    halves = {r["repo"]: r["half"] for r in manifest(folder)}
    return Counter(
        (halves[b["repo"]], b["kind"]) for b in records(folder, "labels.toml")["breaker"]
    )


def records(folder: Path, name: str) -> dict[str, Any]:
    """One of the folder's TOML records (labels.toml, findings.toml)."""
    return tomllib.loads((folder / name).read_text(encoding="utf-8"))


def assert_labels_hold(folder: Path, at_least: int) -> None:
    """At least `at_least` breakers, each on a drawn file, of a known kind, at one of its own
    lines, with a reason; every judged finding on a drawn file, of a half, with a reason."""
    drawn = {(r["repo"], r["path"]) for r in manifest(folder)}
    breakers = records(folder, "labels.toml")["breaker"]
    assert len(breakers) >= at_least
    for b in breakers:
        assert (b["repo"], b["file"]) in drawn, b
        assert b["kind"] in ("volatile", "structural"), b
        assert b["line"] in b["lines"] and len(b["why"]) > 20, b
    for f in records(folder, "findings.toml").get("finding", []):
        assert (f["repo"], f["file"]) in drawn, f
        assert isinstance(f["label"], bool) and f["half"] in ("dev", "test"), f
        assert len(f["why"]) > 20, f


def assert_first_draw(
    folder: Path, quota: tuple[int, int] = (20, 20)
) -> dict[str, tuple[str, str]]:
    """real10's and later corpora's draw: the first draw's rows come first (stratum 1 first),
    `quota` projects (TypeScript, Python; 20 a language unless a corpus states others) each
    language split evenly, and every file keeps its project's language and half at a recorded
    commit. Returns each project's (language, half)."""
    rows = manifest(folder)
    projects = {r["repo"]: (r["lang"], r["half"]) for r in rows}
    first = list(dict.fromkeys(r["repo"] for r in rows if r["stratum"] == "1"))[: sum(quota)]
    assert Counter(projects[p][0] for p in first) == {"ts": quota[0], "py": quota[1]}
    for lang in ("ts", "py"):
        halves = Counter(projects[p][1] for p in first if projects[p][0] == lang)
        assert abs(halves["dev"] - halves["test"]) <= 1, (lang, halves)
    for r in rows:
        assert projects[r["repo"]] == (r["lang"], r["half"]), r
        assert re.fullmatch(r"[0-9a-f]{40}", r["commit"]) and r["license"], r
        assert r["stratum"] in ("1", "2", "3"), r
    return projects


def named_repositories(folders: Iterable[Path]) -> set[str]:
    """Every owner/name written anywhere in the folders' records (lower case)."""
    names: set[str] = set()
    for folder in folders:
        for path in folder.iterdir():
            if path.suffix in (".tsv", ".md", ".txt", ".py", ".toml") and path.is_file():
                names |= {m.lower() for m in _REPO.findall(path.read_text(encoding="utf-8"))}
    return names


def figures(out: str) -> Figures:
    """The per-language lines a score.py run prints."""
    found: Figures = {}
    for m in filter(None, map(_LINE.match, out.splitlines())):
        n = [int(x) for x in m.groups()[1:]]
        found[m.group(1)] = {
            "volatile": (n[0], n[1]),
            "structural": (n[2], n[3]),
            "precision": (n[4], n[5]),
        }
    return found


def score_half(folder: Path, half: str) -> Figures:
    """Extract the folder's files from the project snapshots (skip where they are not on this
    machine) and score `half`; every finding must be labelled."""
    score = str(folder / "score.py")
    extract = subprocess.run(
        [sys.executable, score, "--extract"], capture_output=True, text=True, timeout=600
    )
    if extract.returncode != 0:
        pytest.skip(f"{folder.name}'s project snapshots are not on this machine")
    run = subprocess.run(
        [sys.executable, score, "--half", half], capture_output=True, text=True, timeout=600
    )
    # exit 1: a finding no label accounts for; read it and judge it in findings.toml
    assert run.returncode == 0, [ln for ln in run.stdout.splitlines() if "UNLABELLED" in ln]
    return figures(run.stdout)


def assert_floors(got: Figures, floors: Mapping[str, Mapping[str, tuple[int, int]]]) -> None:
    """The same breakers labelled, at least as many found, and a precision at least the
    floor's (a later rule may find more and must not find less)."""
    for lang, floor in floors.items():
        mine = got[lang]
        for kind in ("volatile", "structural"):
            assert mine[kind][1] == floor[kind][1], (lang, kind, mine[kind])
            assert mine[kind][0] >= floor[kind][0], (lang, kind, mine[kind])
        true, every = mine["precision"]
        assert true * floor["precision"][1] >= floor["precision"][0] * every, (lang, true, every)


def assert_list_ended(folder: Path, untried: int = 0) -> None:
    """Every drawn or skipped project is a candidate, none is both, and the list ended: every
    candidate was drawn or skipped (the amendments of real11 and later say so), except, where
    drawing stopped on the fetch allowance, `untried` candidates in one unbroken run of the
    listed order (nothing after them in the run was taken before them)."""
    order = candidates(folder)
    drawn = {r["repo"] for r in manifest(folder)}
    left_out = skipped(folder)
    assert drawn <= set(order) and left_out <= set(order)
    assert not drawn & left_out
    rest = [at for at, name in enumerate(order) if name not in drawn | left_out]
    assert len(rest) == untried, [order[at] for at in rest]
    if rest:
        assert rest == list(range(rest[0], rest[0] + untried)), rest


def assert_none_listed_before(folder: Path, earlier: Iterable[Path]) -> None:
    """No candidate is a repository an earlier corpus names (compared case-insensitively)."""
    named = named_repositories(earlier)
    listed = {n.lower() for n in candidates(folder)}
    assert not listed & named, listed & named


def assert_steps_split(
    folder: Path,
    steps: Iterable[int],
    first: int = 40,
    more: Iterable[int] = (),
    step_strata: frozenset[str] = frozenset({"3"}),
) -> None:
    """The volatile steps after the first draw's `first` projects, of the sizes the amendment
    gives in order: files of `step_strata` only (stratum 3 in real10's draw; real28's role draw
    takes a volatile step's projects whole, strata 1 and 2), each step split evenly within a
    language (the halves may differ by one project overall, since each step is split on its
    own). `more`: the sizes of the steps with all three strata drawn after them (real18's
    amendment 2), split alike."""
    sizes = [(n, True) for n in steps] + [(n, False) for n in more]
    rows = manifest(folder)
    order = list(dict.fromkeys(r["repo"] for r in rows))
    projects = {r["repo"]: (r["lang"], r["half"]) for r in rows}
    later = order[first:]
    assert len(later) == sum(n for n, _ in sizes)
    at = 0
    for size, volatile in sizes:
        step = later[at : at + size]
        at += size
        if volatile:
            assert all(r["stratum"] in step_strata for r in rows if r["repo"] in step)
        for lang in ("ts", "py"):
            halves = Counter(projects[p][1] for p in step if projects[p][0] == lang)
            assert abs(halves["dev"] - halves["test"]) <= 1, (lang, halves)


def load_sample(folder: Path) -> ModuleType:
    """The folder's sample.py as a module (each call loads it afresh)."""
    spec = importlib.util.spec_from_file_location(f"{folder.name}_sample", folder / "sample.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def strata(sample: ModuleType) -> dict[int, tuple[str, int, tuple[object, ...]]]:
    """Each stratum's scorer by its code and the patterns it closes over (a module loaded twice
    gives new function objects with the same code), and the files it takes a project."""
    out: dict[int, tuple[str, int, tuple[object, ...]]] = {}
    for stratum, (scorer, per_project) in sample.DRAW.strata.items():
        cells = tuple(c.cell_contents for c in scorer.__closure__ or ())
        kept = tuple(c for c in cells if isinstance(c, str | int))
        out[stratum] = (scorer.__code__.co_qualname, per_project, kept)
    return out


def assert_real10s_draw(folder: Path, want: int = 20) -> None:
    """The folder's sample.py takes real10's three strata as they are and draws `want` projects
    a language (20 unless a corpus states another quota)."""
    real10, here = load_sample(folder.parent / "real10"), load_sample(folder)
    assert strata(here) == strata(real10)
    assert set(strata(here)) == {1, 2, 3}
    assert here.DRAW.want == {"ts": want, "py": want}
    assert here.DRAW.here == folder


def assert_role_draw(folder: Path, want: int) -> None:
    """real28's draw by the file's role: its sample.py runs the shared draw (`realsample.Draw`)
    with `want` projects a language, stratum 1 is each project's listed path (the number in its
    category names the path in PROCEDURE.md's list) and stratum 2 at most two other files."""
    here = load_sample(folder)
    assert issubclass(here.PathDraw, here.rs.Draw)
    assert (here.QUOTA, set(here.STRATA), here.IMPORTS) == (want, {1, 2}, 2)
    rows = manifest(folder)
    for r in rows:
        if r["stratum"] == "1":
            assert r["path"] == here.path_of(r["category"]), r
    per_project = Counter(r["repo"] for r in rows if r["stratum"] == "2")
    assert max(per_project.values(), default=0) <= here.IMPORTS


def assert_manifest_draw(folder: Path, want: int, draw: str = "ManifestDraw") -> None:
    """real30's draw by the project's manifest (and real34's by cache markers, its `draw` class
    CacheDraw): its sample.py runs the shared draw (`realsample.Draw`) with `want` projects a
    language, one stratum-1 file a project (the file that calls the SDK, or names a cache
    marker, on most lines, at most MAX_LINES long) and at most two stratum-2 files."""
    here = load_sample(folder)
    assert issubclass(getattr(here, draw), here.rs.Draw)
    assert (here.QUOTA, set(here.STRATA), here.IMPORTS) == (want, {1, 2}, 2)
    rows = manifest(folder)
    firsts = Counter(r["repo"] for r in rows if r["stratum"] == "1")
    assert set(firsts.values()) == {1} and set(firsts) == {r["repo"] for r in rows}
    assert all(int(r["lines"]) <= here.rs.MAX_LINES for r in rows)
    per_project = Counter(r["repo"] for r in rows if r["stratum"] == "2")
    assert max(per_project.values(), default=0) <= here.IMPORTS
