"""Select real10's files by the grep rules in PROCEDURE.md (three strata and two stopping
rules, stated before anything was listed or fetched) and write MANIFEST.tsv and SKIPPED.txt.

    python tests/policies/corpus/real10/sample.py --upto K            # the first draw
    python tests/policies/corpus/real10/sample.py --upto K --volatile N  # a volatile step
    python tests/policies/corpus/real10/sample.py --upto K --more N   # a structural step
    (--upto K: consider only the first K candidates, those whose fetch was tried)

A thin wrapper round the shared ../realsample.py's `Draw`: real7's patterns and real8's two
strata, unchanged, and real10's stratum 3 (a clock, cwd, git, random or machine read within 8
lines of system-prompt text, or a date placeholder). It never reads a file's meaning, only
counts matching lines and eligible files.
"""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE.parent / "real7"))

import realsample as rs  # noqa: E402
from sample import DATETEXT, VOLATILE, clock_near  # noqa: E402  (real7's, unchanged)


def beside_prompt(snap: rs.Snapshot) -> dict[str, int]:
    """Stratum 3: DATETEXT lines plus VOLATILE lines within 8 lines of a PROMPT line (prompt
    text only: calls and message pushes are no anchor here)."""
    dated = snap.grep(DATETEXT)
    close = rs.near(VOLATILE, (rs.PROMPT,), 8)(snap)
    return {p: dated.get(p, 0) + close.get(p, 0) for p in dated.keys() | close.keys()}


DRAW = rs.Draw(
    HERE,
    strata={
        1: (rs.both(rs.PROMPT, rs.CALL), 1),
        2: (clock_near, 1),
        3: (beside_prompt, 1),
    },
    want={"ts": 20, "py": 20},
)

if __name__ == "__main__":
    sys.exit(DRAW.main(volatile=3))
