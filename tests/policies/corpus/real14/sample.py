"""Select real14's files by the grep rules in PROCEDURE.md (real10's three strata and the
stopping rules, stated before anything was listed or fetched) and write MANIFEST.tsv and
SKIPPED.txt.

    python tests/policies/corpus/real14/sample.py --upto K                # the first draw
    python tests/policies/corpus/real14/sample.py --reserve --volatile N  # volatile, reserve
    python tests/policies/corpus/real14/sample.py --upto K --volatile N   # volatile, main list
    python tests/policies/corpus/real14/sample.py --upto K --more N       # a structural step
    (--upto K: consider only the first K candidates, those whose fetch was tried)

A thin wrapper round the shared ../realsample.py's `Draw` with real10's strata, imported from
../real10/sample.py so that they cannot drift. Its one addition: `--reserve` restricts a step to
CANDIDATES.tsv's second block (the `search-N` rows, PROCEDURE.md's volatile reserve), in its
order. It never reads a file's meaning, only counts matching lines and eligible files.
"""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE.parent))

import realsample as rs  # noqa: E402

RESERVE = "search-"  # the category prefix of the reserve block's rows


class ReserveDraw(rs.Draw):
    """real10's draw over CANDIDATES.tsv's second block only (the `search-N` rows), in its
    order."""

    def candidates(self) -> list[tuple[str, str]]:
        return [r for r in super().candidates() if r[0].startswith(RESERVE)]


DRAW = rs.real10_draw(HERE)


def main(argv: list[str]) -> int:
    if "--reserve" not in argv:
        return DRAW.main(argv, volatile=3)
    reserve = ReserveDraw(DRAW.here, DRAW.strata, DRAW.want)
    return rs.reserve_step(reserve, [a for a in argv if a != "--reserve"])


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
