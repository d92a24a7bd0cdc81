"""Score the linter on the real2 corpus (see PROCEDURE.md) with the shared scorer,
../realscore.py. real2 has no ranks and counts any finding of the family on a labelled
line (its rule before real3).

    python tests/policies/corpus/real2/score.py --extract [--mirror DIR]   # fill files/
    python tests/policies/corpus/real2/score.py --half dev                # score a half
"""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE.parent))

from realscore import Corpus, main  # noqa: E402

if __name__ == "__main__":
    sys.exit(main(Corpus(HERE, matched=False)))
