"""The store tests share the guard tests' scripted session (tests/guard/guardkit.py)."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "guard"))
