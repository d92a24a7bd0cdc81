"""Select real9's files by the grep rules in PROCEDURE.md (two strata, stated before anything
was fetched) and write MANIFEST.tsv and SKIPPED.txt.

    python tests/policies/corpus/real9/sample.py [--mirror DIR]           # the first draw
    python tests/policies/corpus/real9/sample.py [--mirror DIR] --more N  # N more a language
    (--upto K: consider only the first K candidates, those whose fetch was tried)

A thin wrapper: the draw (listed order, language rule, split, the --more step) is the shared
../realsample.py's `Draw`; this file names real9's strata, real7's patterns and real8's strata,
unchanged. It never reads a file's meaning, only counts matching lines and eligible files.
"""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE.parent / "real7"))

import realsample as rs  # noqa: E402
from sample import clock_near  # noqa: E402  (real7's stratum 2, its patterns unchanged)

# stratum: (how files are scored, files a project); real7's stratum 3 is not drawn.
DRAW = rs.Draw(
    HERE,
    strata={1: (rs.both(rs.PROMPT, rs.CALL), 1), 2: (clock_near, 1)},
    want={"ts": 20, "py": 20},
)

if __name__ == "__main__":
    sys.exit(DRAW.main())
