"""Make `import agents` mean the package, not this folder.

tests/conftest.py puts tests/ on sys.path (pytest's prepend import mode), where this folder,
tests/agents/, would be found as a namespace package named `agents` before the installed one.
Putting the repository root first restores the real package.
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = str(Path(__file__).resolve().parents[2])
if sys.path[:1] != [ROOT]:
    sys.path.insert(0, ROOT)
_mod = sys.modules.get("agents")
if _mod is not None and getattr(_mod, "__file__", None) is None:
    del sys.modules["agents"]  # a namespace package picked up from tests/: drop it
