"""Score the linter on the real39 corpus (see PROCEDURE.md) with the shared scorer,
../realscore.py, as real27's. Only the development half is scored by the corpus's author; the
test half is scored once, by the lead.

    python tests/policies/corpus/real39/score.py --extract [--mirror DIR]   # fill files/
    python tests/policies/corpus/real39/score.py --half dev [--stratum N]   # score a half
"""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE.parent))

from realscore import Corpus, main  # noqa: E402

if __name__ == "__main__":
    sys.exit(main(Corpus(HERE)))
