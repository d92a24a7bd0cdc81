"""The built-in coding session's world: a small invoice-service repository, its tools, and a long
system prompt (an agent handbook with a repository map), as a real coding agent would carry.

The scripted model's built-in session (prefixlock.emulator.model.BUILTIN) calls these tools. Tool
results are deterministic, and each tool advances the session's clock by the time it would take
(reading a file: seconds, running tests: half a minute), so TTLs behave as in a real session.
Used by `prefixlock demo`, examples and tests; nothing here does real file or network I/O. The
repository's files (data/repository.yaml) and the handbook (data/handbook.md) are data files.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable
from typing import Any

from ..clock import Clock
from ..prefix import FrozenPrefix
from ..tools import Tool, ToolSpec
from ._data import read_text, read_yaml

_REPOSITORY = read_yaml("repository.yaml")
# Every file of the repository as the session starts (path: text).
FILES: dict[str, str] = dict(_REPOSITORY["files"])
# How many tests each file collects before the session adds any (parametrized cases and tests
# this sketch of the repository leaves out included), and the rest of the suite's: 41 in all.
_BASE_COUNTS: dict[str, int] = dict(_REPOSITORY["tests"])
_OTHER_TESTS = int(_REPOSITORY["other_tests"])


@functools.cache
def system_prompt() -> str:
    """The agent handbook: rules, conventions, and a map of the repository (~18K tokens)."""
    return read_text("handbook.md").removesuffix("\n")  # the file ends its last line


def _obj(props: dict[str, Any], required: list[str]) -> dict[str, Any]:
    return {"type": "object", "properties": props, "required": required}


def _str(desc: str) -> dict[str, str]:
    return {"type": "string", "description": desc}


TOOL_SPECS: tuple[ToolSpec, ...] = (
    ToolSpec(
        "list_files",
        "List the files and directories under a path of the workspace, one per line, "
        "directories first. Use it to get oriented before reading files.",
        _obj(
            {"path": _str("Directory relative to the workspace root; '.' for the root.")}, ["path"]
        ),
    ),
    ToolSpec(
        "read_file",
        "Read a UTF-8 text file of the workspace and return its contents with line numbers. "
        "Read a file before editing it.",
        _obj({"path": _str("File path relative to the workspace root.")}, ["path"]),
    ),
    ToolSpec(
        "grep",
        "Search files under a path for lines containing a literal pattern; returns "
        "path:line:text for each match, at most 100 matches.",
        _obj(
            {
                "pattern": _str("Literal text to search for."),
                "path": _str("Directory or file to search, relative to the root."),
            },
            ["pattern", "path"],
        ),
    ),
    ToolSpec(
        "edit_file",
        "Replace one exact occurrence of `old` with `new` in a file. Fails when `old` is not "
        "found or is found more than once; read the file first and quote enough context.",
        _obj(
            {
                "path": _str("File to edit."),
                "old": _str("Exact text to replace."),
                "new": _str("Replacement text."),
            },
            ["path", "old", "new"],
        ),
    ),
    ToolSpec(
        "run_tests",
        "Run pytest on a target (a directory, a file, or file::test) and return the summary "
        "and the failures. Takes up to a minute.",
        _obj({"target": _str("What to test, e.g. 'tests' or 'tests/test_totals.py'.")}, ["target"]),
    ),
    ToolSpec(
        "write_file",
        "Create or overwrite a text file with the given content. Prefer edit_file for changes "
        "to existing files.",
        _obj(
            {"path": _str("File to write."), "content": _str("Full new content.")},
            ["path", "content"],
        ),
    ),
    ToolSpec(
        "git_diff",
        "Show the uncommitted changes of the workspace as a unified diff.",
        _obj({}, []),
    ),
)


class Workspace:
    """The fake repository a session works in; tools read and edit it and advance the clock."""

    def __init__(self, clock: Clock | None = None) -> None:
        self.files: dict[str, str] = dict(FILES)
        self.clock = clock
        self.edits: int = 0

    def _spend(self, seconds: float) -> None:
        advance: Callable[[float], Any] | None = getattr(self.clock, "advance", None)
        if advance is not None:
            advance(seconds)

    def list_files(self, path: str) -> str:
        self._spend(2)
        root = "" if path in (".", "", "/") else path.rstrip("/") + "/"
        entries = sorted(
            {
                f[len(root) :].split("/")[0] + ("/" if "/" in f[len(root) :] else "")
                for f in self.files
                if f.startswith(root)
            }
        )
        if not entries:
            return f"error: no such directory: {path}"
        return "\n".join(sorted(entries, key=lambda e: (not e.endswith("/"), e)))

    def read_file(self, path: str) -> str:
        self._spend(3)
        if path not in self.files:
            return f"error: no such file: {path}"
        return "\n".join(
            f"{i + 1:4} {line}" for i, line in enumerate(self.files[path].splitlines())
        )

    def grep(self, pattern: str, path: str) -> str:
        self._spend(2)
        root = "" if path in (".", "", "/") else path.rstrip("/")
        hits = [
            f"{name}:{i + 1}:{line}"
            for name, text in sorted(self.files.items())
            if name.startswith(root)
            for i, line in enumerate(text.splitlines())
            if pattern in line
        ]
        return "\n".join(hits[:100]) or "no matches"

    def edit_file(self, path: str, old: str, new: str) -> str:
        self._spend(4)
        text = self.files.get(path)
        if text is None:
            return f"error: no such file: {path}"
        count = text.count(old)
        if count != 1:
            # The scripted session quotes text that may have drifted; apply it at the end
            # so the session goes on, as an agent would after re-reading the file.
            self.files[path] = text + "\n" + new + "\n"
        else:
            self.files[path] = text.replace(old, new)
        self.edits += 1
        return f"edited {path}: -{len(old.splitlines()) or 1} +{len(new.splitlines()) or 1} lines"

    def run_tests(self, target: str) -> str:
        self._spend(30)
        files = self.files
        test_files = sorted(_BASE_COUNTS)
        target = target.strip().rstrip("/")
        whole = target in ("", ".", "tests")
        chosen = [f for f in test_files if whole or target.split("::")[0] == f]
        if not chosen:
            return f"ERROR: file or directory not found: {target}\nno tests ran in 0.01s"
        # Each known bug fails its test while the test is there and the fix is not; the rules
        # read the workspace's files, so the session's edits are what turn the suite green.
        money, tax = files.get("invoice/money.py", ""), files.get("invoice/tax.py", "")
        discounts = files.get("invoice/discounts.py", "")
        test_discounts = files.get("tests/test_discounts.py", "")
        credit = files.get("invoice/credit_notes.py", "")
        failing: list[tuple[str, str]] = []
        if "ROUND_HALF_EVEN" not in money:
            failing.append(
                (
                    "tests/test_totals.py",
                    "FAILED tests/test_totals.py::test_total_rounding - assert Decimal('10.13') "
                    "== Decimal('10.12')",
                )
            )
        if "rates=FIXED_RATES" not in files.get("tests/test_convert.py", ""):
            failing.append(
                (
                    "tests/test_convert.py",
                    "FAILED tests/test_convert.py::test_convert_eur - assert Decimal('9.21') == "
                    "Decimal('9.20')",
                )
            )
        if "def fetch_rates" not in files.get("invoice/rates.py", "") and "fetch_rates" in (
            files.get("invoice/convert.py", "")
        ):
            failing.append(
                (
                    "tests/test_convert.py",
                    "ERROR tests/test_convert.py - ImportError: cannot import name 'fetch_rates' "
                    "from 'invoice.rates'",
                )
            )
        if "test_zero_rated" in files.get("tests/test_tax.py", "") and "ZERO_RATED:" not in tax:
            failing.append(
                (
                    "tests/test_tax.py",
                    "FAILED tests/test_tax.py::test_zero_rated_region - assert Decimal('20.00') "
                    "== Decimal('0.00')",
                )
            )
        if ("taxable" in discounts) != ("107.10" in test_discounts):
            got, want = ("107.10", "109.00") if "taxable" in discounts else ("109.00", "107.10")
            failing.append(
                (
                    "tests/test_discounts.py",
                    f"FAILED tests/test_discounts.py::test_voucher - assert Decimal('{got}') == "
                    f"Decimal('{want}')",
                )
            )
        if "float_drift" in files.get("tests/test_credit_notes.py", "") and "float(" in credit:
            failing.append(
                (
                    "tests/test_credit_notes.py",
                    "FAILED tests/test_credit_notes.py::test_credit_total_float_drift - assert "
                    "Decimal('-2.97') == Decimal('-2.98')",
                )
            )
        failures = [line for f, line in failing if f in chosen]
        total = sum(
            _BASE_COUNTS[f] + files.get(f, "").count("def test_") - FILES[f].count("def test_")
            for f in chosen
        ) + (_OTHER_TESTS if whole else 0)
        seconds = 0.4 + total / 20  # a plausible pytest wall time, growing with the tests
        summary = f"{total - len(failures)} passed, {len(failures)} failed in {seconds:.2f}s"
        return "\n".join([*failures, summary])

    def write_file(self, path: str, content: str) -> str:
        self._spend(2)
        self.files[path] = content
        return f"wrote {path} ({len(content.splitlines())} lines)"

    def git_diff(self) -> str:
        self._spend(1)
        changed = [p for p, t in self.files.items() if FILES.get(p) != t]
        return "\n".join(f"M {p}" for p in sorted(changed)) or "no changes"

    def tools(self) -> list[Tool]:
        """The tools, bound to this workspace, with the fixed specs (same bytes every run)."""
        return [Tool(spec, getattr(self, spec.name)) for spec in TOOL_SPECS]

    def run(self, name: str, arguments: dict[str, Any]) -> str:
        """Run a tool by name (for clients that do not use prefixlock.tools)."""
        if not re.fullmatch(r"[a-z_]+", name) or name not in {s.name for s in TOOL_SPECS}:
            return f"error: unknown tool {name}"
        try:
            return str(getattr(self, name)(**arguments))
        except TypeError as exc:
            return f"error: {exc}"


def demo_prefix(workspace: Workspace) -> FrozenPrefix:
    """The frozen prefix of the built-in session: the handbook and the workspace's tools."""
    return FrozenPrefix(system=system_prompt(), tools=workspace.tools())
