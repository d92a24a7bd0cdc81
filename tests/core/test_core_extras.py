"""A feature whose optional package is missing says which extra installs it (one line), and
a missing import inside an installed package is not mistaken for a missing extra."""

from __future__ import annotations

import sys

import pytest

from prefixlock import McpServer, MissingExtraError, UserError
from prefixlock.extras import need


def test_mcp_server_without_the_mcp_extra_names_the_extra(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setitem(sys.modules, "mcp", None)  # as if `mcp` were not installed
    with pytest.raises(MissingExtraError) as caught:
        McpServer.stdio("python", ["server.py"])
    message = str(caught.value)
    assert "pip install 'prefixlock[mcp]'" in message and "McpServer" in message
    assert "\n" not in message
    # A UserError (the CLI's one line, exit 2) and still a ModuleNotFoundError for probes.
    assert isinstance(caught.value, UserError) and isinstance(caught.value, ModuleNotFoundError)
    assert caught.value.name == "mcp" and caught.value.extra == "mcp"


def test_a_missing_import_inside_a_package_is_not_a_missing_extra(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setitem(sys.modules, "json.decoder", None)
    monkeypatch.delitem(sys.modules, "json", raising=False)
    with pytest.raises(ModuleNotFoundError) as caught:
        need("json", "sim", "a test")
    assert not isinstance(caught.value, MissingExtraError)


def test_the_extras_named_are_the_extras_declared() -> None:
    import tomllib
    from pathlib import Path

    from prefixlock.extras import EXTRAS

    pyproject = Path(__file__).resolve().parents[2] / "pyproject.toml"
    if not pyproject.exists():  # an installed copy: the checkout's file is not beside it
        pytest.skip("pyproject.toml is not beside the package")
    declared = tomllib.loads(pyproject.read_text())["project"]["optional-dependencies"]
    assert set(EXTRAS) <= set(declared)


@pytest.mark.parametrize(
    ("argv", "module", "extra"),
    [(["sim", "synthetic"], "numpy", "sim"), (["chat"], "textual", "tui")],
)
def test_a_command_without_its_extra_says_which_in_one_line(
    argv: list[str],
    module: str,
    extra: str,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    from prefixlock.cli.main import main

    for name in [m for m in sys.modules if m == module or m.startswith(module + ".")]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, module, None)
    for name in [m for m in sys.modules if m.startswith(("prefixlock.sim", "prefixlock.tui"))]:
        monkeypatch.delitem(sys.modules, name)  # imported afresh, without the extra
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err == (
        f"prefixlock: error: prefixlock {argv[0]} needs the {module!r} package, which is not "
        f"installed: pip install 'prefixlock[{extra}]'\n"
    )
