"""Reading the emulator's YAML or JSON files (config, scripts) with one-line errors: the file
I/O behind `EmulatorConfig.load` and `Script.load`, so that those modules stay pure.

A parse error names the file and the line and fits on one line: the CLI prints it as is, and
YAML's own messages span several lines with a quoted excerpt of the file.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pydantic

from ..errors import ConfigError
from ..userfiles import read_user_text
from .config import EmulatorConfig
from .model import Script


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


def _invalid(exc: pydantic.ValidationError, where: Path) -> ConfigError:
    err = exc.errors()[0]
    field = ".".join(str(x) for x in err["loc"]) or "(top level)"
    return ConfigError(err["msg"], where=f"{where}: {field}")


def load_config(path: str | os.PathLike[str]) -> EmulatorConfig:
    """A config file (YAML or JSON); errors name the file and the field."""
    p = Path(path)
    data = read_data(p, "config")
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise ConfigError("expected a mapping of settings", where=str(p))
    try:
        config = EmulatorConfig.model_validate(data)
    except pydantic.ValidationError as exc:
        raise _invalid(exc, p) from None
    # Files the config names are found beside it, wherever the server is started from.
    beside = {
        key: str(p.parent / value)
        for key in ("script", "prices")
        if isinstance(value := getattr(config, key), str) and not Path(value).is_absolute()
    }
    return config.model_copy(update=beside) if beside else config


def load_script(path: str | os.PathLike[str]) -> Script:
    """A script file (YAML or JSON); a mistake names the file and the field."""
    p = Path(path)
    data = read_data(p, "script")
    if data is not None and not isinstance(data, dict):
        raise ConfigError("expected a mapping with rules and prompts", where=str(p))
    try:
        return Script.model_validate(data or {})
    except pydantic.ValidationError as exc:
        raise _invalid(exc, p) from None
