"""The in-tree build backend (build_backend/strict_editable.py): setuptools' hooks, with an
editable install strict unless the caller chose a mode (so `pip install -e ".[dev]"` builds the
link tree that `mypy` checks), and a mode the caller chose passed on as given."""

from __future__ import annotations

import importlib.util
import tomllib
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _backend() -> ModuleType:
    """The backend as pip loads it: the module named in pyproject, from its backend-path."""
    pytest.importorskip("setuptools.build_meta", reason="setuptools is not installed here")
    system = tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))["build-system"]
    (folder,) = system["backend-path"]
    path = ROOT / folder / f"{system['build-backend']}.py"
    spec = importlib.util.spec_from_file_location(system["build-backend"], path)
    assert spec is not None and spec.loader is not None, path
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture
def seen(monkeypatch: pytest.MonkeyPatch) -> tuple[ModuleType, list[dict[str, Any]]]:
    """The backend, with setuptools' build_editable replaced by one that records its settings."""
    backend = _backend()
    calls: list[dict[str, Any]] = []

    def build_editable(
        wheel_directory: str, config_settings: dict[str, Any], metadata_directory: str | None
    ) -> str:
        calls.append(config_settings)
        return "prefixlock-0.1.0-py3-none-any.whl"

    monkeypatch.setattr(backend._setuptools, "build_editable", build_editable)
    return backend, calls


@pytest.mark.parametrize("given", [None, {}, {"--global-option": ["-q"]}])
def test_an_editable_install_is_strict_when_no_mode_is_given(
    seen: tuple[ModuleType, list[dict[str, Any]]], given: dict[str, Any] | None
) -> None:
    backend, calls = seen
    before = None if given is None else dict(given)
    assert backend.build_editable("dist", given) == "prefixlock-0.1.0-py3-none-any.whl"
    assert calls == [{**(given or {}), "editable_mode": "strict"}]
    assert given == before  # the caller's settings are left as they were


@pytest.mark.parametrize("given", [{"editable_mode": "lenient"}, {"editable-mode": "compat"}])
def test_a_mode_the_caller_chose_is_kept(
    seen: tuple[ModuleType, list[dict[str, Any]]], given: dict[str, Any]
) -> None:
    backend, calls = seen
    backend.build_editable("dist", given)
    assert calls == [given]


def test_every_other_hook_is_setuptools_own() -> None:
    backend = _backend()
    hooks = [
        "build_wheel",
        "build_sdist",
        "get_requires_for_build_wheel",
        "get_requires_for_build_sdist",
        "prepare_metadata_for_build_wheel",
        "get_requires_for_build_editable",
        "prepare_metadata_for_build_editable",
    ]
    for hook in hooks:
        assert getattr(backend, hook) is getattr(backend._setuptools, hook), hook
    assert sorted(backend.__all__) == sorted([*hooks, "build_editable"])
