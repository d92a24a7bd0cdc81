"""Score the linter on the real10 corpus (see PROCEDURE.md) with the shared scorer,
../realscore.py. real10 labels and scores every selected file (three strata; `--stratum N`
scores one).

    python tests/policies/corpus/real10/score.py --extract [--mirror DIR]   # fill files/
    python tests/policies/corpus/real10/score.py --half dev [--stratum N]   # score a half
"""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE.parent))

from realscore import Corpus, main  # noqa: E402

if __name__ == "__main__":
    sys.exit(main(Corpus(HERE)))
