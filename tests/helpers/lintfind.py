"""What the linter reports on a piece of source: (line, code) pairs, for the shape tests."""

from __future__ import annotations

from prefixlock.policies.engine import lint_source


def line_codes(text: str, path: str) -> list[tuple[int, str]]:
    """Each finding of `text` linted as the file `path`, as (line, code), in report order."""
    return [(f.line, f.code) for f in lint_source(text, path)]


def lines_of(text: str, code: str, path: str = "agent.py") -> list[int]:
    """The lines of `text`, linted as the file `path`, that have a finding of `code`."""
    return [f.line for f in lint_source(text, path) if f.code == code]
