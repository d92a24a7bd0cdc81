"""What the linter reports on a piece of source: (line, code) pairs, for the shape tests."""

from __future__ import annotations

from prefixlock.policies.engine import lint_source


def line_codes(text: str, path: str) -> list[tuple[int, str]]:
    """Each finding of `text` linted as the file `path`, as (line, code), in report order."""
    return [(f.line, f.code) for f in lint_source(text, path)]
