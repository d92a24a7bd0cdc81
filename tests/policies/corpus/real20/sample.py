"""Select real20's files by the grep rules in PROCEDURE.md (real10's three strata, the language
quotas and the stopping rules, stated before anything was listed or fetched) and write
MANIFEST.tsv and SKIPPED.txt.

    python tests/policies/corpus/real20/sample.py --upto K               # the first draw
    python tests/policies/corpus/real20/sample.py --upto K --quota N     # Python quota lowered to N
    python tests/policies/corpus/real20/sample.py --upto K --volatile N  # a volatile step
    python tests/policies/corpus/real20/sample.py --upto K --more N      # a structural step
    python tests/policies/corpus/real20/sample.py --reserve --upto F --volatile N  # block 3
    (--upto K: consider only the first K candidates, those whose fetch was tried; for the main
    list K never passes block 2's last name, for --reserve F counts block 3's names only)

As real19's wrapper, with real20's quota (50 projects a language): the shared `Draw` with
real10's strata (`realsample.real10_draw`) and `--quota N`; block 3 (the `search-N` rows) runs
with real15's `ReserveDraw` through the shared `realsample.reserve_step`. It never reads a
file's meaning, only counts matching lines and eligible files.
"""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE.parent))

import realsample as rs  # noqa: E402

#: projects a language (PROCEDURE.md: "Taking projects, the language quotas")
QUOTA = 50

#: the draw as stated (50 projects a language); `--quota N` lowers the Python quota only
DRAW = rs.quota_draw(HERE, QUOTA)


def main(argv: list[str]) -> int:
    return rs.quota_main(HERE, QUOTA, argv)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
