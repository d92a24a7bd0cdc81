"""Draw the Python wide sample: findings on the whole projects of real17-real19, not the
sampled files (py-findings.toml states the rule; this script applies it).

    python tests/policies/corpus/wide/py_sample.py extract --scratch /work/scratch-py
    python tests/policies/corpus/wide/py_sample.py lint --scratch /work/scratch-py [--tag T]
    python tests/policies/corpus/wide/py_sample.py draw --scratch /work/scratch-py --seed S
        [--n 70] [--per 3] [--skip py-findings.toml] [--tag T]

extract: each project of a Python row of real17-19's MANIFEST.tsv, at the manifest's commit,
written with `git archive` under the scratch folder (outside the repository). lint: every
project linted whole, as `prefixlock lint DIR` would, and its Python findings outside the
sampled files kept as JSON (scratch/findings-T.json). draw: the findings shuffled by a seeded
random.Random and taken in that order, at most PER per project, until N are drawn; findings
already judged in --skip and notices about the input (PL9xx) are not drawn.
"""

from __future__ import annotations

import argparse
import csv
import json
import random
import subprocess
import sys
import tomllib
from pathlib import Path

CORPORA = Path(__file__).resolve().parent.parent
MIRROR = Path("/work/.mirror")


def projects() -> tuple[dict[str, str], set[tuple[str, str]]]:
    """Each Python project's manifest commit, and the (repo, path) pairs already sampled."""
    commits: dict[str, str] = {}
    sampled: set[tuple[str, str]] = set()
    for n in (17, 18, 19):
        with open(CORPORA / f"real{n}" / "MANIFEST.tsv", encoding="utf-8") as fh:
            for row in csv.DictReader(fh, delimiter="\t"):
                if row["lang"] == "py":
                    commits[row["repo"]] = row["commit"]
                    sampled.add((row["repo"], row["path"]))
    return commits, sampled


def extract(scratch: Path) -> None:
    commits, _ = projects()
    for repo, commit in sorted(commits.items()):
        dest = scratch / "tree" / repo.replace("/", "+")
        if dest.is_dir():
            continue
        git = MIRROR / repo.replace("/", "+") / "repo"
        if (git / ".git").is_dir():
            git = git / ".git"
        dest.mkdir(parents=True)
        # a snapshot may lack its largest blobs (media); those paths are left out
        tree = (
            subprocess.run(
                ["git", "--git-dir", str(git), "ls-tree", "-r", "-z", commit],
                capture_output=True,
                check=True,
            )
            .stdout.decode("utf-8", "surrogateescape")
            .split("\0")
        )
        blobs = [t.split("\t", 1) for t in tree if t and t.split()[1] == "blob"]
        check = (
            subprocess.run(
                ["git", "--git-dir", str(git), "cat-file", "--batch-check"],
                input="\n".join(b[0].split()[2] for b in blobs).encode(),
                capture_output=True,
                check=True,
            )
            .stdout.decode()
            .splitlines()
        )
        absent = [b[1] for b, c in zip(blobs, check, strict=True) if c.endswith("missing")]
        archive = subprocess.run(
            ["git", "--git-dir", str(git), "archive", commit, "--", "."]
            + [f":(exclude,literal){path}" for path in absent],
            capture_output=True,
            check=True,
        ).stdout
        # a link tar cannot make (a link whose target is a whole file's text) is left out
        subprocess.run(
            ["tar", "-x", "-C", str(dest)], input=archive, stderr=subprocess.DEVNULL, check=False
        )


def lint(scratch: Path, tag: str, only: Path | None) -> None:
    from prefixlock.policies.config import LintConfig
    from prefixlock.policies.engine import lint_paths

    commits, sampled = projects()
    if only is not None:  # a re-lint of the projects a draw holds
        wanted = set(only.read_text(encoding="utf-8").split())
        commits = {r: c for r, c in commits.items() if r in wanted}
    out: list[dict[str, object]] = []
    for repo, commit in sorted(commits.items()):
        root = scratch / "tree" / repo.replace("/", "+")
        result = lint_paths([str(root)], LintConfig(model="claude-sonnet-4-6"), jobs=1)
        for f in result.findings:
            rel = Path(f.path).resolve().relative_to(root.resolve()).as_posix()
            if not rel.endswith(".py") or (repo, rel) in sampled:
                continue
            out.append(
                {
                    "repo": repo,
                    "commit": commit,
                    "file": rel,
                    "line": f.line,
                    "code": f.code,
                    "message": f.message,
                }
            )
        print(repo, sum(1 for o in out if o["repo"] == repo), file=sys.stderr)
        # written after each project, so a long run can be read while it goes on
        (scratch / f"findings-{tag}.json").write_text(json.dumps(out, indent=1), encoding="utf-8")


def draw(scratch: Path, tag: str, seed: int, n: int, per: int, skip: Path | None) -> None:
    found = json.loads((scratch / f"findings-{tag}.json").read_text(encoding="utf-8"))
    judged: set[tuple[str, str, int, str]] = set()
    if skip is not None:
        for f in tomllib.loads(skip.read_text(encoding="utf-8")).get("finding", []):
            judged.add((f["repo"], f["file"], f["line"], f["code"]))
    pool = sorted(
        # PL9xx are notices about the input (a file that does not parse), no cache finding
        (
            f
            for f in found
            if (f["repo"], f["file"], f["line"], f["code"]) not in judged
            and not f["code"].startswith("PL9")
        ),
        key=lambda f: (f["repo"], f["file"], f["line"], f["code"]),
    )
    random.Random(seed).shuffle(pool)
    taken: dict[str, int] = {}
    for f in pool:
        if taken.get(f["repo"], 0) >= per:
            continue
        taken[f["repo"]] = taken.get(f["repo"], 0) + 1
        print(json.dumps(f))
        if sum(taken.values()) >= n:
            break


def main() -> int:
    p = argparse.ArgumentParser()
    p.add_argument("step", choices=("extract", "lint", "draw"))
    p.add_argument("--scratch", type=Path, default=Path("/work/scratch-py"))
    p.add_argument("--tag", default="main")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--n", type=int, default=70)
    p.add_argument("--per", type=int, default=3)
    p.add_argument("--skip", type=Path)
    p.add_argument("--only", type=Path, help="lint only the projects named in this file")
    a = p.parse_args()
    if a.step == "extract":
        extract(a.scratch)
    elif a.step == "lint":
        lint(a.scratch, a.tag, a.only)
    else:
        draw(a.scratch, a.tag, a.seed, a.n, a.per, a.skip)
    return 0


if __name__ == "__main__":
    sys.exit(main())
