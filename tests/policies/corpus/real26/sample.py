"""Select real26's files by the grep rules in PROCEDURE.md (real10's three strata, the language
quotas and the stopping rules, stated before anything was listed or fetched) and write
MANIFEST.tsv and SKIPPED.txt: real22's wrapper (its docstring gives the command line, with
`real26` for `real22`) with real26's quota, 12 projects a language, through the shared
`realsample.next_main`. It never reads a file's meaning, only counts matching lines and
eligible files.
"""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE.parent))

import realsample as rs  # noqa: E402

#: projects a language (PROCEDURE.md: "Taking projects, the language quotas")
QUOTA = 12

#: the draw as stated (12 projects a language); `--quota N` lowers the Python quota only
DRAW = rs.quota_draw(HERE, QUOTA)


if __name__ == "__main__":
    sys.exit(rs.next_main(HERE, QUOTA, sys.argv[1:]))
