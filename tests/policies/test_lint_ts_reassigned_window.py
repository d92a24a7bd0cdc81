"""A history cut by a budget helper of another module into a local reassigned under an overflow
test (`let kept = messages; if (tokens > limit) kept = trimToFit(messages)`), the local then
handed back as the request's `messages`, or the cut handed whole to a converter whose result
is spread after the system message: the window is reported at the call
(`jscheck.importedwindow`). The twins (the reassigned local only logged, the cut handed to a
summary) report nothing."""

from __future__ import annotations

from pathlib import Path

import pytest

from prefixlock.policies.config import LintConfig
from prefixlock.policies.engine import lint_paths

_HELPER = (
    "export function trimToFit(messages, limit) {\n"
    "  let used = 0\n"
    "  const kept = []\n"
    "  for (let i = messages.length - 1; i >= 0; i--) {\n"
    "    const tokens = messages[i].content.length / 4\n"
    "    if (used + tokens > limit) break\n"
    "    kept.unshift(messages[i])\n"
    "    used += tokens\n"
    "  }\n"
    "  return kept\n"
    "}\n"
)
_CALLER = (
    "import { trimToFit } from './fit'\n"
    "export function prepare(messages, tokenCount, contextLimit) {\n"
    "  let toSend = messages\n"
    "  if (tokenCount > contextLimit) {\n"
    "    toSend = trimToFit(messages, contextLimit)\n"
    "  }\n"
    "  return { messages: toSend, tokenCount }\n"
    "}\n"
)


@pytest.mark.parametrize(
    ("caller", "expected"),
    [
        (_CALLER, [("prepare.ts", 5, "PL303")]),
        (
            _CALLER.replace("messages: toSend", "messages").replace(
                "  return", "  console.log(toSend)\n  return"
            ),
            [],
        ),
    ],
)
def test_a_reassigned_budget_cut_handed_back_as_messages_is_a_window(
    tmp_path: Path, caller: str, expected: list[tuple[str, int, str]]
) -> None:
    (tmp_path / "fit.ts").write_text(_HELPER)
    (tmp_path / "prepare.ts").write_text(caller)
    found = lint_paths([str(tmp_path / "fit.ts"), str(tmp_path / "prepare.ts")], LintConfig())
    got = [(Path(f.path).name, f.line, f.code) for f in found.findings]
    assert [g for g in got if g[0] == "prepare.ts"] == expected


_CONVERTED = (
    "import { trimToFit } from './fit'\n"
    "export function prepare(messages, system) {\n"
    "  const kept = toApiMessages(trimToFit(messages, 500))\n"
    "  return [{ role: 'system', content: system }, ...kept]\n"
    "}\n"
)


@pytest.mark.parametrize(
    ("caller", "expected"),
    [
        (_CONVERTED, [("prepare.ts", 3, "PL303")]),
        (_CONVERTED.replace("toApiMessages(", "summarizeTurns("), []),
    ],
)
def test_a_budget_cut_handed_to_a_converter_is_a_window(
    tmp_path: Path, caller: str, expected: list[tuple[str, int, str]]
) -> None:
    (tmp_path / "fit.ts").write_text(_HELPER)
    (tmp_path / "prepare.ts").write_text(caller)
    found = lint_paths([str(tmp_path / "fit.ts"), str(tmp_path / "prepare.ts")], LintConfig())
    got = [(Path(f.path).name, f.line, f.code) for f in found.findings]
    assert [g for g in got if g[0] == "prepare.ts" and g[2] == "PL303"] == expected
