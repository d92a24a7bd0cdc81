"""Positions and edits on real-world text: non-ASCII prompts and form-feed page breaks.

The AST counts columns in UTF-8 bytes; editors, SARIF (`unicodeCodePoints`) and the fixer count
characters. Prompts are often written in other languages, so a safe fix on such a line must
still produce the intended, valid code.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from prefixlock.cli.main import main

CYRILLIC = """import json

SKILLS = {"поиск", "правка"}


def build(cfg: dict[str, str]) -> str:
    config = " Конфиг: " + json.dumps({n: cfg[n] for n in SKILLS})
    system_prompt = "Навыки: " + ", ".join(SKILLS) + config
    return system_prompt
"""


@pytest.fixture()
def proj(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_safe_fix_on_a_non_ascii_line_gives_the_intended_code(proj: Path) -> None:
    (proj / "a.py").write_text(CYRILLIC, encoding="utf-8")
    assert main(["lint", "a.py", "--fix"]) == 0
    new = (proj / "a.py").read_text(encoding="utf-8")
    compile(new, "a.py", "exec")
    assert new == CYRILLIC.replace("join(SKILLS)", "join(sorted(SKILLS))").replace(
        "for n in SKILLS})", "for n in SKILLS}, sort_keys=True)"
    )


def test_unsafe_fix_on_a_non_ascii_prompt(proj: Path) -> None:
    src = """import datetime

RULES = "Отвечай кратко."


def ask(client, question):
    now = datetime.datetime.now()
    return client.messages.create(
        model="claude-sonnet-4-6", max_tokens=100, cache_control={"type": "ephemeral"},
        SYSTEM_AND_MESSAGES
    )
""".replace(
        "SYSTEM_AND_MESSAGES",  # one line: the user message comes after Cyrillic text
        'system=f"Ты — помощник. Правила ниже.\\nСейчас: {now}\\n{RULES}", '
        'messages=[{"role": "user", "content": question}],',
    )
    (proj / "m.py").write_text(src, encoding="utf-8")
    assert main(["lint", "m.py", "--unsafe-fixes"]) == 0
    new = (proj / "m.py").read_text(encoding="utf-8")
    compile(new, "m.py", "exec")
    assert "system=f'Ты — помощник. Правила ниже.\\n{RULES}'" in new
    assert """"content": f'Сейчас: {now}\\n' + question}""" in new


def test_columns_count_characters(proj: Path, capsys: pytest.CaptureFixture[str]) -> None:
    line = '    system_prompt = f"Привет, мир {datetime.datetime.now()}"'
    (proj / "u.py").write_text(
        f"import datetime\n\n\ndef f():\n{line}\n    return system_prompt\n", encoding="utf-8"
    )
    col = line.index("datetime.datetime.now()") + 1
    assert main(["lint", "u.py", "--format", "sarif"]) == 1
    (result,) = json.loads(capsys.readouterr().out)["runs"][0]["results"]
    region = result["locations"][0]["physicalLocation"]["region"]
    assert (region["startLine"], region["startColumn"]) == (5, col)
    assert region["endColumn"] == col + len("datetime.datetime.now()")
    assert main(["lint", "u.py"]) == 1
    out = capsys.readouterr().out
    assert f"u.py:5:{col}: PL101" in out
    assert "    | " + " " * (col - 1) + "^" in out.splitlines()  # the caret under the call


def test_form_feed_page_break_keeps_line_numbers(
    proj: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    src = (
        "import datetime\n\x0c\n# page two\n\n\ndef f():\n"
        "    system_prompt = f'now {datetime.datetime.now()}'\n    return system_prompt\n"
    )
    (proj / "ff.py").write_text(src)
    assert main(["lint", "ff.py"]) == 1
    out = capsys.readouterr().out
    assert "ff.py:7:" in out and "system_prompt = f'now" in out  # the right source line
    (proj / "ff.py").write_text(
        src.replace(
            "system_prompt = f'now {datetime.datetime.now()}'",
            "system_prompt = f'now {datetime.datetime.now()}'  # prefixlock: ignore[PL101] a demo",
        )
    )
    assert main(["lint", "ff.py"]) == 0  # the suppression is on the finding's line
