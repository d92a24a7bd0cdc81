"""The scorer shared by the real-code corpora real2, real3 and real4 (each folder's score.py
calls it with its own folder): recall of the breakers labelled by reading (`labels.toml`),
precision over every finding (each labelled true or false by reading in `findings.toml`), per
half (`dev`, `test`) and per language.

    python tests/policies/corpus/realN/score.py --extract [--mirror DIR]   # fill files/
    python tests/policies/corpus/realN/score.py --half dev                # score a half

`--extract` writes each selected file at its recorded commit from bare clones under DIR
(`owner+name/repo`, default /work/.mirror). The files are third-party code and stay out of the
repository (files/ is ignored). A finding not yet in findings.toml is printed as `UNLABELLED`
and counted as neither true nor false until it is read and labelled.
"""

from __future__ import annotations

import argparse
import csv
import re
import subprocess
import sys
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from prefixlock.policies.config import LintConfig
from prefixlock.policies.engine import lint_paths
from prefixlock.policies.findings import Finding

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


def extract(corpus: Corpus, mirror: Path) -> int:
    """Write each row's file; the number of rows whose snapshot is not here (skipped)."""
    missing = 0
    for row in corpus.manifest():
        git = mirror / row["repo"].replace("/", "+") / "repo"
        # a few snapshots come from the fetch tool as `repo/.git` (a clone without its work
        # tree) rather than a bare `repo`; realsample.open_snapshot reads them the same way
        if (git / ".git").is_dir():
            git = git / ".git"
        if not git.is_dir():
            # a session fetches only the repositories of the language it works on
            print(f"skipped, no mirror: {row['repo']}", file=sys.stderr)
            missing += 1
            continue
        out = subprocess.run(
            ["git", "--git-dir", str(git), "show", f"{row['commit']}:{row['path']}"],
            capture_output=True,
            check=True,
        ).stdout
        dest = corpus.local(row)
        dest.parent.mkdir(parents=True, exist_ok=True)
        dest.write_bytes(out)
    return missing


def lines_of(f: Finding) -> set[int]:
    """The lines a finding points at: the value's, where its message names one ("is a date
    value (new Date(), line 18)"), else its own. A sink shared by several values is no line of
    any one of them."""
    named = re.search(r" value \(.*?, line (\d+)\) that reaches ", f.message)
    return {int(named.group(1))} if named else {f.line}


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
        at = lines_of(f) if corpus.matched else {f.line}
        return (
            b["repo"] == row["repo"]
            and b["file"] == row["path"]
            and f.code.startswith(fam)
            and bool(at & set(b["lines"]))
        )

    edges: dict[int, list[int]] = {}
    for i, f in enumerate(result.findings):
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
