"""`prefixlock`: the console script. Builds one argparse tree from the registered commands.

User errors end here as one line on stderr and exit code 2; nothing prints from inside the core.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from importlib.metadata import entry_points
from typing import NoReturn

from .command import Command
from .errors import ProviderError, UserError

# The SDK's errors name a Python argument; on the command line, the flag that set it.
_FLAGS = {"model": "--model", "base_url": "--base-url"}


def _commands() -> dict[str, Command]:
    found: dict[str, Command] = {}
    for ep in entry_points(group="prefixlock.commands"):
        try:
            cmd = ep.load()
        except ModuleNotFoundError as exc:
            # A product that is not installed adds no command.
            if exc.name and ep.module.startswith(exc.name):
                continue
            raise
        if isinstance(cmd, Command):
            found[ep.name] = cmd
    return dict(sorted(found.items(), key=lambda kv: (kv[1].order, kv[0])))


class _Parser(argparse.ArgumentParser):
    """argparse, but a bad flag is one line (argparse prints its whole usage block first)."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {message} (see '{self.prog} --help')\n")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="prefixlock",
        description="Keep LLM prompt caches warm: run agents, price cache breaks, "
        "lint prompts and traces, simulate KV caches.",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name, cmd in _commands().items():
        p = sub.add_parser(name, help=cmd.help, description=cmd.help)
        cmd.configure(p)
        p.set_defaults(_run=cmd.run, _parser=p)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args, extra = parser.parse_known_args(argv)
    if extra:
        # Name the subcommand whose flags were wrong, so its --help is the one suggested.
        getattr(args, "_parser", parser).error(f"unrecognized arguments: {' '.join(extra)}")
    run = getattr(args, "_run", None)
    if run is None:
        parser.print_help()
        return 2
    try:
        return int(run(args) or 0)
    except UserError as exc:
        flag = _FLAGS.get(exc.where or "")
        sub = getattr(args, "_parser", None)
        if flag is not None and sub is not None and flag in sub._option_string_actions:
            exc = exc.at(flag)
        print(f"prefixlock: error: {exc}", file=sys.stderr)
        return 2
    except ProviderError as exc:
        # Retries ran out (or the fault was not retryable): report it, not a traceback. Exit 1,
        # not 2: the user's input was fine, the provider failed.
        status = f" (HTTP {exc.status})" if exc.status else ""
        if exc.status in (401, 403):
            # A refused key or a model the key may not use: the user's to fix, like a bad flag.
            print(f"prefixlock: error: the provider refused the API key{status}: {exc}",
                  file=sys.stderr)
            return 2
        print(f"prefixlock: provider error{status}: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("prefixlock: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
