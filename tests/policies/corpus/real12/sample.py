"""Select real12's files by the grep rules in PROCEDURE.md (real10's three strata and two
stopping rules, stated before anything was listed or fetched) and write MANIFEST.tsv and
SKIPPED.txt.

    python tests/policies/corpus/real12/sample.py --upto K            # the first draw
    python tests/policies/corpus/real12/sample.py --upto K --volatile N  # a volatile step
    python tests/policies/corpus/real12/sample.py --upto K --more N   # a structural step
    (--upto K: consider only the first K candidates, those whose fetch was tried)

A thin wrapper round the shared ../realsample.py's `Draw` with real10's strata, imported from
../real10/sample.py so that they cannot drift. It never reads a file's meaning, only counts
matching lines and eligible files.
"""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE.parent))

import realsample as rs  # noqa: E402

DRAW = rs.real10_draw(HERE)

if __name__ == "__main__":
    sys.exit(DRAW.main(volatile=3))
