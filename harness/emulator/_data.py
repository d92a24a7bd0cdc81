"""Reading the emulator's built-in content, shipped in prefixlock/emulator/data/: the coding
session's script (session.yaml), its repository (repository.yaml) and the agent handbook that is
its system prompt (handbook.md). The modules that use them read each once."""

from __future__ import annotations

from importlib import resources
from typing import Any


def read_text(name: str) -> str:
    return resources.files("prefixlock.emulator").joinpath(f"data/{name}").read_text("utf-8")


def read_yaml(name: str) -> Any:
    import yaml

    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)  # libyaml where it is installed
    return yaml.load(read_text(name), Loader=loader)
