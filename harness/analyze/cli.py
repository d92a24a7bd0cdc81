"""`prefixlock analyze [PATH ...]`: the cache report for the session logs coding agents leave on
disk (Claude Code, Codex CLI, OpenCode, Gemini CLI) and prefixlock's own store and traces.

    prefixlock analyze                      # the standard locations
    prefixlock analyze ~/.claude/projects/x --format json -o report.json
    prefixlock analyze LOGS --html report.html --export-trace workload.jsonl

Only argparse-level code at the top: the readers load when the command runs.
"""

from __future__ import annotations

import argparse

from ..cli.command import Command


def configure(p: argparse.ArgumentParser) -> None:
    from .breaks import TTL_CHOICES

    p.add_argument(
        "paths",
        nargs="*",
        metavar="PATH",
        help="log files or folders (default: the "
        "standard locations of each agent, and the variables that move them)",
    )
    p.add_argument(
        "--source",
        default="auto",
        choices=["auto", "claude-code", "codex", "opencode", "gemini", "prefixlock"],
        help="read every file as this format instead of sniffing it",
    )
    p.add_argument("--since", metavar="DATE", help="only requests on or after DATE (YYYY-MM-DD)")
    p.add_argument("--until", metavar="DATE", help="only requests before the end of DATE")
    p.add_argument(
        "--session", metavar="ID", help="only sessions whose id starts with ID; shows its turns"
    )
    p.add_argument(
        "--project", metavar="SUBSTR", help="only sessions whose project path has SUBSTR"
    )
    p.add_argument(
        "--by",
        default="session",
        choices=["session", "turn", "request", "agent", "model", "day"],
        help="rows of the table (default: session)",
    )
    p.add_argument("--top", type=int, default=10, metavar="N", help="rows of the breaks table")
    p.add_argument(
        "--ttl",
        default="auto",
        choices=TTL_CHOICES,
        help="cache TTL for gaps and unsplit writes (auto: from each write's split)",
    )
    p.add_argument(
        "--sensitive",
        action="store_true",
        help="flag smaller read drops (under 95%% and 2,000 tokens) as breaks",
    )
    p.add_argument("--prices", metavar="FILE", help="a price file that overrides or adds models")
    p.add_argument(
        "--format",
        default="table",
        choices=["table", "json", "jsonl", "csv"],
        help="table (default), json (schema_version 1), jsonl (one record a line) or csv "
        "(one row per request)",
    )
    p.add_argument("-o", "--output", metavar="FILE", help="write the report to FILE")
    p.add_argument("--html", metavar="FILE", help="also write a self-contained HTML page")
    p.add_argument(
        "--export-trace",
        metavar="FILE",
        help="also write the workload as a trace `prefixlock sim` replays",
    )
    p.add_argument(
        "--show-text",
        action="store_true",
        help="show the human prompts' first words in turn rows (off: no text at all)",
    )
    p.add_argument(
        "--jobs",
        type=int,
        default=0,
        metavar="N",
        help="processes reading files (default: the CPUs)",
    )


def run(args: argparse.Namespace) -> int:
    from .run import main

    return main(args)


COMMAND = Command(
    "cache report for coding agents' session logs (Claude Code, Codex, OpenCode, Gemini)",
    configure,
    run,
    order=45,
)
