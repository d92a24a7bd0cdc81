"""The held-out real-code corpora (tests/policies/corpus/realN): the repositories earlier corpora
name, and a half scored by its folder's `score.py` (in a subprocess, as the corpus's RESULTS.md
runs it) checked against the figures pinned as floors."""

from __future__ import annotations

import re
import subprocess
import sys
from collections.abc import Iterable, Mapping
from pathlib import Path

import pytest

#: Per language ("ts", "py"): (found, labelled) for "volatile" and "structural", and (true, all)
#: findings for "precision".
Figures = dict[str, dict[str, tuple[int, int]]]

_REPO = re.compile(r"[A-Za-z0-9][\w.-]*/[A-Za-z0-9][\w.-]*")
_LINE = re.compile(
    r"^\s+(ts|py): volatile recall (\d+)/(\d+), structural recall (\d+)/(\d+), "
    r"precision (\d+)/(\d+)$"
)


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
