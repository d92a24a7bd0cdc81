"""Select real28's files by the rules in PROCEDURE.md and write MANIFEST.tsv and SKIPPED.txt.

real28 samples by the file's role: each listed name carries the path (`path-N` / `next-N`, N the
path's number in PROCEDURE.md) that `find_files` found it by. Stratum 1 is that path itself;
stratum 2 is at most two files it imports that match real10's prompt, request, volatile or date
patterns. Template copies, tutorials and projects with no conversation are skipped by fixed
rules read from the snapshot before any drawn file. Everything else (language, quotas, split,
volatile and reserve steps, the memo) is the shared `../realsample.py` draw, through real24's
command line:

    python tests/policies/corpus/real28/sample.py --upto K [--quota N]            # first draw
    python tests/policies/corpus/real28/sample.py --next --upto F --volatile 8    # block 3
    python tests/policies/corpus/real28/sample.py --upto K --volatile 8           # blocks 1-2
    python tests/policies/corpus/real28/sample.py --upto K --more 4               # fill

It never reads a file's meaning, only paths, import lines and counts of matching lines.
"""

from __future__ import annotations

import functools
import json
import posixpath
import re
import sys
from pathlib import Path

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE.parent))

import realsample as rs  # noqa: E402

#: projects a language in the first draw (PROCEDURE.md: "Taking projects")
QUOTA = 16
#: stratum-2 files a project at most
IMPORTS = 2
#: names sharing a template key that the draw reads at most
PER_TEMPLATE = 3

PATHS = re.findall(r"^\d+\. `([^`]+)`$", (HERE / "PROCEDURE.md").read_text(), re.M)
TUTORIAL = re.compile(
    r"tutorial|course|workshop|lesson|cookbook|bootcamp|homework|assignment|curriculum", re.I
)
CONVERSATION = (
    r"role[\"']?\s*[:=]\s*[\"']assistant|chat_?history|conversation|messages\.(push|append)"
    r"|\.\.\.messages|history"
)
BUILDS = re.compile("|".join((rs.PROMPT, rs.CALL, rs.VOLATILE, rs.DATETEXT)), re.I)
TS_IMPORT = re.compile(
    r"(?:import|export)[^'\"`;]*?from\s*['\"]([^'\"]+)['\"]"
    r"|import\s*\(\s*['\"]([^'\"]+)['\"]\s*\)|require\s*\(\s*['\"]([^'\"]+)['\"]\s*\)"
)
PY_IMPORT = re.compile(r"^\s*(?:from\s+(\.*)([\w.]*)\s+import\b|import\s+([\w.]+))", re.M)
MIRROR = Path("/work/.mirror")


def path_of(category: str) -> str:
    """The path a name was found by: its category's number in PROCEDURE.md's list."""
    return PATHS[int(category.rsplit("-", 1)[1]) - 1]


def template_key(snap: rs.Snapshot) -> str:
    """The package name of the root package.json or pyproject.toml, else the README's first
    line, normalised; "" when there is none."""
    top = {p for p in snap.paths() if "/" not in p}
    if "package.json" in top:
        try:
            name = json.loads(snap.text("package.json")).get("name")
        except (ValueError, AttributeError):
            name = None
        if isinstance(name, str) and name:
            return name.lower()
    if "pyproject.toml" in top:
        m = re.search(r"^name\s*=\s*[\"']([^\"']+)[\"']", snap.text("pyproject.toml"), re.M)
        if m:
            return m.group(1).lower()
    first = readme_line(snap)
    return re.sub(r"[#=\s]", "", first).lower()


def readme_line(snap: rs.Snapshot) -> str:
    top = [p for p in snap.paths() if "/" not in p]
    readme = next((p for p in top if p.lower() in ("readme.md", "readme.rst", "readme")), None)
    if readme is None:
        return ""
    return next((ln.strip() for ln in snap.text(readme).splitlines() if ln.strip()), "")


def copies_in(here: Path, mirror: Path) -> dict[str, str]:
    """Names past the first PER_TEMPLATE sharing a key, over the whole list of the corpus in
    `here` in order (only snapshots present count): {name: key} (real28's and real30's)."""
    seen: dict[str, int] = {}
    copies: dict[str, str] = {}
    for _, name in rs.Draw(here, {}, {}).candidates():
        snap = rs.open_snapshot(mirror, name)
        if snap is None:
            continue
        key = template_key(snap)
        if not key:
            continue
        seen[key] = seen.get(key, 0) + 1
        if seen[key] > PER_TEMPLATE:
            copies[name] = key
    return copies


@functools.lru_cache(maxsize=1)
def template_copies() -> dict[str, str]:
    return copies_in(HERE, MIRROR)


def resolve_ts(spec: str, at: str, paths: set[str]) -> str | None:
    if spec.startswith(("./", "../")):
        bases = [posixpath.normpath(posixpath.join(posixpath.dirname(at), spec))]
    elif spec.startswith(("@/", "~/")):
        rest = spec[2:]
        bases = [rest, "src/" + rest, at.split("/")[0] + "/" + rest]
    else:
        return None
    exts = rs.EXT["ts"]
    for base in bases:
        tries = [base, *(base + e for e in exts), *(f"{base}/index{e}" for e in exts)]
        found = next((t for t in tries if t in paths), None)
        if found:
            return found
    return None


def resolve_py(dots: str, module: str, at: str, paths: set[str]) -> str | None:
    parts = module.split(".") if module else []
    if dots:
        folder = posixpath.dirname(at)
        for _ in range(len(dots) - 1):
            folder = posixpath.dirname(folder)
        bases = [posixpath.join(folder, *parts) if parts else folder]
    elif parts:
        bases = ["/".join(parts), "src/" + "/".join(parts)]
    else:
        return None
    for base in bases:
        for t in (base + ".py", base + "/__init__.py"):
            t = t.lstrip("/")
            if t in paths:
                return t
    return None


def imports(snap: rs.Snapshot, at: str, lang: str) -> list[str]:
    """The local files `at` imports, resolved in the snapshot, in the order written."""
    text = snap.text(at)
    paths = set(snap.paths())
    out: list[str] = []
    if lang == "ts":
        for m in TS_IMPORT.finditer(text):
            spec = next(g for g in m.groups() if g)
            found = resolve_ts(spec, at, paths)
            if found and found not in out and found != at:
                out.append(found)
    else:
        for m in PY_IMPORT.finditer(text):
            dots, module, plain = m.group(1) or "", m.group(2) or "", m.group(3) or ""
            found = resolve_py(dots, module or plain, at, paths)
            if found and found not in out and found != at:
                out.append(found)
    return out


def builds(text: str) -> int:
    return sum(1 for ln in text.splitlines() if BUILDS.search(ln))


def drawn_rows(snap: rs.Snapshot, at: str, text: str, lang: str) -> list[list[str]]:
    """MANIFEST rows for the stratum-1 file `at` (its `text`) and the files it imports that
    build the request, the IMPORTS that build most (real28's and real30's)."""
    lic = snap.licence()
    rows = [[at, snap.commit, lic, str(len(text.splitlines())), str(builds(text)), "1", "1"]]
    picks: list[tuple[int, str, int]] = []
    for imp in imports(snap, at, lang):
        if not rs.eligible(imp, lang):
            continue
        body = snap.text(imp)
        size = len(body.splitlines())
        score = builds(body)
        if size <= rs.MAX_LINES and score:
            picks.append((-score, imp, size))
    for rank, (neg, imp, size) in enumerate(sorted(picks)[:IMPORTS], 1):
        rows.append([imp, snap.commit, lic, str(size), str(-neg), str(rank), "2"])
    return rows


class PathDraw(rs.Draw):
    """real28's draw: the name's path and the files it imports that build the request."""

    def names(self) -> dict[str, str]:
        out: dict[str, str] = {}
        for category, name in rs.Draw(self.here, {}, {}).candidates():
            out.setdefault(name, category)
        return out

    def draw(
        self,
        snap: rs.Snapshot,
        lang: str,
        strata: dict[int, tuple[rs.Scorer, int]] | None = None,
    ) -> tuple[list[list[str]], str | None]:
        copy = template_copies().get(snap.name)
        if copy is not None:
            return [], f"template copy ({copy})"
        if TUTORIAL.search(snap.name) or TUTORIAL.search(readme_line(snap)):
            return [], "tutorial or course"
        talk = [p for p in snap.grep(CONVERSATION) if rs.eligible(p, lang)]
        if not talk:
            return [], "no conversation"
        at = path_of(self.names()[snap.name])
        if at not in set(snap.paths()):
            return [], "path not drawn: absent at HEAD"
        if not rs.eligible(at, lang):
            return [], f"path not drawn: not an eligible {lang} file"
        text = snap.text(at)
        n_lines = len(text.splitlines())
        if n_lines > rs.MAX_LINES:
            return [], f"path not drawn: {n_lines} lines"
        return drawn_rows(snap, at, text, lang), None


class NextPathDraw(PathDraw, rs.sibling(HERE, "real21").NextDraw):  # type: ignore[misc]
    """The same draw over block 3 (the `next-N` rows) alone."""


STRATA: dict[int, tuple[rs.Scorer, int]] = {1: (lambda s: {}, 1), 2: (lambda s: {}, IMPORTS)}


def role_main(here: Path, argv: list[str], first: type[rs.Draw], step: type[rs.Draw]) -> int:
    """The command line of real28 and real30 (`--mirror` read by each module): the first draw
    (QUOTA projects a language; `--quota N` lowers the Python quota), or with `--next` one
    volatile step over block 3."""
    python = QUOTA
    if "--quota" in argv:
        at = argv.index("--quota")
        python = int(argv[at + 1])
        argv = argv[:at] + argv[at + 2 :]
    want = {"ts": QUOTA, "py": python}
    if "--next" in argv:
        rest = [a for a in argv if a != "--next"]
        return rs.reserve_step(step(here, STRATA, want), rest, volatile=1)
    return first(here, STRATA, want).main(argv, volatile=1)


def main(argv: list[str]) -> int:
    global MIRROR
    if "--mirror" in argv:
        MIRROR = Path(argv[argv.index("--mirror") + 1])
    return role_main(HERE, argv, PathDraw, NextPathDraw)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
