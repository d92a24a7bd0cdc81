"""`prefixlock lint`: the command line of the policy linter.

Exit codes: 0 no findings, 1 findings, 2 usage or configuration error (raised as UserError and
printed by prefixlock.cli.main as one line). Heavy imports stay inside `run`.
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import Any

from prefixlock.cli.command import Command

FORMATS = ("text", "json", "sarif", "github")


def configure(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "paths",
        nargs="*",
        metavar="PATH",
        help="files or directories: Python, prompts/templates/agent files, "
        "JSONL traces (default: .)",
    )
    p.add_argument("--format", choices=FORMATS, default="text", help="output format")
    p.add_argument("--output", "-o", metavar="FILE", help="write the report to FILE")
    p.add_argument(
        "--select",
        action="append",
        metavar="CODES",
        help="only these rules (codes or prefixes, comma separated)",
    )
    p.add_argument(
        "--extend-select", action="append", metavar="CODES", help="add rules to the selection"
    )
    p.add_argument("--ignore", action="append", metavar="CODES", help="skip these rules")
    p.add_argument(
        "--config", metavar="PYPROJECT", help="read [tool.prefixlock.lint] from this file"
    )
    p.add_argument("--model", help="the session model (agent-file and minimum-length checks)")
    p.add_argument(
        "--provider",
        help="the provider of raw request bodies whose wire format is ambiguous: "
        "anthropic, openai, openai-responses, openai-compat or deepseek",
    )
    p.add_argument("--prices", metavar="FILE", help="a price table overriding the built-in one")
    p.add_argument("--fix", action="store_true", help="apply safe fixes")
    p.add_argument(
        "--unsafe-fixes",
        action="store_true",
        help="with --fix, also apply unsafe fixes (move volatile values)",
    )
    p.add_argument("--baseline", metavar="FILE", help="hide findings recorded in FILE")
    p.add_argument(
        "--write-baseline", metavar="FILE", help="record the current findings in FILE and exit 0"
    )
    p.add_argument("--list-rules", action="store_true", help="list every rule and exit")
    p.add_argument("--explain", metavar="CODE", help="show a rule's documentation and exit")
    p.add_argument(
        "--report",
        metavar="TRACE",
        action="append",
        help="trace report: each cache break, its first divergent byte, cause, "
        "tokens and dollars re-billed",
    )
    p.add_argument(
        "--jobs", "-j", type=int, default=0, help="worker processes (default: CPUs, at most 8)"
    )
    p.add_argument("--exit-zero", action="store_true", help="exit 0 even with findings")
    p.add_argument("--no-source", action="store_true", help="text format without source lines")


def _emit(text: str, output: str | None) -> None:
    if output:
        from .engine import atomic_write

        atomic_write(output, text)
    else:
        sys.stdout.write(text)


def _read_report(rep: Any, trace: str, prices: Any, provider: str | None) -> Any:
    """The report of one trace; a trace that cannot be read, or holds no request at all
    (empty, binary, garbage), is an input error (exit 2), not an empty report."""
    from pathlib import Path

    from prefixlock.errors import UserError

    p = Path(trace)
    if not p.exists():
        raise UserError("no such trace file", where=trace)
    if not p.is_file():
        raise UserError("not a regular file", where=trace)
    try:
        with open(p, "rb") as fh:
            head = fh.read(8192)
        r = rep.build_report(trace, prices, provider=provider)
    except OSError as exc:
        raise UserError(f"cannot read trace: {exc.strerror or exc}", where=trace) from None
    if b"\x00" in head:
        raise UserError("binary file, not a JSONL trace", where=trace)
    if not r.sessions:
        if not r.bad_lines:
            raise UserError("empty trace: no request records", where=trace)
        n, msg = r.bad_lines[0]
        raise UserError(
            f"no request records ({len(r.bad_lines)} unreadable line(s); the first: {msg})",
            where=f"{trace}:{n}",
        )
    return r


def run(args: argparse.Namespace) -> int:
    from pathlib import Path

    from prefixlock.billing.prices import PriceTable
    from prefixlock.errors import UnknownModelError, UserError

    from . import config as cfgmod
    from . import output
    from .engine import apply_baseline, lint_paths, read_baseline, write_baseline
    from .rules import RULES

    if args.list_rules:
        _emit(output.list_rules(), args.output)
        return 0
    if args.explain:
        code = args.explain.strip().upper()
        if code not in RULES:
            raise UserError(f"unknown rule {args.explain!r} (see --list-rules)", where="--explain")
        _emit(RULES[code].doc(), args.output)
        return 0
    if args.jobs < 0:
        raise UserError("must be 0 or more", where="--jobs")
    if args.unsafe_fixes and not args.fix:
        args.fix = True
    if args.prices:
        PriceTable.default(args.prices)  # a bad price file is a usage error, reported now
    if args.provider and args.provider not in cfgmod.PROVIDERS:
        raise UserError(
            f"unknown provider {args.provider!r} (one of {', '.join(cfgmod.PROVIDERS)})",
            where="--provider",
        )
    if args.report:
        from . import report as rep

        prices = PriceTable.default(args.prices)
        parts = []
        reports = []
        for trace in args.report:
            r = _read_report(rep, trace, prices, args.provider)
            reports.append(r)
            parts.append(rep.render_text(r))
        if args.format == "json":
            import json

            _emit(json.dumps([r.to_dict() for r in reports], indent=2) + "\n", args.output)
        else:
            _emit(rep.render_summary(reports) + "".join(parts), args.output)
        return 0

    paths = args.paths or ["."]
    cfg = cfgmod.load_file(Path(args.config)) if args.config else cfgmod.discover(Path(paths[0]))
    cfg = cfg.with_overrides(
        select=args.select,
        ignore=args.ignore,
        extend_select=args.extend_select,
        model=args.model,
        provider=args.provider,
    )
    if cfg.model and PriceTable.default(args.prices).lookup(cfg.model) is None:
        # A typo here would silently turn off the minimum-length checks and flag every agent
        # file as naming another model.
        where = "--model" if args.model else f"{cfg.source}: [tool.prefixlock.lint].model"
        raise UnknownModelError(
            f"unknown model {cfg.model!r}: not in the price table (see `prefixlock models`; "
            "add it with --prices FILE)",
            where=where,
        )
    # The baseline is read before any fix is written: a bad one stops the run with nothing done.
    baseline = None if args.write_baseline else (args.baseline or cfg.baseline)
    if baseline and args.baseline and not Path(baseline).exists():
        raise UserError("baseline file not found", where=baseline)
    known = read_baseline(baseline) if baseline and Path(baseline).exists() else None
    jobs = args.jobs or min(8, os.cpu_count() or 1)
    result = lint_paths(paths, cfg, jobs=jobs, prices_path=args.prices)
    if args.write_baseline:
        write_baseline(args.write_baseline, result.findings)
        print(f"wrote {len(result.findings)} finding(s) to {args.write_baseline}", file=sys.stderr)
        return 0
    if args.fix:
        from .fixes import apply_fixes

        fixed, changed = apply_fixes(result.findings, unsafe=args.unsafe_fixes)
        if changed:
            again = lint_paths(paths, cfg, jobs=jobs, prices_path=args.prices)
            again.fixed = fixed
            result = again
    if known is not None:
        result = apply_baseline(result, known)
    fmt = args.format
    if fmt == "json":
        text = output.as_json(result.findings)
    elif fmt == "sarif":
        text = output.sarif(result.findings)
    elif fmt == "github":
        text = output.github(result.findings)
    else:
        text = output.text(
            result.findings,
            show_source=not args.no_source,
            fixed=result.fixed,
            suppressed=result.suppressed,
            baselined=result.baselined,
            files=result.files,
        )
    _emit(text, args.output)
    if result.findings and not args.exit_zero:
        return 1
    return 0


COMMAND = Command(
    help="lint prompts, agent files, Python code and traces for prompt-cache breakers",
    configure=configure,
    run=run,
    order=60,
)
