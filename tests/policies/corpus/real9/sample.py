"""Select real9's files by the grep rules in PROCEDURE.md (two strata, stated before anything
was fetched) and write MANIFEST.tsv and SKIPPED.txt.

    python tests/policies/corpus/real9/sample.py [--mirror DIR]           # the first draw
    python tests/policies/corpus/real9/sample.py [--mirror DIR] --more N  # N more a language
    (--upto K: consider only the first K candidates, those whose fetch was tried)

Reads each project's snapshot (a bare clone under DIR/owner+name/repo) at HEAD through the
shared sampler ../realsample.py, with real7's patterns and real8's strata, unchanged; never
reads a file's meaning, only counts matching lines and eligible files.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE.parent / "real7"))

import realsample as rs  # noqa: E402
from sample import clock_near  # noqa: E402  (real7's stratum 2, its patterns unchanged)

WANT = {"ts": 20, "py": 20}
HEADER = "lang\trepo\tpath\tcommit\tlicense\tlines\tscore\trank\thalf\tstratum\tcategory\n"
Scorer = Callable[[rs.Snapshot], dict[str, int]]

# stratum: (how files are scored, files a project); real7's stratum 3 is not drawn.
STRATA: dict[int, tuple[Scorer, int]] = {
    1: (rs.both(rs.PROMPT, rs.CALL), 1),
    2: (clock_near, 1),
}


def candidates() -> list[tuple[str, str]]:
    """(category, owner/name) in the order taken."""
    out: list[tuple[str, str]] = []
    for line in (HERE / "CANDIDATES.tsv").read_text(encoding="utf-8").splitlines():
        if line and not line.startswith("#"):
            category, name = line.split("\t")
            out.append((category, name))
    return out


def open_snapshot(mirror: Path, name: str) -> rs.Snapshot | None:
    """The project's snapshot; a few came from the fetch tool as `repo/.git` (a clone without
    its work tree) rather than a bare `repo`, and are read the same way."""
    inner = mirror / name.replace("/", "+") / "repo" / ".git"
    if inner.is_dir():
        commit = rs.git(inner, "rev-parse", "HEAD").decode().strip()
        return rs.Snapshot(name, inner, commit)
    return rs.Snapshot.open(mirror, name)


def language(snap: rs.Snapshot) -> str:
    """TypeScript when the snapshot has at least as many eligible TS/JS files as Python ones."""
    paths = snap.paths()
    ts = sum(rs.eligible(p, "ts") for p in paths)
    py = sum(rs.eligible(p, "py") for p in paths)
    return "ts" if ts >= py else "py"


def draw(snap: rs.Snapshot, lang: str) -> tuple[list[list[str]], str | None]:
    """Both strata's rows of one project ([path, commit, licence, lines, score, rank,
    stratum]), or the reason it is skipped (no file in stratum 1)."""
    taken: set[str] = set()
    rows: list[list[str]] = []
    lic = ""
    for stratum, (scorer, per_project) in STRATA.items():
        picks = rs.ranked(snap, lang, scorer(snap), taken, per_project)
        if stratum == 1:
            if not picks:
                return [], f"no {lang} file matching stratum 1"
            lic = snap.licence()
        for rank, (path, points, n_lines) in enumerate(picks, 1):
            taken.add(path)
            row = [path, snap.commit, lic, str(n_lines), str(points), str(rank), str(stratum)]
            rows.append(row)
    return rows, None


def take(
    mirror: Path, tried: set[str], want: dict[str, int], upto: int | None = None
) -> tuple[list[list[str]], list[str]]:
    """Projects in listed order, not tried before, until `want` a language are usable; the new
    ones split among themselves within each language by the hash rule."""
    drawn: list[tuple[str, str, str, list[str]]] = []
    used: dict[str, list[str]] = {"ts": [], "py": []}
    skipped: list[str] = []
    # only the first `upto` candidates have had their fetch tried: a later one is not yet
    # "no snapshot", it is simply not reached
    for category, name in candidates()[:upto]:
        if all(len(used[k]) == want[k] for k in want):
            break
        if name in tried:
            continue
        snap = open_snapshot(mirror, name)
        if snap is None:
            skipped.append(f"{name}: no snapshot")
            continue
        lang = language(snap)
        if len(used[lang]) == want[lang]:
            skipped.append(f"{name}: language full ({lang})")
            continue
        picks, why = draw(snap, lang)
        if why:
            skipped.append(f"{name}: {why}")
            continue
        used[lang].append(name)
        drawn.extend((lang, name, category, r) for r in picks)
    halves = {n: h for names in used.values() for n, h in rs.split(sorted(names)).items()}
    rows = [[lang, name, *f[:6], halves[name], f[6], cat] for lang, name, cat, f in drawn]
    rows.sort(key=lambda r: (r[9], r[0] != "ts"))
    return rows, skipped


def write(rows: list[list[str]]) -> None:
    with open(HERE / "MANIFEST.tsv", "w", encoding="utf-8") as fh:
        fh.write(HEADER)
        for r in rows:
            fh.write("\t".join(r) + "\n")


def main() -> int:
    p = argparse.ArgumentParser()
    p.add_argument("--mirror", default="/work/.mirror")
    p.add_argument("--more", type=int, help="stopping rule: N more projects a language")
    p.add_argument("--upto", type=int, help="consider the first N candidates (those fetched)")
    a = p.parse_args()
    mirror = Path(a.mirror)
    if a.more:
        manifest = HERE / "MANIFEST.tsv"
        before = [ln.split("\t") for ln in manifest.read_text(encoding="utf-8").splitlines()[1:]]
        old_skips = (HERE / "SKIPPED.txt").read_text(encoding="utf-8").splitlines()
        # a project passed over because its language was full is next in order, not tried
        passed = {ln.split(":")[0] for ln in old_skips if "language full" in ln}
        old_skips = [ln for ln in old_skips if ln.split(":")[0] not in passed]
        tried = {r[1] for r in before} | {ln.split(":")[0] for ln in old_skips}
        rows, skipped = take(mirror, tried, {"ts": a.more, "py": a.more}, a.upto)
        write(before + rows)
        (HERE / "SKIPPED.txt").write_text("\n".join(old_skips + skipped) + "\n", encoding="utf-8")
    else:
        rows, skipped = take(mirror, set(), WANT, a.upto)
        write(rows)
        (HERE / "SKIPPED.txt").write_text("\n".join(skipped) + "\n", encoding="utf-8")
    print(f"{len(rows)} files drawn; skipped: {skipped}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
