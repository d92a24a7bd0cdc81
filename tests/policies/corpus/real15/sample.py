"""Select real15's files by the grep rules in PROCEDURE.md (real10's three strata and the
stopping rules, stated before anything was listed or fetched) and write MANIFEST.tsv and
SKIPPED.txt.

    python tests/policies/corpus/real15/sample.py --upto K                # the first draw
    python tests/policies/corpus/real15/sample.py --reserve --volatile N  # volatile, reserve
    python tests/policies/corpus/real15/sample.py --reserve2 --volatile N # volatile, 2nd reserve
    python tests/policies/corpus/real15/sample.py --upto K --volatile N   # volatile, main list
    python tests/policies/corpus/real15/sample.py --upto K --more N       # a structural step
    (--upto K: consider only the first K candidates, those whose fetch was tried)

A thin wrapper round the shared ../realsample.py's `Draw` with real10's strata, imported from
../real10/sample.py so that they cannot drift. Its one addition: `--reserve` restricts a step to
CANDIDATES.tsv's second block (the `search-N` rows, PROCEDURE.md's volatile reserve), in its
order, and `--reserve2` likewise to the third block (the `search2-N` rows, the amendment's second
reserve). It never reads a file's meaning, only counts matching lines and eligible files.
"""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE.parent))

import realsample as rs  # noqa: E402

# the category prefix of each reserve block's rows, by its flag
RESERVES = {"--reserve": "search-", "--reserve2": "search2-"}


class ReserveDraw(rs.Draw):
    """real10's draw over one reserve block of CANDIDATES.tsv only (its rows' category starts
    with `prefix`), in its order."""

    prefix: str = "search-"

    def candidates(self) -> list[tuple[str, str]]:
        return [r for r in super().candidates() if r[0].startswith(self.prefix)]


class Reserve2Draw(ReserveDraw):
    """The same over the third block (the second reserve)."""

    prefix: str = "search2-"


DRAW = rs.real10_draw(HERE)


def main(argv: list[str]) -> int:
    flag = next((a for a in argv if a in RESERVES), None)
    if flag is None:
        return DRAW.main(argv, volatile=3)
    kind = ReserveDraw if flag == "--reserve" else Reserve2Draw
    return rs.reserve_step(kind(DRAW.here, DRAW.strata, DRAW.want), [a for a in argv if a != flag])


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
