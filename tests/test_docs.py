"""The documentation a reader can follow, read from the source:

- the code, the READMEs, the docs and the linter's rule texts cite only what the repository
  holds: never the founders' working notes (their file names, or the `shared/` folder beside a
  checkout where they lived);
- no text a user reads (package source, its strings and comments, READMEs, docs) names an
  internal tracker number ("issue N"): it says what the issue meant;
- every `docs/NAME.md#anchor` cited anywhere, and every relative link in a README or a doc,
  points at a file that exists and a heading it has.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from functools import cache
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ("harness", "agents", "policies", "tui")
TEXT_SUFFIXES = {".py", ".pyi", ".md", ".toml", ".yaml", ".yml", ".json", ".sh", ".txt", ".tcss"}
SKIPPED = {"corpus", "snapshots", "__snapshots__", "__pycache__"}

# The working notes the project started from: a user has none of them.
NOTES = re.compile(r"\b(?:FACTS|DESIGN|TRANSCRIPTS|TEAM)\.md\b|\.\./shared/|/work/shared\b")
# "issue 6", "issue 18's", "issue #3", "issues 4-5": numbers of a tracker users cannot read.
# A public reference names its repository (claude-code#74547, ccusage#876) and is fine.
ISSUE = re.compile(r"\bissues? #?\d+", re.IGNORECASE)
DOC_REF = re.compile(r"(?<![\w/.-])(?:\.\./)*docs/([\w-]+\.md)(?:#([\w-]+))?")
MD_LINK = re.compile(r"\]\(([^()\s]+)\)")


def _files(folder: Path) -> Iterator[Path]:
    for path in sorted(folder.rglob("*")):
        if path.is_file() and path.suffix in TEXT_SUFFIXES and not SKIPPED & set(path.parts):
            yield path


def _cited_files() -> Iterator[Path]:
    """Everything that can cite a document: the package, examples, tests, docs, CI, READMEs."""
    for folder in (*PACKAGE, "examples", "tests", "docs", ".ci"):
        yield from _files(ROOT / folder)
    yield ROOT / "README.md"
    yield ROOT / "pyproject.toml"
    yield from (p for p in (ROOT / ".ci").iterdir() if p.is_file() and not p.suffix)


def _readmes() -> Iterator[Path]:
    yield ROOT / "README.md"
    for folder in (*PACKAGE, "tests"):
        yield from (p for p in _files(ROOT / folder) if p.name == "README.md")


def _user_visible() -> Iterator[Path]:
    """What a user reads: the installed package (code, strings, comments, data), the examples,
    the docs and every README."""
    seen: set[Path] = set()
    for folder in (*PACKAGE, "examples", "docs"):
        seen.update(_files(ROOT / folder))
    seen.update(_readmes())
    yield from sorted(seen)


def _hits(paths: Iterator[Path], pattern: re.Pattern[str]) -> list[str]:
    me = Path(__file__).resolve()
    found = []
    for path in paths:
        if path.resolve() == me:  # the patterns themselves
            continue
        for n, line in enumerate(path.read_text("utf-8").splitlines(), 1):
            for m in pattern.finditer(line):
                found.append(f"{path.relative_to(ROOT)}:{n}: {m.group(0)!r} in {line.strip()}")
    return found


def slug(heading: str) -> str:
    """The anchor GitHub gives a Markdown heading: lower case, punctuation dropped (markup
    included), spaces turned into hyphens."""
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return text.replace(" ", "-")


@cache
def anchors(path: Path) -> frozenset[str]:
    """The anchors of a Markdown file's headings (outside code fences), with GitHub's `-1`,
    `-2`... on repeated ones."""
    seen: dict[str, int] = {}
    out = set()
    fenced = False
    for line in path.read_text("utf-8").splitlines():
        if line.lstrip().startswith("```"):
            fenced = not fenced
            continue
        m = re.match(r"#{1,6} (.+)", line)
        if fenced or not m:
            continue
        base = slug(m.group(1))
        n = seen.get(base, 0)
        seen[base] = n + 1
        out.add(base if n == 0 else f"{base}-{n}")
    return frozenset(out)


def test_slug_follows_github() -> None:
    assert slug("Anthropic breakpoints") == "anthropic-breakpoints"
    assert slug("Agents you cannot change: `prefixlock proxy`") == (
        "agents-you-cannot-change-prefixlock-proxy"
    )
    assert slug("OpenAI gpt-5.6 (and later)") == "openai-gpt-56-and-later"


def test_nothing_cites_the_working_notes() -> None:
    hits = _hits(_cited_files(), NOTES)
    assert not hits, "\n".join(hits)


def test_no_user_visible_text_names_an_internal_issue_number() -> None:
    hits = _hits(_user_visible(), ISSUE)
    assert not hits, "\n".join(hits)


def test_the_rule_texts_cite_the_docs() -> None:
    from prefixlock.policies.rules import RULES

    for rule in RULES.values():
        doc = rule.doc()
        assert not NOTES.search(doc) and not ISSUE.search(doc), rule.code
        for name, anchor in DOC_REF.findall(doc):
            assert (ROOT / "docs" / name).is_file(), (rule.code, name)
            assert not anchor or anchor in anchors(ROOT / "docs" / name), (rule.code, anchor)


def test_every_cited_docs_anchor_is_a_heading() -> None:
    wrong = []
    cited = 0
    for path in _cited_files():
        if path.resolve() == Path(__file__).resolve():
            continue
        for n, line in enumerate(path.read_text("utf-8").splitlines(), 1):
            for m in DOC_REF.finditer(line):
                cited += 1
                name, anchor = m.group(1), m.group(2)
                target = ROOT / "docs" / name
                if not anchor and path.is_relative_to(ROOT / "tests"):
                    continue  # tests name a workspace's own docs/NAME.md as data
                if not target.is_file():
                    wrong.append(f"{path.relative_to(ROOT)}:{n}: no docs/{name}")
                elif anchor and anchor not in anchors(target):
                    wrong.append(f"{path.relative_to(ROOT)}:{n}: no heading #{anchor} in {name}")
    assert not wrong, "\n".join(wrong)
    assert cited > 20  # the code does cite the docs: the pattern finds them


def test_relative_links_in_docs_and_readmes_resolve() -> None:
    wrong = []
    docs = [*_files(ROOT / "docs"), *_readmes()]
    for path in docs:
        for n, line in enumerate(path.read_text("utf-8").splitlines(), 1):
            for target in MD_LINK.findall(line):
                if re.match(r"[a-z]+:", target):  # http(s), mailto: not ours to check
                    continue
                file, _, anchor = target.partition("#")
                dest = (path.parent / file).resolve() if file else path
                where = f"{path.relative_to(ROOT)}:{n}: {target}"
                if not dest.exists():
                    wrong.append(f"{where}: no such file")
                elif anchor and dest.suffix == ".md" and anchor not in anchors(dest):
                    wrong.append(f"{where}: no such heading")
    assert not wrong, "\n".join(wrong)


def test_the_docs_index_lists_every_doc() -> None:
    index = (ROOT / "docs" / "README.md").read_text("utf-8")
    for doc in sorted((ROOT / "docs").glob("*.md")):
        if doc.name != "README.md":
            assert f"]({doc.name})" in index, doc.name
    assert "](docs/README.md)" in (ROOT / "README.md").read_text("utf-8")
