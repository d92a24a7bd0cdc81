"""Reading the emulator's YAML or JSON files (config, scripts) with one-line errors.

A parse error names the file and the line and fits on one line: the CLI prints it as is, and
YAML's own messages span several lines with a quoted excerpt of the file.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from ..errors import ConfigError
from ..userfiles import read_user_text


def read_data(path: str | Path, what: str) -> Any:
    """The parsed contents of a `.json` file, or of a YAML file for any other suffix."""
    p = Path(path)
    text = read_user_text(p, what)
    if p.suffix.lower() == ".json":
        try:
            return json.loads(text)
        except json.JSONDecodeError as exc:
            raise ConfigError(
                f"invalid JSON in {what}: {exc.msg}", where=f"{p}:{exc.lineno}:{exc.colno}"
            ) from None
    import yaml

    try:
        return yaml.safe_load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"{p}:{mark.line + 1}:{mark.column + 1}" if mark is not None else str(p)
        problem = getattr(exc, "problem", None) or type(exc).__name__
        context = getattr(exc, "context", None)
        message = f"{context}: {problem}" if context else str(problem)
        raise ConfigError(
            f"invalid YAML in {what}: {' '.join(message.split())}", where=where
        ) from None
