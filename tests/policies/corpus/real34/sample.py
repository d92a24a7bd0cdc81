"""Select real34's files by the rules in PROCEDURE.md and write MANIFEST.tsv and SKIPPED.txt.

real34 samples application code that already sets prompt-cache controls: each listed name was
found by a code search for cache-marker words. Stratum 1 is the file of the project's language
with the most lines naming a cache marker (Anthropic `cache_control`, the AI SDK's
`cacheControl`, OpenAI `prompt_cache_key`, Bedrock `cachePoint`, Gemini `cached_content`, the
`prompt-caching` beta header, the cache usage counters); stratum 2 is at most two files it
imports that match real10's prompt, request, volatile or date patterns (real28's import strata,
imported). Template copies, tutorials and projects with no conversation are skipped by real28's
rules; names the CANDIDATES.tsv of real31 to real33 list are skipped (the lower number wins).
Everything else (language, quotas, split, steps, the memo) is the shared `../realsample.py`
draw, through real28's command line:

    python tests/policies/corpus/real34/sample.py --upto 30                # first draw
    python tests/policies/corpus/real34/sample.py --upto 79 --more 4       # one step

It never reads a file's meaning, only paths, import lines and counts of matching lines.
"""

from __future__ import annotations

import functools
import re
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE.parent))

import realsample as rs  # noqa: E402

R28 = rs.sibling(HERE, "real28")

#: projects a language in the first draw (PROCEDURE.md: "Taking projects")
QUOTA = 12
#: stratum-2 files a project at most (real28's)
IMPORTS = R28.IMPORTS
#: the cache markers that pick stratum 1 (PROCEDURE.md: "Selection of files"), case-sensitive
MARKERS = (
    "cache_control|cacheControl|prompt_cache_key|promptCacheKey|cachePoint|cache_point"
    "|cached_content|cachedContent|prompt-caching|cache_read_input_tokens|cacheReadInputTokens"
    "|cache_creation_input_tokens|cacheCreationInputTokens|cached_tokens|cachedTokens"
)
MARKER = re.compile(MARKERS)
#: the corpora built beside real34 whose lists win a repository both name
BESIDE = ("31", "32", "33")
MIRROR = Path("/work/.mirror")


@functools.lru_cache(maxsize=1)
def beside_names() -> dict[str, str]:
    """{owner/name (lower case): corpus} over the CANDIDATES.tsv of real31 to real33 as
    committed on their branches (`h30r3N`); a branch not reachable gives none."""
    names: dict[str, str] = {}
    for n in BESIDE:
        out = subprocess.run(
            ["git", "show", f"h30r{n}:tests/policies/corpus/real{n}/CANDIDATES.tsv"],
            capture_output=True,
            text=True,
            cwd=HERE,
        ).stdout
        for line in out.splitlines():
            if line and not line.startswith("#"):
                names.setdefault(line.split("\t")[1].lower(), f"real{n}")
    return names


def markers(text: str) -> int:
    """Lines naming a cache marker, counted case-sensitively."""
    return sum(1 for ln in text.splitlines() if MARKER.search(ln))


@functools.lru_cache(maxsize=1)
def template_copies() -> dict[str, str]:
    """real28's template copies over real34's list."""
    return dict(R28.copies_in(HERE, MIRROR))


class CacheDraw(rs.Draw):
    """real34's draw: the file naming cache markers most, and the files it imports that build
    the request."""

    def draw(
        self,
        snap: rs.Snapshot,
        lang: str,
        strata: dict[int, tuple[rs.Scorer, int]] | None = None,
    ) -> tuple[list[list[str]], str | None]:
        other = beside_names().get(snap.name.lower())
        if other is not None:
            return [], f"listed by {other}"
        copy = template_copies().get(snap.name)
        if copy is not None:
            return [], f"template copy ({copy})"
        if R28.TUTORIAL.search(snap.name) or R28.TUTORIAL.search(R28.readme_line(snap)):
            return [], "tutorial or course"
        talk = [p for p in snap.grep(R28.CONVERSATION) if rs.eligible(p, lang)]
        if not talk:
            return [], "no conversation"
        # git grep is case-insensitive; the stated count is not, so each candidate is recounted
        found = [p for p, n in snap.grep(MARKERS).items() if n and rs.eligible(p, lang)]
        snap.preload(found)
        ranked: list[tuple[int, str, str]] = []
        for path in found:
            body = snap.text(path)
            n = markers(body)
            if n and len(body.splitlines()) <= rs.MAX_LINES:
                ranked.append((-n, path, body))
        if not ranked:
            return [], "no cache marker"
        _, at, text = min(ranked)
        return list(R28.drawn_rows(snap, at, text, lang)), None


STRATA: dict[int, tuple[rs.Scorer, int]] = {1: (lambda s: {}, 1), 2: (lambda s: {}, IMPORTS)}


def main(argv: list[str]) -> int:
    global MIRROR
    if "--mirror" in argv:
        MIRROR = Path(argv[argv.index("--mirror") + 1])
    python = QUOTA
    if "--quota" in argv:
        at = argv.index("--quota")
        python = int(argv[at + 1])
        argv = argv[:at] + argv[at + 2 :]
    return CacheDraw(HERE, STRATA, {"ts": QUOTA, "py": python}).main(argv, volatile=1)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
