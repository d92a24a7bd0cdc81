"""The build backend: setuptools' own (`setuptools.build_meta`), re-exported, with one default
changed: an editable install is strict unless the caller chose a mode, so a plain
`pip install -e .` builds what `pip install -e . --config-settings editable_mode=strict` does.

Why: pyproject maps the package `prefixlock` to the folder `harness/` (and its subpackages to
`agents/`, `policies/`, `tui/`). Setuptools' default editable install finds them through an import
hook, which mypy cannot follow, and mypy cannot check `harness/` under its real name. A strict
install builds a link tree, `build/__editable__.*/prefixlock`, which mypy checks as `prefixlock`
(pyproject's [tool.mypy] `files`). Setuptools documents this way of adjusting its backend: a
module in the source tree that wraps `setuptools.build_meta`, named in `[build-system]` with
`backend-path`. Wheels and sdists are setuptools' own, unchanged.
"""

from __future__ import annotations

from typing import Any

from setuptools import build_meta as _setuptools
from setuptools.build_meta import (
    build_sdist,
    build_wheel,
    get_requires_for_build_editable,
    get_requires_for_build_sdist,
    get_requires_for_build_wheel,
    prepare_metadata_for_build_editable,
    prepare_metadata_for_build_wheel,
)

__all__ = [
    "build_editable",
    "build_sdist",
    "build_wheel",
    "get_requires_for_build_editable",
    "get_requires_for_build_sdist",
    "get_requires_for_build_wheel",
    "prepare_metadata_for_build_editable",
    "prepare_metadata_for_build_wheel",
]

# The two spellings setuptools reads (`--config-settings editable_mode=...` or `editable-mode=`).
MODE_KEYS = ("editable_mode", "editable-mode")


def build_editable(
    wheel_directory: str,
    config_settings: dict[str, Any] | None = None,
    metadata_directory: str | None = None,
) -> str:
    """Setuptools' build_editable, in strict mode when `config_settings` names no mode."""
    settings = dict(config_settings or {})
    if not any(key in settings for key in MODE_KEYS):
        settings["editable_mode"] = "strict"
    return str(_setuptools.build_editable(wheel_directory, settings, metadata_directory))
