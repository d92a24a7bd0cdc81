"""Select real29's files by the grep rules in PROCEDURE.md (real10's three strata, the language
quotas and the stopping rules, stated before anything was listed or fetched) and write
MANIFEST.tsv and SKIPPED.txt: real22's wrapper (its docstring gives the command line, with
`real29` for `real22`) with real29's quota, 12 projects a language, through the shared
`realsample.next_main`, and real29's README screen: a project is opened only when SCREENED.tsv
holds its verdict (`keep`, or why its README shows no conversation app), and a screened-out
project is recorded in SKIPPED.txt with that reason. It never reads a file's meaning, only
counts matching lines and eligible files.
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

#: the README screen's verdicts (PROCEDURE.md: "Skipped as not a conversation app")
SCREEN = HERE / "SCREENED.tsv"

_open_snapshot = rs.open_snapshot


def verdicts() -> dict[str, str]:
    """owner/name -> `keep` or the reason the README screen skipped the project."""
    out: dict[str, str] = {}
    for line in SCREEN.read_text(encoding="utf-8").splitlines():
        if line and not line.startswith("#"):
            name, verdict = line.split("\t")
            out[name] = verdict
    return out


def screened_snapshot(mirror: Path, name: str) -> rs.Snapshot | None:
    """The project's snapshot where the README screen kept it; None (recorded as skipped by
    `main`) where the screen left it out or there is no snapshot. A snapshot without a verdict
    stops the draw: the README is screened before the draw reaches the name."""
    snap = _open_snapshot(mirror, name)
    if snap is None:
        return None
    verdict = verdicts().get(name)
    if verdict is None:
        raise SystemExit(f"{name}: no README verdict in {SCREEN.name}; screen it first")
    return snap if verdict == "keep" else None


def main(argv: list[str]) -> int:
    """sample.py's command line: the shared draw with the README screen, then each skipped
    project the screen left out recorded with its reason rather than as `no snapshot`."""
    rs.open_snapshot = screened_snapshot
    code = rs.next_main(HERE, QUOTA, argv)
    out = verdicts()
    skipped = HERE / "SKIPPED.txt"
    lines = skipped.read_text(encoding="utf-8").splitlines()
    for at, line in enumerate(lines):
        name = line.split(":")[0]
        if line == f"{name}: no snapshot" and out.get(name, "keep") != "keep":
            lines[at] = f"{name}: not a conversation app (README): {out[name]}"
    skipped.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return code


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
