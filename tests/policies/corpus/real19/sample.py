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

import importlib.util
import sys
from pathlib import Path

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE.parent))

import realsample as rs  # noqa: E402

_REAL15 = HERE.parent / "real15" / "sample.py"
_spec = importlib.util.spec_from_file_location("real15_sample", _REAL15)
assert _spec is not None and _spec.loader is not None
real15 = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(real15)

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
    # amendment 2's block 4 (the `search-N` rows) alone; as real15's wrapper, the `language
    # full` lines the shared draw drops (it expects to try them next) are put back
    skipped = HERE / "SKIPPED.txt"
    passed = [
        ln for ln in skipped.read_text(encoding="utf-8").splitlines() if "language full" in ln
    ]
    base = draw(python)
    reserve = real15.ReserveDraw(base.here, base.strata, base.want)
    code = reserve.main([a for a in argv if a != "--reserve"], volatile=3)
    now = skipped.read_text(encoding="utf-8").splitlines()
    kept = [ln for ln in passed if ln not in now]
    skipped.write_text("\n".join(kept + now) + "\n", encoding="utf-8")
    return code


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
