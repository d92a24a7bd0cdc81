"""The file sampler shared by the real-code corpora from real6 on: reads bare clones of public
projects (`owner+name/repo` under a mirror folder) at HEAD, draws files by counting the lines
that match fixed patterns (never by reading a file's meaning), and splits the projects into a
development and a test half by a hash of their names.

real3's and real4's sample.py run on this module with their own, older rules (`eligible`'s and
`ranked`'s parameters), their draws checked byte-identical against the committed MANIFESTs;
real5 keeps its own sample.py (its draw is committed and was made with it). This module states
the rules once for later corpora.
"""

from __future__ import annotations

import functools
import hashlib
import re
import subprocess
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

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

    def grep(self, pattern: str) -> dict[str, int]:
        """Matching lines per file, counted by git grep (a line matches at most once)."""
        # quotePath off: a path with non-ASCII bytes comes back as it is, not quoted
        args = ["-c", "core.quotePath=false", "grep", "-c", "-i", "-E", pattern, self.commit]
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
                return first[:60]
        return "none found"


@functools.lru_cache(maxsize=4096)
def _text(git_dir: Path, commit: str, path: str) -> str:
    # The strata read the same candidate files again; a draw reads each once.
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
