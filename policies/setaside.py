"""Folders of set-aside copies: a trash or backup folder (`_trash_2025-06-13`, `backups`,
`old.bak`). A file there that does not parse is a broken copy nothing runs (an import-cleanup
script's leftovers), so its parse failure (PL901) is no finding; what parses is still linted.
Pure: a path in, a yes or no out.
"""

# pure: imports no I/O (tests/test_layout.py checks it)

from __future__ import annotations

import re

from .meaning import words

_SET_ASIDE = frozenset({"trash", "backup", "backups", "bak"})


def set_aside(path: str) -> bool:
    """Whether a folder above the file is named for trashed or backed-up copies."""
    return any(set(words(part)) & _SET_ASIDE for part in re.split(r"[\\/]", path)[:-1])
