"""Select real22's files by the grep rules in PROCEDURE.md (real10's three strata, the language
quotas and the stopping rules, stated before anything was listed or fetched) and write
MANIFEST.tsv and SKIPPED.txt.

    python tests/policies/corpus/real22/sample.py --upto K               # the first draw
    python tests/policies/corpus/real22/sample.py --upto K --quota N     # Python quota lowered to N
    python tests/policies/corpus/real22/sample.py --upto K --volatile N  # a volatile step
    python tests/policies/corpus/real22/sample.py --upto K --more N      # a structural step
    python tests/policies/corpus/real22/sample.py --next --upto F --volatile N  # block 3
    (--upto K: consider only the first K candidates, those whose fetch was tried; the first draw's
    K never passes block 2's last name, so block 3 is read only by a volatile step; with --next,
    F counts block 3's names only)

As real21's wrapper, with real22's quota (30 projects a language): the shared `Draw` with
real10's strata (`realsample.quota_draw`) and `--quota N`. `--next` runs a volatile step over
block 3 (the `next-N` rows) alone with real21's `NextDraw` (real15's reserve draw under the
`next-` prefix), imported, through the shared `realsample.reserve_step`
(`realsample.next_main`). It never reads a file's meaning, only counts matching lines and
eligible files.
"""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE.parent))

import realsample as rs  # noqa: E402

#: projects a language (PROCEDURE.md: "Taking projects, the language quotas")
QUOTA = 30

#: the draw as stated (30 projects a language); `--quota N` lowers the Python quota only
DRAW = rs.quota_draw(HERE, QUOTA)


if __name__ == "__main__":
    sys.exit(rs.next_main(HERE, QUOTA, sys.argv[1:]))
