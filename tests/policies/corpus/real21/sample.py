"""Select real21's files by the grep rules in PROCEDURE.md (real10's three strata, the language
quotas and the stopping rules, stated before anything was listed or fetched) and write
MANIFEST.tsv and SKIPPED.txt.

    python tests/policies/corpus/real21/sample.py --upto K               # the first draw
    python tests/policies/corpus/real21/sample.py --upto K --quota N     # Python quota lowered to N
    python tests/policies/corpus/real21/sample.py --upto K --volatile N  # a volatile step
    python tests/policies/corpus/real21/sample.py --upto K --more N      # a structural step
    python tests/policies/corpus/real21/sample.py --next --upto F --volatile N  # block 5
    (--upto K: consider only the first K candidates, those whose fetch was tried; the first draw's
    K never passes block 4's last name, so block 5 is read only by a volatile step; with --next,
    F counts block 5's names only)

As real20's wrapper, with real21's quota (50 projects a language): the shared `Draw` with
real10's strata (`realsample.quota_draw`) and `--quota N`; both populations (blocks 1 to 4) are
read side by side by the first draw. `--next` runs a volatile step over block 5 (the `next-N`
rows) alone, with real15's reserve draw under block 5's prefix, through the shared
`realsample.reserve_step`, so that the first draw's `language full` names stay untried behind
it (PROCEDURE.md's order: block 5 first). It never reads a file's meaning, only counts matching
lines and eligible files.
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


#: real15's reserve draw over block 5 (population B's next names) alone
NextDraw = type("NextDraw", (rs.sibling(HERE, "real15").ReserveDraw,), {"prefix": "next-"})


if __name__ == "__main__":
    sys.exit(rs.next_main(HERE, QUOTA, sys.argv[1:]))
