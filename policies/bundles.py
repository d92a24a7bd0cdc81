"""Whether a JavaScript file is a minified bundle rather than source someone wrote.

A bundle's names are a minifier's (`Wa`, `Ts`, `e`): read by their words they mean anything, so
the linter does not read a bundle as source. The rule is the file's shape, not its name: lines
that average MINIFIED_MEAN characters or more, and identifiers of one or two characters making
SHORT_SHARE or more of all identifiers. Measured on the real-code corpora (real9-real11): every
hand-written file averages under 110 characters a line (prompt texts on one line included);
every bundle averages over 3,000, with 36-55% of its identifiers one or two characters long.
Pure: text in, a verdict out.
"""

# pure: imports no I/O (tests/test_layout.py checks it)

from __future__ import annotations

import re

MINIFIED_MEAN = 500
SHORT_SHARE = 0.30
_IDENT = re.compile(r"[A-Za-z_$][\w$]*")


def looks_minified(text: str) -> bool:
    """True for a minified bundle: long lines on average and mostly one- or two-letter names."""
    lines = text.count("\n") + 1
    if len(text) / lines < MINIFIED_MEAN:
        return False
    names = _IDENT.findall(text)
    short = sum(1 for n in names if len(n) <= 2)
    return bool(names) and short / len(names) >= SHORT_SHARE
