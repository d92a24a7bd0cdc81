"""Select real19's files by the grep rules in PROCEDURE.md (real10's three strata, the language
quotas and the stopping rules, stated before anything was listed or fetched) and write
MANIFEST.tsv and SKIPPED.txt.

    python tests/policies/corpus/real19/sample.py --upto K               # the first draw
    python tests/policies/corpus/real19/sample.py --upto K --quota N     # Python quota lowered to N
    python tests/policies/corpus/real19/sample.py --upto K --volatile N  # a volatile step
    python tests/policies/corpus/real19/sample.py --upto K --more N      # a structural step
    python tests/policies/corpus/real19/sample.py --reserve --upto F --volatile N  # block 4
    (--upto K: consider only the first K candidates, those whose fetch was tried)

A thin wrapper round the shared ../realsample.py's `Draw` with real10's strata
(`realsample.real10_draw`, which imports them from ../real10/sample.py so that they cannot
drift). Its only addition is the quotas: 45 projects a language, and `--quota N` to lower the
Python quota to the TypeScript count, so that the corpus is at least half TypeScript by
construction. Amendment 2 adds `--reserve`: a step over CANDIDATES.tsv's fourth block only (the
`search-N` rows), in its order, with real15's `ReserveDraw` (imported from ../real15/sample.py,
as real17's wrapper does). It never reads a file's meaning, only counts matching lines and
eligible files.
"""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE.parent))

import realsample as rs  # noqa: E402

#: projects a language (PROCEDURE.md: "Taking projects, the language quotas")
QUOTA = 45

#: the draw as stated (45 projects a language); `--quota N` lowers the Python quota only
DRAW = rs.quota_draw(HERE, QUOTA)


def main(argv: list[str]) -> int:
    return rs.quota_main(HERE, QUOTA, argv)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
