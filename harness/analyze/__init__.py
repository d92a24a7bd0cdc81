"""`prefixlock analyze`: cache reports for the session logs coding agents leave on disk.

Readers (`claude_code`, `codex`, `opencode`, `gemini`, `prefixlock_trace`) turn each format into
de-duplicated `Request`s; `collect` merges files; `breaks` finds and prices cache breaks;
`threads` makes each thread's share of the report where its file is read; `report` sums them;
`render` and `html` print them; `export` writes the workload as a trace the simulator replays.
`sources` and `catalogue` hold the file and price-table I/O.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ..lazy import lazy_exports

if TYPE_CHECKING:
    from .analysis import Analysis as Analysis
    from .analysis import analyze as analyze
    from .model import Request as Request

# Annotated so type checkers read the lazy names as the package's own attributes.
__getattr__: Callable[[str], Any]
__dir__: Callable[[], list[str]]
__getattr__, __dir__ = lazy_exports(__name__)
