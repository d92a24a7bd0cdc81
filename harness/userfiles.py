"""Reading a file the user names (a price table, a lint config, an emulator script) as text,
with the one-line `ConfigError` the CLI prints instead of a traceback. Parsing stays with each
caller: the formats and their messages differ."""

from __future__ import annotations

import os
from pathlib import Path

from .errors import ConfigError


def read_user_text(path: str | os.PathLike[str], what: str) -> str:
    """The UTF-8 text of `path`; `what` names the file in the error ("price file")."""
    p = Path(path)
    try:
        return p.read_text(encoding="utf-8")
    except OSError as exc:
        raise ConfigError(f"cannot read {what}: {exc.strerror}", where=str(p)) from None
    except UnicodeDecodeError:
        raise ConfigError(f"cannot read {what}: not UTF-8 text", where=str(p)) from None
