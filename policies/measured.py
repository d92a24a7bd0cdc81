"""Code that builds a request only to measure it: a function whose name has the word
`estimate` or `measure` (`estimatePayload`, `measure_prompt_size`) feeds a meter, not a model,
so the history it cuts to a window is sent nowhere. Both front ends drop the PL303 findings
inside one. Pure: a name in, a yes or no out.
"""

# pure: imports no I/O (tests/test_layout.py checks it)

from __future__ import annotations

from .meaning import words

_MEASURING = frozenset({"estimate", "estimated", "measure", "measured"})


def measures_only(name: str) -> bool:
    """Whether a function's name says it measures what it builds."""
    return bool(set(words(name)) & _MEASURING)
