"""`prefixlock run` with no key: the emulator's explorer script uses the workspace tools it is
offered (list, grep, read) and answers from what they returned, reading the cache as it goes."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

KEYS = ("ANTHROPIC_API_KEY", "OPENAI_API_KEY", "DEEPSEEK_API_KEY")


def _console_script() -> str:
    script = Path(sys.executable).with_name("prefixlock")
    if not script.exists():
        pytest.skip("the prefixlock console script is not installed next to this Python")
    return str(script)


def _project(root: Path) -> Path:
    (root / "src").mkdir()
    (root / "tokenizer_config.py").write_text(
        "# Where the tokenizer is configured.\nVOCAB_SIZE = 32000\nMERGES = 'merges.txt'\n"
    )
    (root / "README.md").write_text("# demo\nA small project with a tokenizer.\n")
    (root / "src" / "train.py").write_text("from tokenizer_config import VOCAB_SIZE\n")
    system = root.parent / "system.md"
    # A realistic system prompt: long enough to be cached on its own (Opus 4.7: 2,048 tokens).
    system.write_text(
        " ".join(f"Rule {i}: read before you answer, cite the file." for i in range(300))
    )
    return system


@pytest.mark.parametrize("model", ["claude-opus-4-7", "gpt-5.4"])
def test_run_explores_the_workspace_on_the_emulator(tmp_path: Path, model: str) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    system = _project(ws)
    env = {k: v for k, v in os.environ.items() if k not in KEYS}
    proc = subprocess.run(
        [
            _console_script(),
            "run",
            "Where is the tokenizer configured?",
            "--model",
            model,
            "--workspace",
            str(ws),
            "--system",
            f"@{system}",
        ],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        cwd=tmp_path,
    )
    assert proc.returncode == 0, proc.stderr
    assert "running on the local emulator" in proc.stderr
    out = proc.stdout
    assert "not available" not in out
    # The answer quotes what the tools returned: the listing, the grep hit, the file read.
    assert "list_dir(path='.'): README.md, src/, tokenizer_config.py" in out
    # (arguments in schema order, which is canonical on the wire: path before pattern)
    assert re.search(r"grep\([^)]*pattern='tokenizer'", out) and "src/train.py:1:" in out
    assert "read_file(path='tokenizer_config.py')" in out and "VOCAB_SIZE = 32000" in out
    summary = out.strip().splitlines()[-1]
    m = re.match(r"(\d+) requests: read ([\d,]+), written ([\d,]+)", summary)
    assert m, summary
    requests, read = int(m.group(1)), int(m.group(2).replace(",", ""))
    # list, grep, read, answer: the three requests after the first read the cached prefix.
    assert requests == 4
    assert read >= 3 * 2048
