"""`prefixlock`: the console script. Builds one argparse tree from the registered commands.

User errors end here as one line on stderr and exit code 2; nothing prints from inside the core.

Commands load lazily. The `prefixlock.commands` entry points are read from the installed
distributions' metadata (no import of `importlib.metadata`, see `entry_point_values`), and only
the chosen command's module is imported and its parser configured: `prefixlock sim --help`
imports `prefixlock.sim.cli` and nothing of the other products. `prefixlock --help` imports each
command's module for its help line: a command module imports only argparse-level code at its
top, and the packages around them name their exports lazily.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from collections.abc import Callable, Sequence
from types import ModuleType
from typing import Any, NamedTuple, NoReturn

from ..errors import ProviderError, UserError
from ..extras import MissingExtraError, extra_for
from .command import Command

GROUP = "prefixlock.commands"

# The SDK's errors name a Python argument; on the command line, the flag that set it.
_FLAGS = {"model": "--model", "base_url": "--base-url"}


def entry_point_values(group: str) -> dict[str, str]:
    """name -> value ('module:attr') of every entry point in `group`, found as
    `importlib.metadata.entry_points(group=...)` finds them: the `*.dist-info` and `*.egg-info`
    folders in the `sys.path` folders, the first distribution of a name winning. Importing
    `importlib.metadata` (email, zipfile, csv, ...) costs more than the rest of
    `prefixlock --help`. Zipped `sys.path` entries and eggs are not searched (no command comes
    from one)."""
    found: dict[str, str] = {}
    seen: set[str] = set()
    for folder in sys.path:
        try:
            children = os.listdir(folder or ".")
        except OSError:  # a zip file, a folder that is gone
            continue
        for child in children:
            stem, _, kind = child.rpartition(".")
            if kind not in ("dist-info", "egg-info"):
                continue
            dist = stem.partition("-")[0].replace("-", "_").replace(".", "_").lower()
            if dist in seen:
                continue
            seen.add(dist)
            where = os.path.join(folder or ".", child, "entry_points.txt")
            try:
                with open(where, encoding="utf-8") as fh:
                    text = fh.read()
            except OSError:  # no entry points (or an old-style .egg-info file)
                continue
            section = None
            for line in text.splitlines():
                line = line.strip()
                if line.startswith("[") and line.endswith("]"):
                    section = line[1:-1].strip()
                elif section == group and "=" in line and not line.startswith(("#", ";")):
                    name, _, value = line.partition("=")
                    found.setdefault(name.strip(), value.strip())
    return found


def _import(module: str) -> ModuleType | None:
    """`module` imported; None if it is not installed (a product that is not installed adds no
    command), while a missing import inside it is an error to show."""
    try:
        return importlib.import_module(module)
    except ModuleNotFoundError as exc:
        if exc.name and (module == exc.name or module.startswith(exc.name + ".")):
            return None
        raise


class Registered(NamedTuple):
    """One `prefixlock.commands` entry point, by its value 'module:attr'. Nothing is imported
    until `load`."""

    value: str

    @property
    def module(self) -> str:
        return self.value.partition(":")[0].strip()

    def _attr(self, mod: ModuleType) -> Command | None:
        obj: Any = mod
        attr = self.value.partition(":")[2].partition("[")[0].strip()  # `[extras]` aside
        for part in attr.split("."):
            obj = getattr(obj, part)
        return obj if isinstance(obj, Command) else None

    def load(self) -> Command | None:
        """The command, its module imported. None: its product is not installed."""
        mod = _import(self.module)
        return None if mod is None else self._attr(mod)


def _commands() -> dict[str, Registered]:
    """Every registered command by name, nothing imported."""
    return {name: Registered(value) for name, value in entry_point_values(GROUP).items()}


class _Parser(argparse.ArgumentParser):
    """argparse, but a bad flag is one line (argparse prints its whole usage block first)."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {message} (see '{self.prog} --help')\n")


class _CommandParser(_Parser):
    """A subcommand's parser, configured by its command only when it is used: parsing its
    arguments (it is the chosen command) or printing its help."""

    def __init__(self, *, load: Callable[[], Command | None], **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._load: Callable[[], Command | None] | None = load

    def _configure(self) -> None:
        if self._load is None:
            return
        load, self._load = self._load, None
        cmd = load()
        if cmd is None:  # registered, but its product's module is gone: no command
            self.error("this command is not installed")
        self.description = cmd.help
        cmd.configure(self)
        self.set_defaults(_run=cmd.run, _parser=self)

    def add_subparsers(self, **kwargs: Any) -> Any:
        # A command's own actions (`sessions list`) are plain parsers, configured at once.
        kwargs.setdefault("parser_class", _Parser)
        return super().add_subparsers(**kwargs)

    def parse_known_args(  # type: ignore[override]
        self, args: Sequence[str] | None = None, namespace: argparse.Namespace | None = None
    ) -> tuple[argparse.Namespace, list[str]]:
        self._configure()
        return super().parse_known_args(args, namespace)

    def format_usage(self) -> str:
        self._configure()
        return super().format_usage()

    def format_help(self) -> str:
        self._configure()
        return super().format_help()


def build_parser(argv: Sequence[str] = ()) -> argparse.ArgumentParser:
    """The parser of `argv`. When `argv` starts with a command's name (the usual case) only
    that command is imported and added: argparse can choose no other. Otherwise
    (`prefixlock --help`, no command, an unknown one, an option first) every installed command
    is listed by its help line and order; only the chosen one's parser is configured."""
    parser = _Parser(
        prog="prefixlock",
        description="Keep LLM prompt caches warm: run agents, price cache breaks, "
        "lint prompts and traces, simulate KV caches.",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_CommandParser)
    registered = _commands()
    chosen = registered[argv[0]].load() if argv and argv[0] in registered else None
    if chosen is not None:
        sub.add_parser(argv[0], load=lambda: chosen)
        return parser
    listed: dict[str, tuple[Registered, Command]] = {}
    for name, reg in registered.items():
        spec = reg.load()
        if spec is not None:
            listed[name] = (reg, spec)
    for name, (reg, spec) in sorted(listed.items(), key=lambda kv: (kv[1][1].order, kv[0])):
        sub.add_parser(name, help=spec.help, load=reg.load)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    parser = build_parser(argv)
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
    except ModuleNotFoundError as exc:  # an optional extra the command needs
        needed = extra_for(exc.name)
        if needed is None:
            raise
        missing = MissingExtraError(str(exc.name), needed, f"prefixlock {argv[0]}")
        print(f"prefixlock: error: {missing}", file=sys.stderr)
        return 2
    except ProviderError as exc:
        # Retries ran out (or the fault was not retryable): report it, not a traceback. Exit 1,
        # not 2: the user's input was fine, the provider failed.
        status = f" (HTTP {exc.status})" if exc.status else ""
        if exc.status in (401, 403):
            # A refused key or a model the key may not use: the user's to fix, like a bad flag.
            print(
                f"prefixlock: error: the provider refused the API key{status}: {exc}",
                file=sys.stderr,
            )
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
