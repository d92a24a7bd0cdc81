"""Select real18's files by the grep rules in PROCEDURE.md (real10's three strata and the
stopping rules, stated before anything was listed or fetched) and write MANIFEST.tsv and
SKIPPED.txt.

    python tests/policies/corpus/real18/sample.py --upto K                # the first draw
    python tests/policies/corpus/real18/sample.py --reserve --volatile N  # volatile, 1st reserve
    python tests/policies/corpus/real18/sample.py --reserve2 --volatile N # volatile, 2nd reserve
    python tests/policies/corpus/real18/sample.py --upto K --volatile N   # volatile, main list
    python tests/policies/corpus/real18/sample.py --upto K --more N       # a structural step
    python tests/policies/corpus/real18/sample.py --block4 --more N       # amendment 2's steps
    (--upto K: consider only the first K candidates, those whose fetch was tried)

A thin wrapper round the shared ../realsample.py's `Draw` with real10's strata
(`realsample.real10_draw`, which imports them from ../real10/sample.py so that they cannot
drift) and real15's `ReserveDraw` and `Reserve2Draw` (a step over CANDIDATES.tsv's second
block, the `search-N` rows, or its third, the `search2-N` rows, in its order), imported from
../real15/sample.py, as real17's wrapper does. `--block4` (amendment 2) is the same reserve draw
over the fourth block (the `a2-` rows) with a Python quota of 0, so that only TypeScript projects
are taken. It never reads a file's meaning, only counts
matching lines and eligible files.
"""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE.parent))

import realsample as rs  # noqa: E402

real15 = rs.sibling(HERE, "real15")

DRAW = rs.real10_draw(HERE)


class Block4Draw(real15.ReserveDraw):
    """Amendment 2's draw: block 4 (the `a2-` rows) in its order, TypeScript projects only (a
    Python project is passed over as `language full (py)`: the block's Python quota is 0)."""

    prefix: str = "a2-"

    def take(self, mirror, tried, want, upto=None, strata=None, either=None):
        return super().take(mirror, tried, {**want, "py": 0}, upto, strata, either)


# the reserve draw of each flag (real15's classes, imported)
RESERVES = {
    "--reserve": real15.ReserveDraw,
    "--reserve2": real15.Reserve2Draw,
    "--block4": Block4Draw,
}


def main(argv: list[str]) -> int:
    flag = next((a for a in argv if a in RESERVES), None)
    if flag is None:
        return DRAW.main(argv, volatile=3)
    draw = RESERVES[flag](DRAW.here, DRAW.strata, DRAW.want)
    return rs.reserve_step(draw, [a for a in argv if a != flag])


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
