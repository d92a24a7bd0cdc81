"""`prefixlock agents list | show | advise`: output, and one-line errors with exit code 2."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from prefixlock.cli.main import main


def test_list_and_show(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["agents", "--root", str(tmp_path), "list"]) == 0
    out = capsys.readouterr().out
    assert "explorer" in out and "summarizer" in out
    assert main(["agents", "--root", str(tmp_path), "--json", "show", "explorer"]) == 0
    shown = json.loads(capsys.readouterr().out)
    assert shown["tools"] == ["read_file", "list_dir", "glob", "grep"]
    assert "explorer" in shown["system"]


def test_malformed_file_is_one_line_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / ".prefixlock/agents"
    folder.mkdir(parents=True)
    (folder / "bad.md").write_text("---\nname: bad\nmodel: [haiku\n---\n")
    assert main(["agents", "--root", str(tmp_path), "list"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1
    assert f"{folder / 'bad.md'}:" in err and "Traceback" not in err


def test_advise_matches_the_library(capsys: pytest.CaptureFixture[str]) -> None:
    args = [
        "agents",
        "--json",
        "advise",
        "--context",
        "100000",
        "--task-share",
        "0.8",
        "--new",
        "9000",
        "--turns",
        "3",
        "--output",
        "1500",
        "--summary",
        "400",
        "--duration",
        "60",
        "--model",
        "claude-sonnet-4-6",
        "--prefix-tokens",
        "3000",
    ]
    assert main(args) == 0
    a = json.loads(capsys.readouterr().out)
    assert a["recommend"] is False
    assert a["parent_cost"] == "0.30150" and a["subagent_cost"] == "0.42495"
    assert a["break_even_context_tokens"] == 51_620
    assert (
        main(
            [
                "agents",
                "advise",
                "--context",
                "100000",
                "--task-share",
                "0.05",
                "--agent",
                "explorer",
            ]
        )
        == 0
    )
    assert "delegate to claude-haiku-4-5" in capsys.readouterr().out
    assert main(["agents", "advise", "--context", "100000", "--task-share", "2"]) == 2
    assert "--task-share" in capsys.readouterr().err


@pytest.mark.parametrize(
    "flag,value",
    [
        ("--turns", "0"),
        ("--new", "-1"),
        ("--output", "-5"),
        ("--summary", "-1"),
        ("--duration", "-1"),
        ("--ttl-left", "-3"),
        ("--later-turns", "-1"),
        ("--prefix-tokens", "-10"),
        ("--task-context", "200000"),
    ],
)
def test_advise_refuses_counts_out_of_range(
    flag: str, value: str, capsys: pytest.CaptureFixture[str]
) -> None:
    need = [] if flag == "--task-context" else ["--task-share", "0.5"]
    assert main(["agents", "advise", "--context", "100000", *need, flag, value]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and flag in err and "Traceback" not in err
