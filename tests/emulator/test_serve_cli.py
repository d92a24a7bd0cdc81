"""`prefixlock serve`: config files are checked field by field; the server answers the SDKs."""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from pathlib import Path

import pytest

from prefixlock.cli.main import main
from prefixlock.clock import ManualClock
from prefixlock.emulator import Emulator, EmulatorConfig
from prefixlock.emulator.cli import DEFAULT_PORT, SERVE_COMMAND, config_from_args
from prefixlock.emulator.server import PROXY_VARS
from tests.helpers.sdk import anthropic


@pytest.mark.parametrize(
    ("option", "text", "suffix", "field"),
    [
        ("--config", "openai:\n  machines: zero\n", ".yaml", "openai.machines"),
        ("--config", "port: 0\nfoo: 1\n", ".yaml", "foo"),
        ("--config", '{"faults": [{"kind": "418"}]}', ".json", "faults.0.kind"),
        ("--config", '{"port": ', ".json", ":1:"),
        ("--config", "port: [1\n", ".yaml", ":2:1: invalid YAML"),  # YAML's message is multi-line
        ("--config", "- a\n- b\n", ".yaml", "expected a mapping"),
        ("--script", "rules: [\n", ".yaml", ":2:1: invalid YAML in script"),
        ("--script", "rules:\n  - turn: 0\n    steps: [{text: x}]\n", ".yaml", "rules.0.turn"),
        ("--script", "[1, 2]", ".json", "expected a mapping"),
    ],
)
def test_bad_file_names_file_and_field_and_exits_2(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    option: str,
    text: str,
    suffix: str,
    field: str,
) -> None:
    path = tmp_path / f"emu{suffix}"
    path.write_text(text)
    assert main(["serve", option, str(path), "--port", "0"]) == 2
    err = capsys.readouterr().err
    assert str(path) in err and field in err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1


def test_bad_config_through_the_console_script(tmp_path: Path) -> None:
    """The installed entry point itself: one line naming file and field, exit 2, no traceback."""
    path = tmp_path / "emu.yaml"
    path.write_text("anthropic:\n  capacity_blocks: -1\n")
    proc = subprocess.run(
        [sys.executable, "-m", "prefixlock.cli.main", "serve", "--config", str(path)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr.startswith(f"prefixlock: error: {path}: anthropic.capacity_blocks:")
    assert len(proc.stderr.strip().splitlines()) == 1


def test_config_file_round_trip(tmp_path: Path) -> None:
    path = tmp_path / "emu.yaml"
    path.write_text(
        "openai:\n  machines: 8\n  routing: random\nanthropic:\n  capacity_blocks: 10\n"
        "faults:\n  - kind: '529'\n    count: 2\n"
    )
    config = EmulatorConfig.load(path)
    assert config.openai.machines == 8 and config.openai.routing == "random"
    assert config.anthropic.capacity_blocks == 10 and config.faults[0].count == 2


def test_serve_answers_the_sdk(tmp_path: Path) -> None:
    path = tmp_path / "emu.json"
    path.write_text('{"port": 0}')
    proc = subprocess.Popen(
        [sys.executable, "-m", "prefixlock.cli.main", "serve", "--config", str(path)],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stdout is not None
        first = proc.stdout.readline()
        base_url = first.strip().rsplit(" ", 1)[-1]
        assert base_url.startswith("http://127.0.0.1:")
        with anthropic.Anthropic(api_key="k", base_url=base_url, max_retries=0) as client:
            msg = client.messages.create(
                model="claude-sonnet-4-6",
                max_tokens=50,
                messages=[{"role": "user", "content": "hello"}],
            )
        assert msg.content
    finally:
        proc.terminate()
        proc.wait(10)
        if proc.stdout is not None:  # the pipe is ours to close, or the collector reports it
            proc.stdout.close()


def _serve_args(*argv: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    SERVE_COMMAND.configure(parser)
    return parser.parse_args(argv)


def test_config_file_without_port_serves_on_the_default_port(tmp_path: Path) -> None:
    """`--port` says "default 8787": a config file that names no port must not change that."""
    path = tmp_path / "emu.yaml"
    path.write_text("seed: 3\n")
    assert config_from_args(_serve_args("--config", str(path))).port == DEFAULT_PORT == 8787
    assert config_from_args(_serve_args()).port == 8787
    path.write_text("port: 0\n")
    assert config_from_args(_serve_args("--config", str(path))).port == 0
    assert config_from_args(_serve_args("--config", str(path), "--port", "9001")).port == 9001


def test_crude_keeps_the_rest_of_the_config_file(tmp_path: Path) -> None:
    path = tmp_path / "emu.yaml"
    path.write_text(
        "port: 0\nopenai:\n  overflow_per_minute: 30\nanthropic:\n  lookback_blocks: 10\n"
        "faults:\n  - kind: '529'\n"
    )
    config = config_from_args(_serve_args("--config", str(path), "--crude"))
    crude = EmulatorConfig.crude()
    # The crude server's routing and capacity...
    assert config.openai.routing == crude.openai.routing == "random"
    assert config.openai.capacity_blocks == crude.openai.capacity_blocks
    assert config.anthropic.machines == crude.anthropic.machines > 1
    assert config.anthropic.capacity_blocks == crude.anthropic.capacity_blocks
    # ...and everything else the file said.
    assert config.openai.overflow_per_minute == 30 and config.anthropic.lookback_blocks == 10
    assert [f.kind for f in config.faults] == ["529"] and config.port == 0


def test_clients_reach_the_emulator_past_a_proxy_setting(monkeypatch: pytest.MonkeyPatch) -> None:
    """With HTTP_PROXY set (a corporate machine), the SDKs would send the local emulator's
    requests to the proxy; the emulator adds its host to NO_PROXY so they come straight here."""
    import openai

    for var in (*PROXY_VARS, "NO_PROXY", "no_proxy"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("HTTP_PROXY", "http://127.0.0.1:9")  # nothing listens there
    monkeypatch.setenv("NO_PROXY", "internal.example")
    with Emulator.start(clock=ManualClock()) as emu:
        client = anthropic.Anthropic(api_key="k", base_url=emu.base_url, max_retries=0)
        msg = client.messages.create(
            model="claude-sonnet-4-6", max_tokens=50, messages=[{"role": "user", "content": "hi"}]
        )
        assert msg.content
        oai = openai.OpenAI(api_key="k", base_url=emu.openai_base_url, max_retries=0)
        reply = oai.chat.completions.create(
            model="gpt-5.4", messages=[{"role": "user", "content": "hi"}]
        )
        assert reply.choices
    assert os.environ["NO_PROXY"] == "internal.example,127.0.0.1"  # the user's entry kept
    assert os.environ["no_proxy"] == "127.0.0.1"


def test_files_named_in_a_config_are_found_beside_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    conf = tmp_path / "conf"
    conf.mkdir()
    (conf / "session.yaml").write_text('default: "From the script beside the config."\n')
    (conf / "emu.yaml").write_text("script: session.yaml\n")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)  # the server is started from another directory
    config = EmulatorConfig.load(conf / "emu.yaml")
    assert config.script == str(conf / "session.yaml")
    with Emulator.start(config=config, clock=ManualClock()) as emu:
        client = anthropic.Anthropic(api_key="k", base_url=emu.base_url, max_retries=0)
        msg = client.messages.create(
            model="claude-sonnet-4-6", max_tokens=50, messages=[{"role": "user", "content": "hi"}]
        )
        block = msg.content[0]
        assert block.type == "text" and block.text == "From the script beside the config."
    # An absolute path is taken as written.
    (conf / "emu.yaml").write_text(f"script: {conf / 'session.yaml'}\n")
    assert EmulatorConfig.load(conf / "emu.yaml").script == str(conf / "session.yaml")
