"""`prefixlock run` with no key: the emulator's explorer script uses the workspace tools it is
offered (list, grep, read) and answers from what they returned, reading the cache as it goes."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.helpers.cli import run_cli


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
    proc = run_cli(
        "run",
        "Where is the tokenizer configured?",
        "--model",
        model,
        "--workspace",
        str(ws),
        "--system",
        f"@{system}",
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
    summary = proc.stderr.strip().splitlines()[-1]  # stdout is the answer alone
    m = re.match(r"(\d+) requests: read ([\d,]+), written ([\d,]+)", summary)
    assert m, summary
    requests, read = int(m.group(1)), int(m.group(2).replace(",", ""))
    # list, grep, read, answer: the three requests after the first read the cached prefix.
    assert requests == 4
    assert read >= 3 * 2048
