"""The README's Python blocks run as written, each as a script of its own, against the
emulator: no SyntaxError (top-level `await`), no name left undefined. The emulator plays the
model (a script for the invoice turns; every other turn gets its default reply) and is reached
the way a user points the official SDKs elsewhere: ANTHROPIC_BASE_URL and a key in the
environment."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from prefixlock.emulator import Emulator, Rule, Script, Step

ROOT = Path(__file__).resolve().parents[2]

SCRIPT = Script(
    rules=[
        Rule(
            match="extract INV-7",
            steps=[
                Step(text="Looking it up.", tool="lookup", input={"number": "INV-7"}),
                Step(tool="final_Invoice", input={"number": "INV-7", "total_cents": 12_345}),
            ],
        ),
        Rule(
            match="pay INV-7",
            steps=[
                Step(text="Paying.", tool="pay", input={"number": "INV-7"}),
                Step(text="Paid."),
            ],
        ),
    ]
)


def python_blocks() -> list[str]:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    return re.findall(r"```python\n(.*?)```", text, re.S)


def test_the_readme_has_its_python_blocks() -> None:
    assert len(python_blocks()) >= 2


@pytest.mark.slow  # a process per block, seconds: CI runs it in its slow step
@pytest.mark.parametrize("index", range(len(python_blocks())))
def test_each_readme_block_runs_as_a_script(index: int, tmp_path: Path) -> None:
    block = python_blocks()[index]
    (tmp_path / "block.py").write_text(block, encoding="utf-8")
    (tmp_path / "SYSTEM.md").write_text("You fix failing tests.\n" * 200, encoding="utf-8")
    with Emulator.start(script=SCRIPT) as emu:
        env = {
            **os.environ,
            "ANTHROPIC_BASE_URL": emu.base_url,
            "ANTHROPIC_API_KEY": "test-key",
            "PREFIXLOCK_STORE": str(tmp_path / "sessions.sqlite"),
        }
        done = subprocess.run(
            [sys.executable, "block.py"],
            cwd=tmp_path,
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
        )
        served = len(emu.requests)
    assert done.returncode == 0, done.stderr[-2000:]
    assert served >= 2  # it talked to the emulator, not elsewhere
    if "Invoice" in block:
        assert "number='INV-7' total_cents=12345 ['INV-7']" in done.stdout
