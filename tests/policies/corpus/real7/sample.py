"""Select real7's files by the grep rules in PROCEDURE.md (three strata, stated before anything
was fetched) and write MANIFEST.tsv and SKIPPED.txt.

    python tests/policies/corpus/real7/sample.py [--mirror DIR]           # the first draw
    python tests/policies/corpus/real7/sample.py [--mirror DIR] --more N  # N more a language
    python tests/policies/corpus/real7/sample.py [--mirror DIR] --amend N # amendment 3's step

Reads each project's snapshot (a bare clone under DIR/owner+name/repo) at HEAD through the
shared sampler ../realsample.py; never reads a file's meaning, only counts matching lines.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE.parent))

import realsample as rs  # noqa: E402

# real6's patterns with the additions PROCEDURE.md states.
VOLATILE = rs.VOLATILE + (
    r"|Intl\.DateTimeFormat|timeZone|getTimezoneOffset|process\.platform|sys\.platform|os\.uname"
    r"|os\.release\(|os\.homedir|readdirSync|os\.listdir|os\.walk|nanoid\(|uuidv4|uuid\.v4"
    r"|git rev-parse|workspaceFolders|activeTextEditor|time\.localtime|time\.ctime|time\.strftime"
)
DATETEXT = rs.DATETEXT + (
    r"|\{\{\s*(current_?)?(date|time|datetime|today|now)\s*\}\}|\{_?time\}|system_?time"
    r"|current_?timestamp"
)
CUT = (
    r"messages\.slice\(|messages\[-|history\[-|\.splice\(0|max_?history|trim_?messages"
    r"|\.slice\(-|\[-[0-9a-z_]+:\]|history_?limit|max_?messages|context_?window"
    r"|summari[sz]e_?(history|messages|conversation)"
)
WANT = {"ts": 22, "py": 20}
HEADER = "lang\trepo\tpath\tcommit\tlicense\tlines\tscore\trank\thalf\tstratum\n"
Scorer = Callable[[rs.Snapshot], dict[str, int]]


def clock_near(snap: rs.Snapshot) -> dict[str, int]:
    """Stratum 2: DATETEXT lines plus VOLATILE lines within 15 lines of prompt text or a call."""
    dated = snap.grep(DATETEXT)
    close = rs.near(VOLATILE, (rs.PROMPT, DATETEXT, rs.CALL), 15)(snap)
    return {p: dated.get(p, 0) + close.get(p, 0) for p in dated.keys() | close.keys()}


def cut_beside(snap: rs.Snapshot) -> dict[str, int]:
    """Stratum 3: CUT with PROMPT or CALL; CUT + PROMPT + CALL lines, each where it matches."""
    cut, prompt, call = snap.grep(CUT), snap.grep(rs.PROMPT), snap.grep(rs.CALL)
    return {
        p: n + prompt.get(p, 0) + call.get(p, 0) for p, n in cut.items() if p in prompt or p in call
    }


# stratum: (how files are scored, files a project)
STRATA: dict[int, tuple[Scorer, int]] = {
    1: (rs.both(rs.PROMPT, rs.CALL), 1),
    2: (clock_near, 2),
    3: (cut_beside, 1),
}


# Amendment 3 draws stratum 2 alone from its own list; a project needs a stratum-2 file.
AMEND_STRATA: dict[int, tuple[Scorer, int]] = {2: STRATA[2]}
AMEND_MARK = "# amendment 3"


def candidates(amended: bool = False) -> dict[str, list[str]]:
    """The first list (with amendment 1's reserves) or, with `amended`, amendment 3's list."""
    out: dict[str, list[str]] = {"ts": [], "py": []}
    section = False
    for line in (HERE / "CANDIDATES.tsv").read_text(encoding="utf-8").splitlines():
        if line.startswith(AMEND_MARK):
            section = True
        elif line and not line.startswith("#") and section == amended:
            lang, name = line.split("\t")
            out[lang].append(name)
    return out


def draw(
    mirror: Path, name: str, lang: str, strata: dict[int, tuple[Scorer, int]]
) -> tuple[list[list[str]], str | None]:
    """Every stratum's rows of one project ([path, commit, licence, lines, score, rank,
    stratum]), or the reason it is skipped (no file in the first stratum)."""
    snap = rs.Snapshot.open(mirror, name)
    if snap is None:
        return [], "no snapshot"
    taken: set[str] = set()
    rows: list[list[str]] = []
    lic = ""
    first = min(strata)
    for stratum, (scorer, per_project) in strata.items():
        picks = rs.ranked(snap, lang, scorer(snap), taken, per_project)
        if stratum == first:
            if not picks:
                return [], f"no file matching stratum {first}"
            lic = snap.licence()
        for rank, (path, points, n_lines) in enumerate(picks, 1):
            taken.add(path)
            row = [path, snap.commit, lic, str(n_lines), str(points), str(rank), str(stratum)]
            rows.append(row)
    return rows, None


def take(
    mirror: Path, tried: set[str], want: dict[str, int], amended: bool = False
) -> tuple[list[list[str]], list[str]]:
    """Projects in listed order, not tried before, until `want` a language are usable; the new
    ones split among themselves by the hash rule."""
    rows: list[list[str]] = []
    skipped: list[str] = []
    strata = AMEND_STRATA if amended else STRATA
    for lang, names in candidates(amended).items():
        drawn: list[tuple[str, list[str]]] = []
        used: list[str] = []
        for name in names:
            if len(used) == want[lang]:
                break
            if name in tried:
                continue
            picks, why = draw(mirror, name, lang, strata)
            if why:
                skipped.append(f"{name}: {why}")
                continue
            used.append(name)
            drawn.extend((name, r) for r in picks)
        halves = rs.split(sorted(used))
        for name, f in drawn:
            rows.append([lang, name, *f[:6], halves[name], f[6]])
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
    p.add_argument("--amend", type=int, help="amendment 3: N more projects a language")
    a = p.parse_args()
    mirror = Path(a.mirror)
    if a.more or a.amend:
        manifest = HERE / "MANIFEST.tsv"
        before = [ln.split("\t") for ln in manifest.read_text(encoding="utf-8").splitlines()[1:]]
        old_skips = (HERE / "SKIPPED.txt").read_text(encoding="utf-8").splitlines()
        tried = {r[1] for r in before} | {ln.split(":")[0] for ln in old_skips}
        n = a.amend or a.more
        rows, skipped = take(mirror, tried, {"ts": n, "py": n}, amended=bool(a.amend))
        write(before + rows)
        (HERE / "SKIPPED.txt").write_text("\n".join(old_skips + skipped) + "\n", encoding="utf-8")
    else:
        rows, skipped = take(mirror, set(), WANT)
        write(rows)
        (HERE / "SKIPPED.txt").write_text("\n".join(skipped) + "\n", encoding="utf-8")
    print(f"{len(rows)} files drawn; skipped: {skipped}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
