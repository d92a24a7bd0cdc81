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

real15 = rs.sibling(HERE, "real15")

#: projects a language (PROCEDURE.md: "Taking projects, the language quotas")
QUOTA = 45


def draw(python: int = QUOTA) -> rs.Draw:
    """real10's draw over CANDIDATES.tsv with the quotas, Python's lowered to `python`."""
    base = rs.real10_draw(HERE)
    return rs.Draw(base.here, base.strata, {"ts": QUOTA, "py": python})


#: the draw as stated (45 projects a language); `--quota N` lowers the Python quota only
DRAW = draw()


def main(argv: list[str]) -> int:
    python = QUOTA
    if "--quota" in argv:
        at = argv.index("--quota")
        python = int(argv[at + 1])
        argv = argv[:at] + argv[at + 2 :]
    if "--reserve" not in argv:
        return draw(python).main(argv, volatile=3)
    # amendment 2's block 4 (the `search-N` rows) alone, with real15's reserve draw
    base = draw(python)
    reserve = real15.ReserveDraw(base.here, base.strata, base.want)
    return rs.reserve_step(reserve, [a for a in argv if a != "--reserve"])


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
