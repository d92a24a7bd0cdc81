"""The file sampler shared by the real-code corpora from real6 on: reads bare clones of public
projects (`owner+name/repo` under a mirror folder) at HEAD, draws files by counting the lines
that match fixed patterns (never by reading a file's meaning), and splits the projects into a
development and a test half by a hash of their names.

real3's and real4's sample.py run on this module with their own, older rules (`eligible`'s and
`ranked`'s parameters), their draws checked byte-identical against the committed MANIFESTs;
real5 keeps its own sample.py (its draw is committed and was made with it). This module states
the rules once for later corpora; from real9 on it also runs a corpus folder's draw (`Draw`:
its CANDIDATES.tsv in listed order, MANIFEST.tsv and SKIPPED.txt out), so each folder's
sample.py only names its strata.
"""

from __future__ import annotations

import argparse
import functools
import hashlib
import importlib.util
import json
import os
import re
import subprocess
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

EXT = {"ts": (".ts", ".tsx", ".js", ".mjs", ".cjs"), "py": (".py",)}
SKIP_DIRS = {
    "node_modules", "dist", "build", "out", "vendor", "test", "tests", "__tests__", "e2e",
    "fixtures", "examples", "example", "docs", "evals", "eval", "benchmarks", "locales", "i18n",
    "cookbook", "notebooks",
}  # fmt: skip
PROMPT = (
    r"system_?prompt|system prompt|systemmessage|role[\"']?\s*[:=]\s*[\"']system"
    r"|instructions?\s*[:=]"
)
CALL = (
    r"messages\.create|completions\.create|streamtext|generatetext|streamobject|generateobject"
    r"|acompletion|litellm\.completion|\.a?invoke\(|\.a?run\(|messages\.(push|append)"
    r"|role[\"']?\s*[:=]\s*[\"'](user|assistant)"
)
VOLATILE = (
    r"new Date\(|Date\.now\(|datetime\.(now|utcnow|today)|date\.today|strftime|toISOString"
    r"|toLocale(Date|Time)?String|process\.cwd|os\.getcwd|Path\.cwd|getcwd"
    r"|git (status|diff|log|branch)|platform\.(system|platform|release)|os\.platform|os\.type\("
    r"|randomUUID|uuid4|Math\.random|execSync|spawnSync|check_output|os\.hostname"
    r"|getpass\.getuser|os\.userInfo|time\.time\(|dayjs\(|moment\("
)
DATETEXT = (
    r"(current|today'?s?)[ _-]?(date|time)|date (is|:)"
    r"|\{(current_?)?(date|time|datetime|today|now)\}|\$\{(today|date|now|currentdate|currenttime)"
)
MAX_LINES = 500


@dataclass(frozen=True)
class Snapshot:
    """One project's bare clone at its HEAD commit."""

    name: str
    git_dir: Path
    commit: str

    @classmethod
    def open(cls, mirror: Path, name: str) -> Snapshot | None:
        git_dir = mirror / name.replace("/", "+") / "repo"
        if not git_dir.is_dir():
            return None
        commit = git(git_dir, "rev-parse", "HEAD").decode().strip()
        return cls(name, git_dir, commit)

    def paths(self) -> list[str]:
        return git(self.git_dir, "ls-tree", "-r", "--name-only", self.commit).decode().splitlines()

    def text(self, path: str) -> str:
        return _text(self.git_dir, self.commit, path)

    def preload(self, paths: list[str]) -> None:
        """Read many files with one `git cat-file --batch` (a large project has thousands of
        candidate files; one `git show` each took minutes). Changes no text read."""
        todo = [p for p in paths if (self.git_dir, self.commit, p) not in _BATCH]
        if not todo:
            return
        names = "".join(f"{self.commit}:{p}\n" for p in todo).encode()
        out = subprocess.run(
            ["git", "--git-dir", str(self.git_dir), "cat-file", "--batch"],
            input=names,
            capture_output=True,
            check=True,
        ).stdout
        at = 0
        for p in todo:
            end = out.index(b"\n", at)
            head = out[at:end].split()
            at = end + 1
            if len(head) < 3 or head[1] != b"blob":
                continue  # missing: read the slow way, which says why
            size = int(head[2])
            _BATCH[(self.git_dir, self.commit, p)] = out[at : at + size].decode("utf-8", "replace")
            at += size + 1

    def grep(self, pattern: str) -> dict[str, int]:
        """Matching lines per file, counted by git grep (a line matches at most once)."""
        # quotePath off: a path with non-ASCII bytes comes back as it is, not quoted
        # only files of the two languages' extensions: every other file is left out by
        # `eligible` later, and large projects hold thousands of them (the same counts, faster)
        exts = [f"*{e}" for e in EXT["ts"] + EXT["py"]]
        args = ["-c", "core.quotePath=false", "grep", "-c", "-i", "-E", pattern, self.commit]
        args += ["--", *exts]
        out = subprocess.run(
            ["git", "--git-dir", str(self.git_dir), *args],
            capture_output=True,
        ).stdout.decode("utf-8", "replace")
        counts: dict[str, int] = {}
        for line in out.splitlines():
            where, _, n = line.rpartition(":")
            counts[where.split(":", 1)[1]] = int(n)
        return counts

    def licence(self) -> str:
        for p in self.paths():
            if p.split(".")[0].upper() in ("LICENSE", "LICENCE", "COPYING") and "/" not in p:
                first = next((ln.strip() for ln in self.text(p).splitlines() if ln.strip()), "")
                # an empty licence file (real16 met one) is recorded as such, not as ""
                return first[:60] or "empty licence file"
        return "none found"


_BATCH: dict[tuple[Path, str, str], str] = {}


@functools.lru_cache(maxsize=4096)
def _text(git_dir: Path, commit: str, path: str) -> str:
    # The strata read the same candidate files again; a draw reads each once.
    got = _BATCH.get((git_dir, commit, path))
    if got is not None:
        return got
    return git(git_dir, "show", f"{commit}:{path}").decode("utf-8", "replace")


def git(git_dir: Path, *args: str) -> bytes:
    return subprocess.run(
        ["git", "--git-dir", str(git_dir), *args], capture_output=True, check=True
    ).stdout


def eligible(
    path: str, lang: str, skip_dirs: set[str] = SKIP_DIRS, skip_conftest: bool = True
) -> bool:
    """real6's rule; real3 to real5 stated theirs with fewer skipped folders (`skip_dirs`) and
    without the conftest.py exclusion."""
    parts = path.split("/")
    name = parts[-1]
    if not name.endswith(EXT[lang]) or skip_dirs & set(parts[:-1]):
        return False
    if ".test." in name or ".spec." in name or name.endswith((".d.ts", ".min.js")):
        return False
    if skip_conftest and name == "conftest.py":
        return False
    return not (name.startswith("test_") or name.endswith("_test.py"))


def both(first: str, second: str) -> Callable[[Snapshot], dict[str, int]]:
    """Files matching both patterns; score = the matching lines of each, added."""

    def score(snap: Snapshot) -> dict[str, int]:
        a, b = snap.grep(first), snap.grep(second)
        return {p: a[p] + b[p] for p in a.keys() & b.keys()}

    return score


def near(value: str, anchors: tuple[str, ...], span: int) -> Callable[[Snapshot], dict[str, int]]:
    """Files with a `value` line within `span` lines of a line matching any anchor; score = the
    number of such value lines."""
    value_re = re.compile(value, re.IGNORECASE)
    anchor_re = [re.compile(a, re.IGNORECASE) for a in anchors]

    def score(snap: Snapshot) -> dict[str, int]:
        candidates = snap.grep(value).keys() & set().union(*(snap.grep(a) for a in anchors))
        snap.preload(sorted(candidates))
        out: dict[str, int] = {}
        for path in candidates:
            lines = snap.text(path).splitlines()
            at = [i for i, ln in enumerate(lines) if any(r.search(ln) for r in anchor_re)]
            n = sum(
                1
                for i, ln in enumerate(lines)
                if value_re.search(ln) and any(abs(i - j) <= span for j in at)
            )
            if n:
                out[path] = n
        return out

    return score


def ranked(
    snap: Snapshot,
    lang: str,
    scores: dict[str, int],
    taken: set[str],
    per_project: int,
    max_lines: int = MAX_LINES,
    is_eligible: Callable[[str, str], bool] = eligible,
) -> list[tuple[str, int, int]]:
    """(path, score, lines) of the best `per_project` eligible files not already taken, highest
    score first, ties broken by path, files over MAX_LINES left out."""
    rows: list[tuple[int, str, int]] = []
    snap.preload(sorted(p for p in scores if p not in taken and is_eligible(p, lang)))
    for path, score in scores.items():
        if path in taken or not is_eligible(path, lang):
            continue
        n_lines = len(snap.text(path).splitlines())
        if n_lines <= max_lines:
            rows.append((-score, path, n_lines))
    rows.sort()
    return [(path, -neg, n) for neg, path, n in rows[:per_project]]


def half(name: str) -> str:
    return "dev" if hashlib.sha256(name.encode()).digest()[0] % 2 == 0 else "test"


def split(names: list[str]) -> dict[str, str]:
    """Halves by the first byte of SHA-256(owner/name), rebalanced by moving the highest hash of
    the larger half until the halves differ by at most one."""
    halves = {n: half(n) for n in names}
    while True:
        dev = [n for n in names if halves[n] == "dev"]
        test = [n for n in names if halves[n] == "test"]
        if abs(len(dev) - len(test)) <= 1:
            return halves
        big = dev if len(dev) > len(test) else test
        top = max(big, key=lambda n: hashlib.sha256(n.encode()).hexdigest())
        halves[top] = "test" if halves[top] == "dev" else "dev"


# ---- a corpus folder's draw (real9 on): CANDIDATES.tsv in, MANIFEST.tsv and SKIPPED.txt out ----

HEADER = "lang\trepo\tpath\tcommit\tlicense\tlines\tscore\trank\thalf\tstratum\tcategory\n"
Scorer = Callable[[Snapshot], dict[str, int]]


@dataclass(frozen=True)
class Draw:
    """One corpus folder's draw: its candidate list, its strata ({stratum: (scorer, files a
    project)}, stratum 1 required of every project) and the projects wanted a language."""

    here: Path
    strata: dict[int, tuple[Scorer, int]]
    want: dict[str, int]

    def candidates(self) -> list[tuple[str, str]]:
        """(category, owner/name) in the order taken."""
        out: list[tuple[str, str]] = []
        for line in (self.here / "CANDIDATES.tsv").read_text(encoding="utf-8").splitlines():
            if line and not line.startswith("#"):
                category, name = line.split("\t")
                out.append((category, name))
        return out

    def draw(
        self, snap: Snapshot, lang: str, strata: dict[int, tuple[Scorer, int]] | None = None
    ) -> tuple[list[list[str]], str | None]:
        """The strata's rows of one project ([path, commit, licence, lines, score, rank,
        stratum]), or the reason it is skipped (no file in the first stratum asked for)."""
        strata = self.strata if strata is None else strata
        taken: set[str] = set()
        rows: list[list[str]] = []
        lic = ""
        for at, (stratum, (scorer, per_project)) in enumerate(strata.items()):
            picks = ranked(snap, lang, scorer(snap), taken, per_project)
            if at == 0:
                if not picks:
                    return [], f"no {lang} file matching stratum {stratum}"
                lic = snap.licence()
            for rank, (path, points, n_lines) in enumerate(picks, 1):
                taken.add(path)
                row = [path, snap.commit, lic, str(n_lines), str(points), str(rank), str(stratum)]
                rows.append(row)
        return rows, None

    def take(
        self,
        mirror: Path,
        tried: set[str],
        want: dict[str, int],
        upto: int | None = None,
        strata: dict[int, tuple[Scorer, int]] | None = None,
        either: int | None = None,
    ) -> tuple[list[list[str]], list[str]]:
        """Projects in listed order, not tried before, until `want` a language are usable (or,
        with `either`, that many of either language); the new ones split among themselves
        within each language by the hash rule."""
        drawn: list[tuple[str, str, str, list[str]]] = []
        used: dict[str, list[str]] = {"ts": [], "py": []}
        skipped: list[str] = []

        def full() -> bool:
            if either is not None:
                return sum(map(len, used.values())) == either
            return all(len(used[k]) == want[k] for k in want)

        # only the first `upto` candidates have had their fetch tried: a later one is not yet
        # "no snapshot", it is simply not reached
        for category, name in self.candidates()[:upto]:
            if full():
                break
            if name in tried:
                continue
            snap = open_snapshot(mirror, name)
            if snap is None:
                skipped.append(f"{name}: no snapshot")
                continue
            lang = self.memo(snap, "lang", functools.partial(language, snap))
            if either is None and len(used[lang]) == want[lang]:
                skipped.append(f"{name}: language full ({lang})")
                continue
            which = ",".join(map(str, (strata or self.strata).keys()))
            picks, why = self.memo(snap, which, functools.partial(self.draw, snap, lang, strata))
            if why:
                skipped.append(f"{name}: {why}")
                continue
            used[lang].append(name)
            drawn.extend((lang, name, category, r) for r in picks)
        halves = {n: h for names in used.values() for n, h in split(sorted(names)).items()}
        rows = [[lang, name, *f[:6], halves[name], f[6], cat] for lang, name, cat, f in drawn]
        rows.sort(key=lambda r: (r[9], r[0] != "ts"))
        return rows, skipped

    def memo(self, snap: Snapshot, key: str, compute: Callable[[], Any]) -> Any:
        """A project's language or draw, kept per commit in `.draws.json` (ignored): a later
        step re-reads the projects before it in order, and their git greps took minutes. The
        result is the same as computing it again (same commit, same rules)."""
        cache = self.here / ".draws.json"
        slot = f"{snap.name}@{snap.commit}:{key}"
        data = _load(cache)
        if slot not in data:
            value = compute()
            data = _load(cache)  # another draw may have added to it meanwhile
            data[slot] = value
            part = cache.with_suffix(f".{os.getpid()}")
            part.write_text(json.dumps(data), encoding="utf-8")
            os.replace(part, cache)
        return data[slot]

    def write(self, rows: list[list[str]]) -> None:
        with open(self.here / "MANIFEST.tsv", "w", encoding="utf-8") as fh:
            fh.write(HEADER)
            for r in rows:
                fh.write("\t".join(r) + "\n")

    def main(self, argv: list[str] | None = None, volatile: int | None = None) -> int:
        """The command line of a corpus folder's sample.py; `volatile`: the stratum a volatile
        step (`--volatile N`) draws alone, N projects of either language."""
        p = argparse.ArgumentParser()
        p.add_argument("--mirror", default="/work/.mirror")
        p.add_argument("--more", type=int, help="stopping rule: N more projects a language")
        p.add_argument("--upto", type=int, help="consider the first N candidates (those fetched)")
        if volatile is not None:
            p.add_argument("--volatile", type=int, help=f"N more projects for stratum {volatile}")
        a = p.parse_args(argv)
        mirror = Path(a.mirror)
        step = getattr(a, "volatile", None)
        if a.more or step:
            manifest = self.here / "MANIFEST.tsv"
            lines = manifest.read_text(encoding="utf-8").splitlines()[1:]
            before = [ln.split("\t") for ln in lines]
            old_skips = (self.here / "SKIPPED.txt").read_text(encoding="utf-8").splitlines()
            # a project passed over because its language was full is next in order, not tried
            passed = {ln.split(":")[0] for ln in old_skips if "language full" in ln}
            old_skips = [ln for ln in old_skips if ln.split(":")[0] not in passed]
            tried = {r[1] for r in before} | {ln.split(":")[0] for ln in old_skips}
            if step:
                assert volatile is not None
                only = {volatile: self.strata[volatile]}
                rows, skipped = self.take(mirror, tried, {}, a.upto, only, either=step)
            else:
                rows, skipped = self.take(mirror, tried, {"ts": a.more, "py": a.more}, a.upto)
            self.write(before + rows)
            text = "\n".join(old_skips + skipped) + "\n"
            (self.here / "SKIPPED.txt").write_text(text, encoding="utf-8")
        else:
            rows, skipped = self.take(mirror, set(), self.want, a.upto)
            self.write(rows)
            (self.here / "SKIPPED.txt").write_text("\n".join(skipped) + "\n", encoding="utf-8")
        print(f"{len(rows)} files drawn; skipped: {skipped}")
        return 0


def _load(cache: Path) -> dict[str, Any]:
    try:
        return dict(json.loads(cache.read_text(encoding="utf-8")))
    except (OSError, ValueError):
        return {}


def open_snapshot(mirror: Path, name: str) -> Snapshot | None:
    """The project's snapshot; a few come from the fetch tool as `repo/.git` (a clone without
    its work tree) rather than a bare `repo`, and are read the same way."""
    inner = mirror / name.replace("/", "+") / "repo" / ".git"
    if inner.is_dir():
        commit = git(inner, "rev-parse", "HEAD").decode().strip()
        return Snapshot(name, inner, commit)
    return Snapshot.open(mirror, name)


def language(snap: Snapshot) -> str:
    """TypeScript when the snapshot has at least as many eligible TS/JS files as Python ones."""
    paths = snap.paths()
    ts = sum(eligible(p, "ts") for p in paths)
    py = sum(eligible(p, "py") for p in paths)
    return "ts" if ts >= py else "py"


def sibling(here: Path, corpus: str) -> ModuleType:
    """The `sample.py` of the corpus folder `corpus` beside `here`, imported (a later corpus
    reuses an earlier one's draw classes rather than writing them again)."""
    path = here.parent / corpus / "sample.py"
    spec = importlib.util.spec_from_file_location(f"{corpus}_sample", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def real10_draw(here: Path) -> Draw:
    """A draw of 20 projects a language with real10's three strata, imported from
    ../real10/sample.py so that they cannot drift (real11 and the corpora after it)."""
    return Draw(here, strata=sibling(here, "real10").DRAW.strata, want={"ts": 20, "py": 20})


def reserve_step(draw: Draw, argv: list[str], volatile: int = 3) -> int:
    """Run one step of a reserve `draw`, keeping the main list's `language full` lines.

    A reserve step leaves the main list's projects that were passed over because their
    language was full untried; the shared draw drops their SKIPPED lines (it expects to try
    them next), so they are put back ahead of the step's own lines (real14 onwards)."""
    skipped = draw.here / "SKIPPED.txt"
    passed = [
        ln for ln in skipped.read_text(encoding="utf-8").splitlines() if "language full" in ln
    ]
    code = draw.main(argv, volatile=volatile)
    now = skipped.read_text(encoding="utf-8").splitlines()
    kept = [ln for ln in passed if ln not in now]
    skipped.write_text("\n".join(kept + now) + "\n", encoding="utf-8")
    return code


def quota_draw(here: Path, quota: int, python: int | None = None) -> Draw:
    """real10's draw with `quota` projects a language, Python's lowered to `python` (real19's
    `--quota N`, which keeps a corpus at least half TypeScript by construction)."""
    base = real10_draw(here)
    return Draw(base.here, base.strata, {"ts": quota, "py": quota if python is None else python})


def quota_main(here: Path, quota: int, argv: list[str]) -> int:
    """The command line of real19 and the corpora after it: real10's draw with the quotas
    (`--quota N` lowers Python's), or with `--reserve` one step over the code-search block
    (the `search-N` rows) alone, with real15's reserve draw."""
    python = quota
    if "--quota" in argv:
        at = argv.index("--quota")
        python = int(argv[at + 1])
        argv = argv[:at] + argv[at + 2 :]
    base = quota_draw(here, quota, python)
    if "--reserve" not in argv:
        return base.main(argv, volatile=3)
    reserve = sibling(here, "real15").ReserveDraw(base.here, base.strata, base.want)
    return reserve_step(reserve, [a for a in argv if a != "--reserve"])


def next_main(here: Path, quota: int, argv: list[str]) -> int:
    """The command line of real21 and the corpora after it: `quota_main`, or with `--next` one
    volatile step over the reserve block (the `next-N` rows) alone, with real21's `NextDraw`
    (real15's reserve draw under the `next-` prefix), keeping the first draw's `language full`
    names untried behind it."""
    if "--next" not in argv:
        return quota_main(here, quota, argv)
    base = quota_draw(here, quota)
    step = sibling(here, "real21").NextDraw(base.here, base.strata, base.want)
    return reserve_step(step, [a for a in argv if a != "--next"])


def screen_verdicts(here: Path) -> dict[str, str]:
    """A corpus's README screen (its SCREENED.tsv, real27 and real29): owner/name -> `keep` or
    the reason the project's README shows no conversation app."""
    out: dict[str, str] = {}
    for line in (here / "SCREENED.tsv").read_text(encoding="utf-8").splitlines():
        if line and not line.startswith("#"):
            name, verdict = line.split("\t")
            out[name] = verdict
    return out


def screened_main(here: Path, quota: int, argv: list[str]) -> int:
    """`next_main` behind the README screen: a project is opened only when SCREENED.tsv holds
    its verdict (a snapshot without one stops the draw: the README is screened before the draw
    reaches the name), and a project the screen left out is recorded in SKIPPED.txt with its
    reason rather than as `no snapshot`."""
    global open_snapshot
    plain = open_snapshot

    def screened(mirror: Path, name: str) -> Snapshot | None:
        snap = plain(mirror, name)
        if snap is None:
            return None
        verdict = screen_verdicts(here).get(name)
        if verdict is None:
            raise SystemExit(f"{name}: no README verdict in SCREENED.tsv; screen it first")
        return snap if verdict == "keep" else None

    open_snapshot = screened
    try:
        code = next_main(here, quota, argv)
    finally:
        open_snapshot = plain
    out = screen_verdicts(here)
    skipped = here / "SKIPPED.txt"
    lines = skipped.read_text(encoding="utf-8").splitlines()
    for at, line in enumerate(lines):
        name = line.split(":")[0]
        if line == f"{name}: no snapshot" and out.get(name, "keep") != "keep":
            lines[at] = f"{name}: not a conversation app (README): {out[name]}"
    skipped.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return code
