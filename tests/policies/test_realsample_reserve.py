"""The corpora's shared reserve step (tests/policies/corpus/realsample.py): a reserve step keeps
the main list's `language full` lines in SKIPPED.txt, which the shared draw drops."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

_CORPUS = Path(__file__).parent / "corpus"


def _realsample() -> ModuleType:
    spec = importlib.util.spec_from_file_location("realsample", _CORPUS / "realsample.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    # its dataclasses look their module up by name while the class is made
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def test_a_reserve_step_puts_the_language_full_lines_back_ahead_of_its_own(tmp_path: Path) -> None:
    rs = _realsample()
    skipped = tmp_path / "SKIPPED.txt"
    skipped.write_text("a/one: no snapshot\nb/two: language full (py)\n", encoding="utf-8")

    class Step(rs.Draw):  # type: ignore[name-defined,misc]
        # as the shared draw does: rewrites SKIPPED.txt without the `language full` lines
        def main(self, argv: list[str], volatile: int = 3) -> int:
            skipped.write_text("a/one: no snapshot\nc/three: no ts file\n", encoding="utf-8")
            return 7

    code = rs.reserve_step(Step(tmp_path, {}, {"ts": 1, "py": 1}), [])
    assert code == 7
    assert skipped.read_text(encoding="utf-8").splitlines() == [
        "b/two: language full (py)",
        "a/one: no snapshot",
        "c/three: no ts file",
    ]


def test_a_line_the_step_kept_itself_is_not_written_twice(tmp_path: Path) -> None:
    rs = _realsample()
    skipped = tmp_path / "SKIPPED.txt"
    skipped.write_text("b/two: language full (py)\n", encoding="utf-8")

    class Step(rs.Draw):  # type: ignore[name-defined,misc]
        def main(self, argv: list[str], volatile: int = 3) -> int:
            skipped.write_text("b/two: language full (py)\n", encoding="utf-8")
            return 0

    rs.reserve_step(Step(tmp_path, {}, {"ts": 1, "py": 1}), [])
    assert skipped.read_text(encoding="utf-8").splitlines() == ["b/two: language full (py)"]
