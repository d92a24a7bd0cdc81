"""The analyze tests build a prefixlock store with the guard tests' scripted emulator session
(tests/guard/guardkit.py), as the store tests do."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "guard"))
