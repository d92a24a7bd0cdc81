"""Select real32's files by the grep rules in PROCEDURE.md and write MANIFEST.tsv and SKIPPED.txt:
real27's wrapper (real10's three strata behind the README screen, `realsample.screened_main`)
with real32's quota, 12 projects a language. real32's names come from package registry pages
(the `docs` corpus) rather than code searches; the draw itself is real27's, unchanged:

    python tests/policies/corpus/real32/sample.py --upto K [--quota N]   # the first draw
    python tests/policies/corpus/real32/sample.py --upto K --more 4      # a step of 4 a language

A project is opened only when SCREENED.tsv holds its verdict (`keep`, or why its README shows
no conversation app). It never reads a file's meaning, only counts matching lines and eligible
files.
"""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE.parent))

import realsample as rs  # noqa: E402

#: projects a language in the first draw (PROCEDURE.md: "Selection of files, taking projects")
QUOTA = 12

#: the draw as stated (12 projects a language); `--quota N` lowers the Python quota only
DRAW = rs.quota_draw(HERE, QUOTA)


def main(argv: list[str]) -> int:
    return rs.screened_main(HERE, QUOTA, argv)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
