"""Bad input ends in one clear error naming what to fix: unknown models, duplicate tools,
schemas that cannot be serialized, missing API keys (the variable named, the key never shown)."""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from prefixlock.agent import Agent
from prefixlock.billing.prices import PriceTable
from prefixlock.cli.main import main
from prefixlock.errors import (
    ConfigError,
    MissingKeyError,
    PrefixError,
    ProviderError,
    UnknownModelError,
)
from prefixlock.prefix import FrozenPrefix
from prefixlock.providers import find_key, resolve_route
from prefixlock.tools import ToolSpec, tool
from tests.helpers.cli import Ran, run_cli

KEYS = ("ANTHROPIC_API_KEY", "OPENAI_API_KEY", "DEEPSEEK_API_KEY", "PREFIXLOCK_API_KEY")


@pytest.fixture(autouse=True)
def _no_keys(monkeypatch: pytest.MonkeyPatch) -> None:
    for k in KEYS:
        monkeypatch.delenv(k, raising=False)


@pytest.mark.parametrize(
    ("model", "base_url", "api", "var"),
    [
        ("claude-opus-4-7", None, "anthropic", "ANTHROPIC_API_KEY"),
        ("haiku", None, "anthropic", "ANTHROPIC_API_KEY"),
        ("gpt-5", None, "openai-responses", "OPENAI_API_KEY"),
        ("o3", None, "openai-responses", "OPENAI_API_KEY"),
        ("openai:gpt-5", None, "openai-responses", "OPENAI_API_KEY"),
        ("openai-chat:gpt-5", None, "openai-chat", "OPENAI_API_KEY"),
        ("openai-responses:gpt-5", None, "openai-responses", "OPENAI_API_KEY"),
        ("deepseek-v4-flash", None, "openai-compat", "DEEPSEEK_API_KEY"),
        ("openai-compat:llama3", "http://localhost:11434", "openai-compat", "PREFIXLOCK_API_KEY"),
        ("qwen3-coder", "http://vllm:8000/v1", "openai-compat", "PREFIXLOCK_API_KEY"),
    ],
)
def test_routes_and_missing_key_names_the_variable(
    model: str, base_url: str | None, api: str, var: str
) -> None:
    route = resolve_route(model, base_url, PriceTable.default())
    assert route.api == api and route.key_var == var
    with pytest.raises(MissingKeyError, match=var):
        Agent(FrozenPrefix(system="s"), model=model, base_url=base_url).session()
    assert find_key(route, env={var: "sk-from-env"}) == "sk-from-env"


def test_deepseek_base_url_comes_from_the_price_table() -> None:
    route = resolve_route("deepseek-v4-flash")
    assert route.base_url == "https://api.deepseek.com" and route.model == "deepseek-v4-flash"
    assert resolve_route("haiku").model == "claude-haiku-4-5"


def test_unknown_model_without_provider_is_a_user_error() -> None:
    with pytest.raises(UnknownModelError, match="openai-compat:"):
        resolve_route("mystery-model")
    with pytest.raises(UnknownModelError, match="base URL"):
        resolve_route("openai-compat:mystery-model")


def test_duplicate_tool_names_fail_at_prefix_build() -> None:
    @tool
    def grep(pattern: str) -> str:
        """Search."""
        return pattern

    other = {"name": "grep", "description": "another grep", "input_schema": {"type": "object"}}
    with pytest.raises(PrefixError, match="'grep'"):
        FrozenPrefix(system="s", tools=[grep, other])


def test_non_serializable_schema_fails_with_the_tool_name() -> None:
    bad = {"name": "fetch", "description": "d", "input_schema": {"type": "object", "x": object()}}
    with pytest.raises(PrefixError, match="'fetch'"):
        FrozenPrefix(system="s", tools=[bad])
    nan = {"name": "ratio", "description": "d", "input_schema": {"maximum": float("nan")}}
    with pytest.raises(PrefixError, match="'ratio'"):
        FrozenPrefix(system="s", tools=[nan])

    class Opaque:
        pass

    def weird(x: Opaque) -> str:
        """Takes something pydantic cannot describe."""
        return ""

    with pytest.raises(PrefixError, match="'weird'"):
        tool(weird)


def _cli(*args: str, env: dict[str, str] | None = None) -> Ran:
    return run_cli(*args, env=env)


def test_cli_run_user_errors_exit_2(capsys: Any) -> None:
    assert main(["run", "hi", "--model", "mystery-model"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("prefixlock: error: --model:") and "Traceback" not in err
    assert main(["run", "hi", "--max-dollars", "lots", "--tools", "none"]) == 2
    assert "--max-dollars" in capsys.readouterr().err


def test_cli_run_on_the_emulator_without_a_key(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("hello")
    proc = _cli(
        "run",
        "Why does test_parse fail?",
        "--model",
        "claude-haiku-4-5",
        "--workspace",
        str(tmp_path),
    )
    assert proc.returncode == 0, proc.stderr
    assert "no ANTHROPIC_API_KEY set: running on the local emulator" in proc.stderr
    assert proc.stdout.strip()  # the answer
    summary = proc.stderr.strip().splitlines()[-1]
    for word in ("read", "written", "uncached", "hit rate", "cost $", "saved $"):
        assert word in summary


def test_unknown_model_priced_by_user_file(tmp_path: Path) -> None:
    prices = tmp_path / "p.json"
    prices.write_text(
        json.dumps(
            {
                "models": [
                    {
                        "model": "my-model",
                        "provider": "custom",
                        "input": 1,
                        "output": 2,
                        "cache_read": 0.1,
                    }
                ]
            }
        )
    )
    table = PriceTable.default(prices)
    assert table.require("openai-compat:my-model").input == 1
    route = resolve_route("openai-compat:my-model", "http://localhost:8000", table)
    assert route.model == "my-model" and route.provider == "custom"


@pytest.mark.parametrize(
    ("args", "start"),
    [
        (["--model", "mystery-model"], "prefixlock: error: --model: cannot tell which provider"),
        (
            ["--model", "openai-compat:llama3", "--base-url", "http://127.0.0.1:9/v1"],
            "prefixlock: error: PREFIXLOCK_API_KEY: no API key for openai-compat:llama3 at "
            "http://127.0.0.1:9/v1: set PREFIXLOCK_API_KEY",
        ),
        (["--max-turns", "0"], "prefixlock: error: --max-turns: must be at least 1"),
        (["--max-dollars", "lots"], "prefixlock: error: --max-dollars: not a dollar amount"),
        (["--system", "@/no/such/file"], "prefixlock: error: /no/such/file: cannot read"),
        (["--prices", "/no/such/prices.json"], "prefixlock: error: /no/such/prices.json"),
    ],
)
def test_cli_run_bad_input_end_to_end(args: list[str], start: str) -> None:
    """Through the console script: one line on stderr naming what to fix, exit 2, no traceback."""
    proc = _cli("run", "hi", "--tools", "none", *args)
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr.startswith(start), proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1


def test_sdk_errors_name_the_argument_and_the_cli_names_the_flag() -> None:
    """From Python the error names the argument (`model`, `base_url`); through the command
    line the same error names the flag that set it."""
    with pytest.raises(UnknownModelError) as err:
        Agent(FrozenPrefix(system="x"), model="mystery-model", api_key="k")
    assert err.value.where == "model" and str(err.value).startswith("model: cannot tell")
    with pytest.raises(UnknownModelError) as err:
        resolve_route("openai-compat:llama3")
    assert err.value.where == "base_url" and "--" not in str(err.value)
    flagged = err.value.at("--base-url")
    assert type(flagged) is UnknownModelError and flagged.message == err.value.message
    assert str(flagged) == f"--base-url: {err.value.message}" and err.value.where == "base_url"
    proc = _cli("run", "hi", "--tools", "none", "--model", "openai-compat:llama3")
    assert proc.returncode == 2
    assert proc.stderr.startswith("prefixlock: error: --base-url: 'openai-compat:llama3' is ")


def test_cli_bad_flag_is_one_line_naming_the_subcommand_exit_2() -> None:
    proc = _cli("run", "hi", "--no-such-flag")
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert proc.stderr.strip().splitlines() == [
        "prefixlock run: error: unrecognized arguments: --no-such-flag"
        " (see 'prefixlock run --help')"
    ]


def test_cli_run_with_a_base_url_needs_its_key(capsys: Any) -> None:
    code = main(
        [
            "run",
            "hi",
            "--model",
            "openai-compat:llama3",
            "--base-url",
            "http://127.0.0.1:9/v1",
            "--tools",
            "none",
        ]
    )
    assert code == 2
    assert "PREFIXLOCK_API_KEY" in capsys.readouterr().err


def test_unreadable_price_file_is_one_line_config_error(tmp_path: Path) -> None:
    missing = tmp_path / "none.json"
    with pytest.raises(ConfigError) as err:
        PriceTable.load_file(missing)
    assert err.value.where == str(missing) and "cannot read price file" in str(err.value)
    latin1 = tmp_path / "prices.json"
    latin1.write_bytes(b'{"models": [], "note": "caf\xe9"}')
    with pytest.raises(ConfigError) as err:
        PriceTable.load_file(latin1)
    assert str(err.value) == f"{latin1}: cannot read price file: not UTF-8 text"


@pytest.mark.parametrize(
    ("fault", "code", "line"),
    [
        (
            ProviderError("overloaded_error: Overloaded", status=529, retryable=True),
            1,
            "prefixlock: provider error (HTTP 529): overloaded_error: Overloaded",
        ),
        # A refused key is the user's to fix, like a bad flag.
        (
            ProviderError("invalid x-api-key", status=401),
            2,
            "prefixlock: error: the provider refused the API key (HTTP 401): invalid x-api-key",
        ),
    ],
)
def test_cli_reports_a_provider_fault_in_one_line(
    fault: ProviderError, code: int, line: str, monkeypatch: pytest.MonkeyPatch, capsys: Any
) -> None:
    # What any subcommand raises once the provider's retries ran out: one line, no traceback.
    from prefixlock.cli import main as cli
    from prefixlock.cli.command import Command

    def fail(args: Any) -> int:
        raise fault

    boom = Command(help="fails", configure=lambda p: None, run=fail)
    registered = SimpleNamespace(load=lambda: boom, peek=lambda: boom)
    monkeypatch.setattr(cli, "_commands", lambda: {"boom": registered})
    assert cli.main(["boom"]) == code
    assert capsys.readouterr().err == line + "\n"


@pytest.mark.parametrize(
    "name",
    ["read file", "fs.read", "grep\n", "", "x" * 65, "naïve", "mcp__fs/read"],
)
def test_a_tool_name_the_providers_refuse_fails_at_prefix_build(name: str) -> None:
    # Dicts and ToolSpecs skip @tool's check; without this the first request would be a 400.
    for item in (
        {"name": name, "description": "d", "input_schema": {"type": "object"}},
        ToolSpec(name, "d", {"type": "object"}),
    ):
        with pytest.raises(PrefixError) as err:
            FrozenPrefix(system="s", tools=[item])
        msg = str(err.value)
        assert len(msg.splitlines()) == 1 and "^[a-zA-Z0-9_-]{1,64}$" in msg
        assert msg.startswith(f"tool name {name!r}"[:40])


def test_tool_names_at_the_limits_and_non_text_names() -> None:
    ok = ["a", "x" * 64, "read_file", "web-search", "Tool_2"]
    prefix = FrozenPrefix(system="s", tools=[{"name": n, "description": "d"} for n in ok])
    assert set(prefix.tool_names()) == set(ok)
    for bad in (None, 5):
        with pytest.raises(PrefixError, match=f"tool name {bad!r} must match"):
            FrozenPrefix(system="s", tools=[{"name": bad, "description": "d"}])

    def lookup(key: str) -> str:
        """Look a key up."""
        return key

    with pytest.raises(PrefixError, match=r"'look\.up' must match"):
        tool(name="look.up")(lookup)
