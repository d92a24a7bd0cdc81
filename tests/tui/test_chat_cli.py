"""`prefixlock chat` refuses what the user can fix with one line and exit code 2, before any
screen opens."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

KEY_VARS = ("ANTHROPIC_API_KEY", "OPENAI_API_KEY", "DEEPSEEK_API_KEY", "PREFIXLOCK_API_KEY")


def chat(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in KEY_VARS}
    code = "import sys; from harness.cli import main; sys.exit(main())"
    return subprocess.run(
        [sys.executable, "-c", code, "chat", *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )


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
    for flag in ("--model", "--resume", "--workspace", "--allow", "--offline"):
        assert flag in out.stdout
