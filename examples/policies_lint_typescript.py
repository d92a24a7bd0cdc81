"""Lint a small TypeScript agent project: a date and the git status in its system prompt (the
git status made in another file), and a history cut to a window. Each finding names the line
that makes the value and the line of the prompt it reaches.

Run: .venv/bin/python examples/policies_lint_typescript.py
"""

from __future__ import annotations

import tempfile
from pathlib import Path

from prefixlock.policies import LintConfig, lint_paths

PROMPT_TS = """import { getGitStatus } from "./git";

export const SYSTEM_PROMPT = `You are a coding agent.
Today's date: ${new Date().toISOString().split("T")[0]}
Git status:
${getGitStatus()}`;

export function window(messages: { role: string; content: string }[]) {
  return messages.slice(-20);
}
"""
GIT_TS = """import { execSync } from "node:child_process";

export function getGitStatus(): string {
  return execSync("git status --porcelain").toString().trim();
}
"""

with tempfile.TemporaryDirectory() as tmp:
    root = Path(tmp)
    (root / "src").mkdir()
    (root / "src" / "prompt.ts").write_text(PROMPT_TS, encoding="utf-8")
    (root / "src" / "git.ts").write_text(GIT_TS, encoding="utf-8")
    result = lint_paths([str(root)], LintConfig(), jobs=1)
    for f in result.findings:
        print(f"{Path(f.path).relative_to(root)}:{f.line}:{f.col} {f.code}: {f.message}")
    assert [(Path(f.path).name, f.line, f.code) for f in result.findings] == [
        ("prompt.ts", 4, "PL102"),
        ("prompt.ts", 6, "PL104"),
        ("prompt.ts", 9, "PL303"),
    ]
