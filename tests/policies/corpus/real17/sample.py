"""Select real17's files by the grep rules in PROCEDURE.md (real10's three strata and the
stopping rules, stated before anything was listed or fetched) and write MANIFEST.tsv and
SKIPPED.txt.

    python tests/policies/corpus/real17/sample.py --upto K                # the first draw
    python tests/policies/corpus/real17/sample.py --reserve --volatile N  # volatile, reserve
    python tests/policies/corpus/real17/sample.py --reserve2 --volatile N # volatile, 2nd reserve
    python tests/policies/corpus/real17/sample.py --reserve3 --upto F --volatile N  # 3rd reserve
    python tests/policies/corpus/real17/sample.py --upto K --volatile N   # volatile, main list
    python tests/policies/corpus/real17/sample.py --upto K --more N       # a structural step
    (--upto K: consider only the first K candidates, those whose fetch was tried)

A thin wrapper round the shared ../realsample.py's `Draw` with real10's strata (imported from
../real10/sample.py so that they cannot drift) and real15's `ReserveDraw` and `Reserve2Draw` (a
step over CANDIDATES.tsv's second block, the `search-N` rows, or its third, amendment 1's
`search2-N` rows, in its order), imported from ../real15/sample.py, as real16's wrapper does, and
real16's `Reserve3Draw` (prefix `search3-`: amendment 2's fifth block), imported from
../real16/sample.py. It never reads a file's meaning, only counts
matching lines and eligible files.
"""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE.parent))

import realsample as rs  # noqa: E402

real15 = rs.sibling(HERE, "real15")
real16 = rs.sibling(HERE, "real16")

DRAW = rs.real10_draw(HERE)

# the reserve draw of each flag (real15's classes and real16's Reserve3Draw, imported)
RESERVES = {
    "--reserve": real15.ReserveDraw,
    "--reserve2": real15.Reserve2Draw,
    "--reserve3": real16.Reserve3Draw,
}


def main(argv: list[str]) -> int:
    flag = next((a for a in argv if a in RESERVES), None)
    if flag is None:
        return DRAW.main(argv, volatile=3)
    draw = RESERVES[flag](DRAW.here, DRAW.strata, DRAW.want)
    return rs.reserve_step(draw, [a for a in argv if a != flag])


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
