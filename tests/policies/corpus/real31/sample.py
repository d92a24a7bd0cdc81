"""Select real31's files by the rules in PROCEDURE.md and write MANIFEST.tsv and SKIPPED.txt.

real31's names come from issue threads about prompt caching and token cost; the draw is
real27's (real10's three strata, 12 projects a language in the first draw, behind the README
screen of SCREENED.tsv, `realsample.screened_main`) with one change: a project's language is
decided by the files holding the prompt, not by its count of files:

    python tests/policies/corpus/real31/sample.py --upto K [--quota N]   # first draw
    python tests/policies/corpus/real31/sample.py --upto K --more 4      # a top-up step

It never reads a file's meaning, only counts matching lines and eligible files.
"""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE.parent))

import realsample as rs  # noqa: E402

#: projects a language in the first draw (PROCEDURE.md: "Taking projects")
QUOTA = 12

#: the draw as stated (12 projects a language); `--quota N` lowers the Python quota only
DRAW = rs.quota_draw(HERE, QUOTA)

#: the language rule every earlier corpus used, kept as the fallback
BY_FILES = rs.language


def prompt_language(snap: rs.Snapshot) -> str:
    """The language whose eligible files hold more lines matching the prompt pattern (a tie
    goes to TypeScript); with no such line, the language with more eligible files."""
    lines = {"ts": 0, "py": 0}
    for path, n in snap.grep(rs.PROMPT).items():
        for lang in lines:
            if rs.eligible(path, lang):
                lines[lang] += n
    if not any(lines.values()):
        return BY_FILES(snap)
    return "ts" if lines["ts"] >= lines["py"] else "py"


def main(argv: list[str]) -> int:
    # the shared draw looks the language up on the module, so the rule is swapped in there
    # for this run only
    rs.language = prompt_language
    try:
        return rs.screened_main(HERE, QUOTA, argv)
    finally:
        rs.language = BY_FILES


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
