"""prefixlock's policy linter: finds prompt-cache breakers in code, prompts, agent files and traces.

Public surface:
- `lint_paths(paths, config, jobs)` -> Result(findings, files, suppressed, ...): the CLI's engine.
- `lint_source(text, path, model)` -> findings for one in-memory Python or prompt file.
- `check_trace(path, prices)` -> findings of a JSONL trace; `build_report(path, prices)` and
  `render_text(report)` for the per-session cache-break report.
- `LintConfig`, `Finding`, `Fix`, `RULES` (the catalogue), and `prefixlock.policies.output` for
  the formats.

Names are imported lazily (PEP 562), so that loading the `lint` command for `prefixlock --help`
does not load the checks, the price table and the process pool.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from prefixlock.lazy import lazy_exports

if TYPE_CHECKING:
    from .config import LintConfig
    from .engine import Result, lint_paths, lint_source
    from .findings import Edit, Finding, Fix
    from .report import TraceReport, build_report, render_text
    from .rules import RULES, Rule
    from .tracecheck import check_trace

_EXPORTS = {
    "LintConfig": ".config",
    "Result": ".engine",
    "lint_paths": ".engine",
    "lint_source": ".engine",
    "Edit": ".findings",
    "Finding": ".findings",
    "Fix": ".findings",
    "TraceReport": ".report",
    "build_report": ".report",
    "render_text": ".report",
    "RULES": ".rules",
    "Rule": ".rules",
    "check_trace": ".tracecheck",
}


__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS, globals())


__all__ = [
    "RULES",
    "Edit",
    "Finding",
    "Fix",
    "LintConfig",
    "Result",
    "Rule",
    "TraceReport",
    "build_report",
    "check_trace",
    "lint_paths",
    "lint_source",
    "render_text",
]
