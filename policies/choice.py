"""Names of a model the user picks per request (`selectedChatModel`, `requested_model`): a tool
list chosen by one changes with the user's pick inside one conversation, like one chosen by a
mode. The deployment's own `model` setting is no pick. Pure: a name in, a yes or no out.
"""

# pure: imports no I/O (tests/test_layout.py checks it)

from __future__ import annotations

from .meaning import words

# Words that make a model name the user's pick for this request rather than a configuration.
_PICKED = frozenset({"selected", "chosen", "requested", "picked"})


def picked_model(name: str) -> bool:
    """`selectedChatModel`, `chosen_model`: a model the request names."""
    ws = set(words(name))
    return "model" in ws and bool(ws & _PICKED)
