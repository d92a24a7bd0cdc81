"""The light core, as a user installs it: `pip install prefixlock` in a fresh venv brings
neither numpy nor textual, `import prefixlock` works, and a command that needs an extra names
it. Slow (a venv built from the package index): `python -m pytest -m slow tests/install`."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.slow
def test_the_core_install_imports_without_numpy_or_textual(tmp_path: Path) -> None:
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    python = venv / "bin" / "python"
    pip = subprocess.run(
        [str(python), "-m", "pip", "install", "-q", str(ROOT)], capture_output=True, text=True
    )
    if pip.returncode != 0:
        pytest.skip(f"pip could not install the package here: {pip.stderr.strip()[-300:]}")
    probe = (
        "import importlib.util as u\n"
        "assert u.find_spec('numpy') is None and u.find_spec('textual') is None\n"
        "import prefixlock\n"
        "from prefixlock import Agent, FrozenPrefix, McpServer, tool\n"
        "print('ok')\n"
    )
    done = subprocess.run([str(python), "-c", probe], cwd=tmp_path, capture_output=True, text=True)
    assert done.stdout.strip() == "ok", done.stderr
    sim = subprocess.run(
        [str(venv / "bin" / "prefixlock"), "sim", "synthetic"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
    )
    assert sim.returncode == 2
    assert sim.stderr.strip().endswith("pip install 'prefixlock[sim]'")
    assert len(sim.stderr.strip().splitlines()) == 1
