"""PL303 findings inside a function named for estimating or measuring what it builds are
dropped (`policies/measured.py` says why). Pure: a tree and findings in, findings out.
"""

# pure: imports no I/O (tests/test_layout.py checks it)

from __future__ import annotations

from ..findings import Finding
from ..measured import drop_within, measures_only
from .syntax import FUNCTIONS, Source, function_name, walk


def drop_measured(src: Source, found: list[Finding]) -> list[Finding]:
    if not any(f.code == "PL303" for f in found):
        return found
    spans = [
        (fn.start_point[0] + 1, fn.end_point[0] + 1)
        for fn in walk(src.root)
        if fn.type in FUNCTIONS and measures_only(function_name(src, fn))
    ]
    return drop_within(found, spans)
