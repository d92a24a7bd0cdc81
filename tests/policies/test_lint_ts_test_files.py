"""The reach gate (TypeScript), seventeenth pass: a test's or a mock's file by the JavaScript
test runners' conventions (`chat.test.ts`, `chat.spec.tsx`, `__tests__/`, `__mocks__/`,
`pubnub-mock.ts`) builds no user's conversation, so a window or a volatile value in it is not
reported; nor an exported window whose only importer in the project is such a file. Twins: the
same text in a file of the product (`chat.ts`, `testPrep.ts`, `test/chat.ts`), and the export
also imported by a file that sends it, are still reported."""

from __future__ import annotations

from pathlib import Path

import pytest

from prefixlock.policies.jscheck.reach import is_test_file
from tests.helpers.lintfind import line_codes, ts_project_findings

# The exported window and the file that sends it, as the reach gate's own tests have them.
from tests.policies.test_lint_ts_reach_gate import _HISTORY_TS, _SENT_TS

# A window of the history (line 8) and the clock (line 11) sent with every turn.
_CHAT_TS = (
    "import OpenAI from 'openai';\n"
    "\n"
    "const openai = new OpenAI();\n"
    "const history: { role: 'user' | 'assistant'; content: string }[] = [];\n"
    "\n"
    "export async function answer(question: string) {\n"
    "  history.push({ role: 'user', content: question });\n"
    "  const recent = history.slice(-20);\n"
    "  return openai.chat.completions.create({\n"
    "    model: 'gpt-4o',\n"
    "    messages: [{ role: 'system', content: `Now: ${new Date().toISOString()}` }, ...recent],\n"
    "  });\n"
    "}\n"
)


@pytest.mark.parametrize(
    "path",
    [
        "src/chat.test.ts",
        "src/chat.spec.tsx",
        "src/chat.e2e.test.mjs",
        "src/__tests__/chat.ts",
        "src/__mocks__/openai.ts",
        "packages/common/mock/pubnub-mock.ts",
        "src/openai.mock.ts",
    ],
)
def test_a_test_or_mock_file_reports_no_window_or_value(path: str) -> None:
    found = line_codes(_CHAT_TS, path)
    assert (8, "PL303") not in found
    assert (11, "PL101") not in found


@pytest.mark.parametrize(
    "path",
    [
        "src/chat.ts",
        "src/testPrep.ts",  # the product's own feature, named for a test it prepares
        "test/chat.ts",  # a folder's name is not read: the project may sit in one so named
        "src/latest.ts",
        "src/mockups/chat.ts",
        "src/chat.testing.ts",
    ],
)
def test_the_same_text_in_a_file_of_the_product_is_reported(path: str) -> None:
    found = line_codes(_CHAT_TS, path)
    assert (8, "PL303") in found
    assert (11, "PL101") in found


def test_is_test_file_reads_the_runners_conventions() -> None:
    assert is_test_file("a/b/__tests__/x.ts")
    assert is_test_file("x.spec.ts")
    assert is_test_file("server-mock.js")
    assert not is_test_file("tests/x.ts")
    assert not is_test_file("mock-server.ts")  # a mock server run by hand may send requests
    assert not is_test_file("x.ts")


# A test that reads the window at its module level (no `test(...)` callback around it).
_CHECKED_TS = (
    "import assert from 'node:assert';\n"
    "import { recentHistory, recordMessage } from './history';\n"
    "\n"
    "for (let i = 0; i < 30; i++) recordMessage({ role: 'user', content: `m${i}` });\n"
    "const kept = recentHistory();\n"
    "assert.equal(kept.length, 20);\n"
)


def test_an_exported_window_only_a_test_file_imports(tmp_path: Path) -> None:
    found = ts_project_findings(
        tmp_path, {"history.ts": _HISTORY_TS, "history.test.ts": _CHECKED_TS}
    )
    assert ("history.ts", 10, "PL303") not in found


def test_an_exported_window_a_test_and_a_sender_import(tmp_path: Path) -> None:
    found = ts_project_findings(
        tmp_path,
        {"history.ts": _HISTORY_TS, "history.test.ts": _CHECKED_TS, "chat.ts": _SENT_TS},
    )
    assert ("history.ts", 10, "PL303") in found


def test_an_exported_window_read_at_a_products_module_level(tmp_path: Path) -> None:
    # the same reader, named as the product's file: its module-level read is kept
    found = ts_project_findings(tmp_path, {"history.ts": _HISTORY_TS, "checks.ts": _CHECKED_TS})
    assert ("history.ts", 10, "PL303") in found
