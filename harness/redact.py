"""Secret values out of text: the one rule for every text that may carry an API key (a
provider's error message, a task handed to a subagent).

A secret of `WHOLE_ONLY_BELOW` characters or more is masked wherever it stands, inside a longer
word too, so no part of a key reaches a log or a model. A shorter one (a local server's
placeholder key such as `x`, which accepts any) is masked only where it stands alone: masking it
inside words would turn "exist" into "e***ist" and leave nothing readable. Pure.
"""

# pure: imports no I/O (tests/test_layout.py checks it)

from __future__ import annotations

import re
from collections.abc import Iterable

WHOLE_ONLY_BELOW = 6


def redact(text: str, secrets: Iterable[str | None], mask: str = "***") -> str:
    """`text` with each of `secrets` (None and empty ones skipped) replaced by `mask`."""
    for secret in secrets:
        if not secret:
            continue
        if len(secret) >= WHOLE_ONLY_BELOW:
            text = text.replace(secret, mask)
        else:
            text = re.sub(rf"(?<![\w-]){re.escape(secret)}(?![\w-])", lambda _: mask, text)
    return text
