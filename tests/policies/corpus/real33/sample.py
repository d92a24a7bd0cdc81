"""Select real33's files by the rules in PROCEDURE.md and write MANIFEST.tsv and SKIPPED.txt.

real33 samples apps that someone wrote a web page about; its files are drawn as real30 draws
them (the file calling the model on most lines, and at most two files it imports that build
the request), with real28's `tutorial or course` and `no conversation` skips. Two of real30's
rules do not apply (no manifest rule, no template rule) and stratum 1's pattern also counts a
provider's chat endpoint written as text, so an app that calls the model over HTTP is drawn.
Everything else is the shared `../realsample.py` draw:

    python tests/policies/corpus/real33/sample.py --upto K [--quota N]          # first draw
    python tests/policies/corpus/real33/sample.py --upto K --volatile 8         # label steps
    python tests/policies/corpus/real33/sample.py --upto K --more 4             # fill

It never reads a file's meaning, only README first lines, counts of matching lines and
import lines.
"""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE.parent))

import realsample as rs  # noqa: E402

# real30's draw is imported, not written again; this copy of its module is real33's alone, so
# its rule switches below change nothing for real30
R30 = rs.sibling(HERE, "real30")

#: projects a language in the first draw (PROCEDURE.md: "Taking projects")
QUOTA = 20
#: a provider's chat endpoint written as text (PROCEDURE.md: "Selection of files")
ENDPOINT = r"chat/completions|/v1/messages|/api/chat\b|:generateContent|:streamGenerateContent"

R30.SDKCALL = f"{R30.SDKCALL}|{ENDPOINT}"
R30.declares_sdk = lambda snap: True  # no manifest rule
R30.template_copies = dict  # no template rule: no name is a copy

# real30's draw under its own names, so the held-out test checks it as real30's sampler
ManifestDraw = R30.ManifestDraw
STRATA = R30.STRATA
IMPORTS = R30.IMPORTS


def main(argv: list[str]) -> int:
    python = QUOTA
    if "--quota" in argv:
        at = argv.index("--quota")
        python = int(argv[at + 1])
        argv = argv[:at] + argv[at + 2 :]
    draw = ManifestDraw(HERE, STRATA, {"ts": QUOTA, "py": python})
    return int(draw.main(argv, volatile=1))


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
