"""The `prefixlock analyze` command run: options to `analysis.analyze`, then the report in
the chosen format to stdout or a file, and the optional HTML page and workload trace. Every
file is written whole or not at all (a temporary file moved into place)."""

from __future__ import annotations

import argparse
import gc
import io
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import IO, Any

from ..atomicfile import replacing_text
from ..errors import UserError
from .analysis import analyze


def write_atomic(target: str, write: Callable[[IO[str]], None]) -> None:
    path = Path(target)
    if path.is_dir():
        raise UserError("is a directory; name the file to write", where=str(path))
    try:
        with replacing_text(path, errors="backslashreplace") as fh:
            write(fh)
    except OSError as exc:
        raise UserError(f"cannot write here: {exc.strerror or exc}", where=str(path)) from None


def _put(fh: IO[str], text: str) -> None:
    fh.write(text)


def main(args: argparse.Namespace) -> int:
    from . import render

    if args.top < 0:
        raise UserError("must not be negative", where="--top")
    # A report of a gigabyte of logs holds a few hundred thousand small objects, none in a
    # cycle: the cycle collector's passes over them cost a quarter of the run and free nothing.
    gc.disable()
    jobs = args.jobs or min(os.cpu_count() or 1, 8)
    result = analyze(
        args.paths,
        source=args.source,
        ttl=args.ttl,
        sensitive=args.sensitive,
        prices=args.prices,
        since=args.since,
        until=args.until,
        session=args.session,
        project=args.project,
        jobs=jobs,
        show_text=args.show_text,
        keep_rows=bool(args.export_trace),
    )
    report = result.report
    if args.show_text:
        render.attach_prompts(report, result)
    if args.html:
        from .html import page

        text = page(report)
        write_atomic(args.html, lambda fh: _put(fh, text))
    if args.export_trace:
        from .export import write_trace

        n = 0

        def _export(fh: IO[str]) -> None:
            nonlocal n
            n = write_trace(result.rows, fh)

        write_atomic(args.export_trace, _export)
        print(
            f"wrote {n} requests to {args.export_trace} (replay: prefixlock sim "
            f"{args.export_trace})",
            file=sys.stderr,
        )
    writers: dict[str, Callable[[dict[str, Any], IO[str]], None]] = {
        "json": render.write_json,
        "jsonl": render.write_jsonl,
        "csv": render.write_csv,
    }
    if args.format in writers:
        writer = writers[args.format]
    else:
        table = render.to_table(
            report,
            by=args.by,
            top=args.top,
            session=args.session,
            color=args.output is None and sys.stdout.isatty(),
        )

        def writer(rep: dict[str, Any], fh: IO[str]) -> None:
            fh.write(table)

    if args.output:
        write_atomic(args.output, lambda fh: writer(report, fh))
    else:
        if isinstance(sys.stdout, io.TextIOWrapper):
            # A file name that is not UTF-8 shows escaped rather than ending the report.
            sys.stdout.reconfigure(errors="backslashreplace")
        writer(report, sys.stdout)
    return 0
