"""Select real27's files by the grep rules in PROCEDURE.md (real10's three strata, the language
quotas and the stopping rules, stated before anything was listed or fetched) and write
MANIFEST.tsv and SKIPPED.txt: real22's wrapper (its docstring gives the command line, with
`real27` for `real22`) with real27's quota, 12 projects a language, behind real27's README
screen (`realsample.screened_main`: a project is opened only when SCREENED.tsv holds its
verdict, `keep` or why its README shows no conversation app). It never reads a file's meaning,
only counts matching lines and eligible files.
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


def main(argv: list[str]) -> int:
    return rs.screened_main(HERE, QUOTA, argv)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
