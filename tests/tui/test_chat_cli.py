"""`prefixlock chat` refuses what the user can fix with one line and exit code 2, before any
screen opens."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.helpers.cli import Ran, run_cli
from tests.helpers.files import write

KEY_VARS = ("ANTHROPIC_API_KEY", "OPENAI_API_KEY", "DEEPSEEK_API_KEY", "PREFIXLOCK_API_KEY")


def chat(*args: str, cwd: Path) -> Ran:
    return run_cli("chat", *args, cwd=cwd)


def test_unknown_model_unknown_session_and_bad_workspace_exit_2(tmp_path: Path) -> None:
    store = str(tmp_path / "s.sqlite")
    bad_model = chat("--model", "claude-opsu-9", "--store", store, cwd=tmp_path)
    assert bad_model.returncode == 2
    assert "unknown model 'claude-opsu-9'" in bad_model.stderr
    assert "Traceback" not in bad_model.stderr
    missing = chat("--resume", "no-such-session", "--store", store, cwd=tmp_path)
    assert missing.returncode == 2 and "no-such-session" in missing.stderr
    assert len(missing.stderr.strip().splitlines()) == 1
    nodir = chat("--workspace", str(tmp_path / "nope"), "--store", store, cwd=tmp_path)
    assert nodir.returncode == 2 and "nope" in nodir.stderr


def test_help_lists_the_options(tmp_path: Path) -> None:
    out = chat("--help", cwd=tmp_path)
    assert out.returncode == 0
    for flag in ("--model", "--resume", "--workspace", "--allow", "--base-url", "--offline"):
        assert flag in out.stdout


def test_base_url_without_a_key_or_not_a_url_exit_2(tmp_path: Path) -> None:
    store = str(tmp_path / "s.sqlite")
    nokey = chat(
        "--model",
        "openai-compat:llama",
        "--base-url",
        "http://127.0.0.1:9/v1",
        "--store",
        store,
        cwd=tmp_path,
    )
    assert nokey.returncode == 2 and "Traceback" not in nokey.stderr
    assert len(nokey.stderr.strip().splitlines()) == 1
    assert "set PREFIXLOCK_API_KEY" in nokey.stderr and "127.0.0.1:9" in nokey.stderr
    bad = chat(
        "--model",
        "openai-compat:llama",
        "--base-url",
        "localhost:8000",
        "--store",
        store,
        cwd=tmp_path,
    )
    assert bad.returncode == 2 and "--base-url" in bad.stderr and "localhost:8000" in bad.stderr
    assert not (tmp_path / "s.sqlite").exists()  # nothing written before the screen opens


def test_the_offline_note_names_the_missing_key(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Another provider's key does not take a model online; the note says which key is
    missing instead of claiming --offline was given."""
    from prefixlock.tui.backend import BackendOptions, ChatBackend

    for var in KEY_VARS:
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-not-used")
    claude = ChatBackend(BackendOptions(model="claude-sonnet-4-6", workspace=tmp_path))
    assert claude.offline
    assert claude.offline_reason == "No ANTHROPIC_API_KEY set for claude-sonnet-4-6"
    forced = ChatBackend(BackendOptions(model="gpt-5", workspace=tmp_path, api_key=""))
    assert forced.offline and forced.offline_reason == "--offline"
    assert not ChatBackend(BackendOptions(model="gpt-5", workspace=tmp_path)).offline
    monkeypatch.delenv("OPENAI_API_KEY")
    none = ChatBackend(BackendOptions(model="gpt-5", workspace=tmp_path, api_key=""))
    assert none.offline_reason == "No API key found"


def test_a_malformed_agent_file_in_the_workspace_exit_2(tmp_path: Path) -> None:
    folder = tmp_path / ".claude" / "agents"
    folder.mkdir(parents=True)
    (folder / "broken.md").write_text("---\nname: broken\ntools: [a, b\n---\nHi\n")
    out = chat("--store", str(tmp_path / "s.sqlite"), cwd=tmp_path)
    assert out.returncode == 2 and "Traceback" not in out.stderr
    assert len(out.stderr.strip().splitlines()) == 1
    assert "broken.md:3: malformed front matter" in out.stderr


def test_a_store_that_is_not_one_exit_2_and_is_left_untouched(tmp_path: Path) -> None:
    other = tmp_path / "notes.txt"
    other.write_text("not a database\n" * 100)
    before = other.read_bytes()
    out = chat("--store", str(other), cwd=tmp_path)
    assert out.returncode == 2 and "Traceback" not in out.stderr
    assert len(out.stderr.strip().splitlines()) == 1 and "notes.txt" in out.stderr
    assert other.read_bytes() == before


def test_model_with_resume_becomes_the_offer_of_a_switch(tmp_path: Path) -> None:
    """--model with --resume is not dropped: it reaches the app as the switch to offer (the
    app then quotes it, see test_app_session); without --resume it is the session's model."""
    import argparse

    from prefixlock.tui.cli import _configure, backend_options

    parser = argparse.ArgumentParser()
    _configure(parser)
    resumed = backend_options(
        parser.parse_args(["--resume", "s1", "--model", "claude-haiku-4-5"]), tmp_path
    )
    assert resumed.resume == "s1" and resumed.switch_to == "claude-haiku-4-5"
    fresh = backend_options(parser.parse_args(["--model", "claude-haiku-4-5"]), tmp_path)
    assert fresh.model == "claude-haiku-4-5" and fresh.switch_to is None
    plain = backend_options(parser.parse_args(["--resume", "s1"]), tmp_path)
    assert plain.switch_to is None


def test_the_sandbox_flags_reach_the_chats_workspace(tmp_path: Path) -> None:
    """`chat --sandbox off --no-network`: the user's explicit choice, carried to the tools."""
    import argparse

    from prefixlock.coding.sandbox import SandboxOptions
    from prefixlock.tui.backend import ChatBackend
    from prefixlock.tui.cli import _configure, backend_options

    parser = argparse.ArgumentParser()
    _configure(parser)
    chosen = backend_options(parser.parse_args(["--sandbox", "off", "--no-network"]), tmp_path)
    assert chosen.sandbox == SandboxOptions(mode="off", network=False)
    assert ChatBackend(chosen).workspace.sandbox.options.mode == "off"
    default = backend_options(parser.parse_args([]), tmp_path)
    assert ChatBackend(default).workspace.sandbox.options == SandboxOptions()


def test_chat_exits_2_on_a_bad_settings_file_and_takes_its_model(tmp_path: Path) -> None:
    ws, home = tmp_path / "ws", tmp_path / "home"
    ws.mkdir()
    home.mkdir()
    store = str(tmp_path / "s.sqlite")
    bad = write(ws / ".prefixlock" / "settings.toml", 'permission_mode = "always"\n')
    ran = run_cli("chat", "--workspace", str(ws), "--store", store, env={"HOME": str(home)})
    assert ran.returncode == 2 and "Traceback" not in ran.stderr
    assert len(ran.stderr.strip().splitlines()) == 1
    assert f"{bad}: permission_mode: must be one of" in ran.stderr
    # A model the settings name that no price table knows: the file is named, not --model.
    bad.write_text('model = "claude-opsu-9"\n')
    ran = run_cli("chat", "--workspace", str(ws), "--store", store, env={"HOME": str(home)})
    assert ran.returncode == 2 and f"{bad}: model: unknown model 'claude-opsu-9'" in ran.stderr
    # A user-level file is read from the home folder.
    bad.unlink()
    write(home / ".claude" / "settings.json", "[1, 2]")
    ran = run_cli("chat", "--workspace", str(ws), "--store", store, env={"HOME": str(home)})
    assert ran.returncode == 2 and "settings.json: must be a JSON object" in ran.stderr
    assert not Path(store).exists()  # nothing written before the screen opens


def test_backend_options_take_the_settings_model_and_effort(tmp_path: Path) -> None:
    import argparse

    from prefixlock.coding.settings_files import ChatSettings
    from prefixlock.tui.cli import _configure, backend_options

    parser = argparse.ArgumentParser()
    _configure(parser)
    cs = ChatSettings(model="claude-haiku-4-5", effort="high")
    opts = backend_options(parser.parse_args([]), tmp_path, cs)
    assert opts.model == "claude-haiku-4-5" and opts.settings is not None
    assert opts.settings.effort == "high" and opts.chat_settings is cs
    flag = backend_options(parser.parse_args(["--model", "claude-sonnet-4-6"]), tmp_path, cs)
    assert flag.model == "claude-sonnet-4-6"  # the command line wins
