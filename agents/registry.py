"""Where agent definitions come from: the built-in set, the project, and Claude Code's folder.

Later sources override earlier ones by name: built-in (shipped in `agents/builtin/`), then
`.claude/agents/` (so existing Claude Code agent files work as they are), then
`.prefixlock/agents/`. Files are read in name order so the result never depends on the file
system's listing order. Unknown front-matter keys are reported once per file and key.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Iterator
from importlib import resources
from pathlib import Path

from prefixlock.errors import UserError

from .definitions import AgentDefinition, load_definition, parse_definition

log: logging.Logger = logging.getLogger("prefixlock.agents")

# (source, key) pairs already reported, so a registry loaded per call does not repeat itself.
_REPORTED: set[tuple[str, str]] = set()

PROJECT_DIRS: tuple[tuple[str, str], ...] = (
    (".claude/agents", "claude"),
    (".prefixlock/agents", "project"),
)


def builtin_definitions() -> list[AgentDefinition]:
    """The agents shipped with prefixlock (explorer, summarizer)."""
    folder = resources.files("prefixlock.agents").joinpath("builtin")
    found = []
    for entry in sorted(folder.iterdir(), key=lambda e: e.name):
        if entry.name.endswith(".md"):
            found.append(
                parse_definition(
                    entry.read_text("utf-8"), f"builtin:{entry.name}", origin="builtin"
                )
            )
    return found


class AgentRegistry:
    """Agent definitions by name, with the warnings their loading produced."""

    def __init__(self, definitions: Iterable[AgentDefinition] = ()) -> None:
        self._defs: dict[str, AgentDefinition] = {}
        self.warnings: list[str] = []
        for d in definitions:
            self.add(d)

    def add(self, definition: AgentDefinition) -> None:
        """Register `definition`, replacing one of the same name."""
        self._defs[definition.name] = definition
        for key in definition.unknown_keys:
            msg = f"{definition.source}: key {key!r} is not used by prefixlock (kept, ignored)"
            if msg not in self.warnings:
                self.warnings.append(msg)
            if (definition.source, key) not in _REPORTED:
                _REPORTED.add((definition.source, key))
                log.warning(msg)

    def load_dir(self, folder: str | Path, *, origin: str) -> int:
        """Add every `*.md` in `folder` (if it exists); returns how many were loaded."""
        p = Path(folder)
        if not p.is_dir():
            return 0
        n = 0
        for path in sorted(p.glob("*.md")):
            self.add(load_definition(path, origin=origin))
            n += 1
        return n

    @classmethod
    def discover(cls, root: str | Path | None = None, *, builtin: bool = True) -> AgentRegistry:
        """Built-in agents, then `.claude/agents/` and `.prefixlock/agents/` under `root`."""
        reg = cls(builtin_definitions() if builtin else ())
        if root is not None:
            for rel, origin in PROJECT_DIRS:
                reg.load_dir(Path(root) / rel, origin=origin)
        return reg

    def get(self, name: str) -> AgentDefinition:
        try:
            return self._defs[name]
        except KeyError:
            known = ", ".join(sorted(self._defs)) or "none"
            raise UserError(
                f"unknown agent {name!r}; known agents: {known}", where="agent"
            ) from None

    def __contains__(self, name: object) -> bool:
        return name in self._defs

    def __iter__(self) -> Iterator[AgentDefinition]:
        return iter([self._defs[k] for k in sorted(self._defs)])

    def __len__(self) -> int:
        return len(self._defs)

    def names(self) -> list[str]:
        return sorted(self._defs)
