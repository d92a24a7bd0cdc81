"""`--unsafe-fixes` moves a volatile line of the system prompt into the newest user turn also
when the prompt and the message list are built in local variables first (the common shape),
and leaves a prompt alone that is used elsewhere too."""

from __future__ import annotations

from pathlib import Path

import pytest

from prefixlock.cli.main import main

SRC = """import datetime

RULES = "Follow the project rules and explain every change before you make it."


def ask(client, question, history):
    now = datetime.datetime.now()
    system = f"You are a careful coding assistant.\\nCurrent time: {now}\\n{RULES}"
    messages = [*history, {"role": "user", "content": question}]
    return client.messages.create(model="claude-sonnet-4-6", max_tokens=100,
                                  cache_control={"type": "ephemeral"},
                                  system=system, messages=messages)


def logged(client, question):
    now = datetime.datetime.now()
    system = f"You are a careful coding assistant.\\nCurrent time: {now}\\n{RULES}"
    print(system)
    return client.messages.create(model="claude-sonnet-4-6", max_tokens=100,
                                  cache_control={"type": "ephemeral"},
                                  system=system, messages=[{"role": "user", "content": question}])
"""


def test_moves_the_line_through_local_variables(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "a.py").write_text(SRC)
    assert main(["lint", "a.py", "--fix"]) == 1
    assert "1 more with --unsafe-fixes" in capsys.readouterr().out
    assert (tmp_path / "a.py").read_text() == SRC  # unsafe fixes need their flag
    assert main(["lint", "a.py", "--unsafe-fixes", "--no-source"]) == 1
    out = capsys.readouterr().out
    new = (tmp_path / "a.py").read_text()
    compile(new, "a.py", "exec")
    ask, logged = new.split("def logged")
    assert "    system = f'You are a careful coding assistant.\\n{RULES}'\n" in ask
    assert (
        '    messages = [*history, {"role": "user", "content": '
        "f'Current time: {now}\\n' + question}]\n"
    ) in ask
    # The prompt of `logged` is printed as well: it is left for a person to move.
    assert logged == SRC.split("def logged")[1]
    assert "a.py:16:11: PL101" in out and "(1 fixed)" in out
