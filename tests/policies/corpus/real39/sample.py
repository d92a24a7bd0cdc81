"""Select real39's files by the grep rules in PROCEDURE.md and write MANIFEST.tsv and SKIPPED.txt:
real27's wrapper (real10's three strata through `../realsample.py`, the language quotas, `--next`
for the reserve block, `--more N` and `--volatile N` steps) with real39's quota, 8 projects a
language, behind real39's README screen (`realsample.screened_main`: a project is opened only when
SCREENED.tsv holds its verdict). It never reads a file's meaning, only counts matching lines and
eligible files.

    python tests/policies/corpus/real39/sample.py --upto K            # the first draw
    python tests/policies/corpus/real39/sample.py --upto K --volatile 4   # volatile step
"""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE.parent))

import realsample as rs  # noqa: E402

#: projects a language (PROCEDURE.md: "Taking projects, quotas, fetching")
QUOTA = 6

#: the draw as stated (6 projects a language); `--quota N` lowers the Python quota only
DRAW = rs.quota_draw(HERE, QUOTA)


def main(argv: list[str]) -> int:
    return rs.screened_main(HERE, QUOTA, argv)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
