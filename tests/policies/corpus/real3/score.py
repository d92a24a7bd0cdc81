"""Score the linter on the real3 corpus (see PROCEDURE.md): recall of the breakers labelled by
reading (`labels.toml`), precision over every finding (each labelled true or false by reading in
`findings.toml`), per half (`dev`, `test`) and per language.

    python tests/policies/corpus/real3/score.py --extract [--mirror DIR]   # fill files/
    python tests/policies/corpus/real3/score.py --half dev                # score a half

`--extract` writes each selected file at its recorded commit from bare clones under DIR
(`owner+name/repo`, default /work/.mirror). The files are third-party code and stay out of the
repository (files/ is ignored). A finding not yet in findings.toml is printed as `UNLABELLED`
and counted as neither true nor false until it is read and labelled.
"""

from __future__ import annotations

import argparse
import csv
import subprocess
import sys
import tomllib
from pathlib import Path

from prefixlock.policies.config import LintConfig
from prefixlock.policies.engine import lint_paths

HERE = Path(__file__).parent
FILES = HERE / "files"
VOLATILE = ("PL1", "PL2")
STRUCTURAL = ("PL3",)


def manifest() -> list[dict[str, str]]:
    with open(HERE / "MANIFEST.tsv", encoding="utf-8") as fh:
        return list(csv.DictReader(fh, delimiter="\t"))


def local(row: dict[str, str]) -> Path:
    return FILES / row["lang"] / row["repo"].replace("/", "+") / row["path"]


def extract(mirror: Path) -> None:
    for row in manifest():
        if row["rank"] != "1":
            continue
        git = mirror / row["repo"].replace("/", "+") / "repo"
        out = subprocess.run(
            ["git", "--git-dir", str(git), "show", f"{row['commit']}:{row['path']}"],
            capture_output=True,
            check=True,
        ).stdout
        dest = local(row)
        dest.parent.mkdir(parents=True, exist_ok=True)
        dest.write_bytes(out)


def score(half: str) -> int:
    rows = [r for r in manifest() if r["half"] == half and r["rank"] == "1"]
    labels = tomllib.loads((HERE / "labels.toml").read_text(encoding="utf-8"))
    seen = tomllib.loads((HERE / "findings.toml").read_text(encoding="utf-8"))
    judged = {(f["repo"], f["file"], f["line"], f["code"]): f for f in seen.get("finding", [])}
    breakers = [b for b in labels["breaker"] if any(b["repo"] == r["repo"] for r in rows)]
    by_file = {str(local(r)): r for r in rows}
    result = lint_paths(
        [str(local(r)) for r in rows], LintConfig(model="claude-sonnet-4-6"), jobs=1
    )
    found: dict[str, list[tuple[str, str, int, str]]] = {"ts": [], "py": []}
    unlabelled = 0
    stats: dict[str, dict[str, int]] = {
        lang: {"true": 0, "false": 0, "vol": 0, "vol_hit": 0, "str": 0, "str_hit": 0}
        for lang in ("ts", "py")
    }
    for f in result.findings:
        row = by_file[f.path]
        key = (row["repo"], row["path"], f.line, f.code)
        found[row["lang"]].append(key)
        hit = any(
            b["repo"] == row["repo"]
            and b["file"] == row["path"]
            and f.line in b["lines"]
            and f.code.startswith(VOLATILE if b["kind"] == "volatile" else STRUCTURAL)
            for b in breakers
        )
        verdict = judged.get(key)
        if hit:
            stats[row["lang"]]["true"] += 1
            print(f"TRUE       {row['repo']}/{row['path']}:{f.line} {f.code} {f.message}")
        elif verdict is not None:
            stats[row["lang"]]["true" if verdict["label"] else "false"] += 1
            tag = "TRUE" if verdict["label"] else "FALSE"
            print(f"{tag:10} {row['repo']}/{row['path']}:{f.line} {f.code} {f.message}")
        else:
            unlabelled += 1
            print(f"UNLABELLED {row['repo']}/{row['path']}:{f.line} {f.code} {f.message}")
    for b in breakers:
        lang = next(r["lang"] for r in rows if r["repo"] == b["repo"])
        fam = VOLATILE if b["kind"] == "volatile" else STRUCTURAL
        hit = any(
            k[0] == b["repo"] and k[1] == b["file"] and k[2] in b["lines"] and k[3].startswith(fam)
            for k in found[lang]
        )
        s = stats[lang]
        s["vol" if b["kind"] == "volatile" else "str"] += 1
        s["vol_hit" if b["kind"] == "volatile" else "str_hit"] += hit
        where = f"{b['repo']}/{b['file']}:{b['line']}"
        print(f"{'found' if hit else 'MISSED':10} {b['kind']:10} {where}")
    print(f"\n{half}: {len(rows)} files")
    for lang, s in stats.items():
        n = s["true"] + s["false"]
        print(
            f"  {lang}: volatile recall {s['vol_hit']}/{s['vol']}, structural recall "
            f"{s['str_hit']}/{s['str']}, precision {s['true']}/{n}"
        )
    return 1 if unlabelled else 0


def main() -> int:
    p = argparse.ArgumentParser()
    p.add_argument("--extract", action="store_true")
    p.add_argument("--mirror", default="/work/.mirror")
    p.add_argument("--half", choices=("dev", "test"))
    a = p.parse_args()
    if a.extract:
        extract(Path(a.mirror))
    return score(a.half) if a.half else 0


if __name__ == "__main__":
    sys.exit(main())
