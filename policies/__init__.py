"""prefixlock's policy linter: finds prompt-cache breakers in code, prompts, agent files and traces.

Public surface:
- `lint_paths(paths, config, jobs)` -> Result(findings, files, suppressed, ...): the CLI's engine.
- `lint_source(text, path, model)` -> findings for one in-memory Python or prompt file.
- `check_trace(path, prices)` -> findings of a JSONL trace; `build_report(path, prices)`,
  `render_summary([report, ...])` (breaks, tokens and dollars by cause) and `render_text(report)`
  (each session's breaks) for the cache-break report.
- `LintConfig`, `Finding`, `Fix`, `RULES` (the catalogue), and `prefixlock.policies.output` for
  the formats.

Names are imported lazily (PEP 562), so that loading the `lint` command for `prefixlock --help`
does not load the checks, the price table and the process pool.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from prefixlock.lazy import lazy_exports

if TYPE_CHECKING:  # what this package exports (prefixlock.lazy reads it)
    from .config import LintConfig as LintConfig
    from .engine import Result as Result
    from .engine import lint_paths as lint_paths
    from .engine import lint_source as lint_source
    from .findings import Edit as Edit
    from .findings import Finding as Finding
    from .findings import Fix as Fix
    from .report import TraceReport as TraceReport
    from .report import build_report as build_report
    from .report import render_summary as render_summary
    from .report import render_text as render_text
    from .rules import RULES as RULES
    from .rules import Rule as Rule
    from .tracecheck import check_trace as check_trace


# Annotated so type checkers read the lazy names as the package's own attributes.
__getattr__: Callable[[str], Any]
__dir__: Callable[[], list[str]]
__getattr__, __dir__ = lazy_exports(__name__)
