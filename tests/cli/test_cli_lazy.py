"""The CLI loads its commands lazily: `prefixlock --help` and `prefixlock sim --help` import only
argparse-level code, the chosen command imports what it needs, and nothing else changes: every
command's --help lists the flags its `configure` adds, a command whose product is not installed is
not offered, and the entry points are those importlib.metadata finds."""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from importlib.metadata import entry_points
from typing import Any

import pytest

from prefixlock.cli import main as cli
from prefixlock.cli.command import Command

# What a listing or a parser must never pull in: the SDKs, pydantic, the TUI, numpy, and the
# products behind the commands (their packages name their exports lazily).
HEAVY = (
    "anthropic",
    "openai",
    "httpx",
    "pydantic",
    "textual",
    "rich",
    "numpy",
    "yaml",
    "asyncio",
    "sqlite3",
    "importlib.metadata",
    "prefixlock.agent",
    "prefixlock.providers",
    "prefixlock.emulator.server",
    "prefixlock.emulator.model",
    "prefixlock.agents.runner",
    "prefixlock.agents.registry",
    "prefixlock.tui.app",
    "prefixlock.policies.engine",
    "prefixlock.cli.demo",
    "prefixlock.sim.simulate",
    "prefixlock.sim.trace",
)

NAMES = [
    "demo",
    "run",
    "chat",
    "sessions",
    "models",
    "prices",
    "analyze",
    "agents",
    "lint",
    "serve",
    "sim",
    "proxy",
]


def _fresh(code: str) -> Any:
    """What `code` prints as JSON, run in a fresh interpreter (nothing imported before)."""
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True
    )
    return json.loads(out.stdout.splitlines()[-1])


MODULES_AFTER = """
import contextlib, io, json, sys
from prefixlock.cli.main import main
with contextlib.redirect_stdout(io.StringIO()) as out:
    try:
        main({argv!r})
    except SystemExit:
        pass
print(json.dumps({{"modules": sorted(sys.modules), "out": out.getvalue()}}))
"""


@pytest.mark.parametrize("argv", [["--help"], [], ["sim", "--help"]])
def test_help_imports_no_heavy_module(argv: list[str]) -> None:
    seen = _fresh(MODULES_AFTER.format(argv=argv))
    heavy = sorted(set(HEAVY) & set(seen["modules"]))
    assert heavy == [], f"prefixlock {' '.join(argv)} imported {heavy}"
    if argv[:1] == ["sim"]:
        assert "usage: prefixlock sim" in seen["out"] and "--curve" in seen["out"]
        assert "prefixlock.sim.cli" in seen["modules"]
        # Only the chosen command is imported.
        others = ("prefixlock.cli.run", "prefixlock.store.cli", "prefixlock.policies.cli")
        assert not set(others) & set(seen["modules"])
    else:
        # Every command listed, in its order, with its help line.
        listed = [n for n in NAMES if f"\n    {n} " in seen["out"]]
        assert listed == NAMES
        assert seen["out"].index("    demo ") < seen["out"].index("    sim ")
        assert "subagent definitions and the delegation advisor" in seen["out"]


def test_a_listed_command_still_runs_in_the_same_process() -> None:
    """After `--help` listed every command, `agents list` runs in the same process."""
    code = """
import contextlib, io, json, sys
from prefixlock.cli.main import main
with contextlib.redirect_stdout(io.StringIO()):
    try:
        main(["--help"])
    except SystemExit:
        pass
with contextlib.redirect_stdout(io.StringIO()) as out:
    code = main(["agents", "--json", "list"])
import prefixlock.agents
print(json.dumps({"code": code, "names": [d["name"] for d in json.loads(out.getvalue())],
                  "cli": sys.modules["prefixlock.agents.cli"].__name__,
                  "attr": prefixlock.agents.cli.__name__}))
"""
    seen = _fresh(code)
    assert seen["code"] == 0 and seen["names"]
    assert seen["cli"] == seen["attr"] == "prefixlock.agents.cli"


@pytest.mark.parametrize("name", NAMES)
def test_each_command_help_lists_what_its_configure_adds(name: str, capsys: Any) -> None:
    """The lazily configured parser prints the same help as one configured up front."""
    with pytest.raises(SystemExit) as done:
        cli.main([name, "--help"])
    assert done.value.code == 0
    lazy = capsys.readouterr().out
    cmd = cli._commands()[name].load()
    assert cmd is not None
    eager = argparse.ArgumentParser(prog=f"prefixlock {name}", description=cmd.help)
    cmd.configure(eager)
    assert lazy == eager.format_help()


@pytest.mark.parametrize(
    "group", ["prefixlock.commands", "prefixlock.delegators", "console_scripts"]
)
def test_entry_points_read_as_importlib_metadata_reads_them(group: str) -> None:
    want = {ep.name: ep.value for ep in entry_points(group=group)}
    assert cli.entry_point_values(group) == want
    if group == "prefixlock.commands":
        assert sorted(want) == sorted(NAMES)


def test_a_product_that_is_not_installed_adds_no_command(
    monkeypatch: pytest.MonkeyPatch, capsys: Any
) -> None:
    registered = dict(cli._commands())
    registered["ghost"] = cli.Registered("prefixlock.ghost.cli:COMMAND")  # no such package
    registered["spook"] = cli.Registered("prefixlock.sim.ghost:COMMAND")  # no such module
    monkeypatch.setattr(cli, "_commands", lambda: registered)
    with pytest.raises(SystemExit):
        cli.main(["--help"])
    out = capsys.readouterr().out
    assert "ghost" not in out and "spook" not in out and "    sim " in out
    for name in ("ghost", "spook"):
        with pytest.raises(SystemExit) as done:
            cli.main([name])
        assert done.value.code == 2
        err = capsys.readouterr().err
        assert f"invalid choice: {name!r}" in err and len(err.splitlines()) == 1


def test_a_broken_command_module_is_not_hidden(
    tmp_path: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A missing import inside an installed command module is a bug to show, not a command to
    drop."""
    (tmp_path / "brokencmd.py").write_text("import numpy_missing_here\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setattr(cli, "_commands", lambda: {"broken": cli.Registered("brokencmd:COMMAND")})
    for argv in (["broken", "--help"], ["--help"]):
        with pytest.raises(ModuleNotFoundError, match="numpy_missing_here"):
            cli.main(argv)
        sys.modules.pop("brokencmd", None)


def test_deferred_command_imports_its_module_only_when_used() -> None:
    code = """
import argparse, json, sys
from prefixlock.cli.run import DEMO_COMMAND
before = "prefixlock.cli.demo" in sys.modules
p = argparse.ArgumentParser()
DEMO_COMMAND.configure(p)
print(json.dumps({"before": before, "after": "prefixlock.cli.demo" in sys.modules,
                  "flags": sorted(p._option_string_actions)}))
"""
    seen = _fresh(code)
    assert not seen["before"] and seen["after"]
    assert {"--json", "--provider", "--trace-dir"} <= set(seen["flags"])
    assert isinstance(cli._commands()["demo"].load(), Command)
