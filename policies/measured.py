"""Code that builds a request only to measure it: a function whose name has the word
`estimate` or `measure` (`estimatePayload`, `measure_prompt_size`) feeds a meter, not a model,
so the history it cuts to a window is sent nowhere. Both front ends drop the PL303 findings
inside one (`drop_within`). Pure: names and findings in, a verdict and findings out.
"""

# pure: imports no I/O (tests/test_layout.py checks it)

from __future__ import annotations

from .findings import Finding
from .meaning import words

_MEASURING = frozenset({"estimate", "estimated", "measure", "measured"})


def measures_only(name: str) -> bool:
    """Whether a function's name says it measures what it builds."""
    return bool(set(words(name)) & _MEASURING)


def drop_within(found: list[Finding], spans: list[tuple[int, int]]) -> list[Finding]:
    """`found` less its PL303 findings on a line of a measuring function (first, last line)."""
    return [f for f in found if not (f.code == "PL303" and any(a <= f.line <= b for a, b in spans))]
