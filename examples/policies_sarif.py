"""Lint a small project (a prompt template, a subagent file, a request body) and write SARIF 2.1.0
for code scanning, as `prefixlock lint --format sarif` does.

Run: .venv/bin/python examples/policies_sarif.py
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

from prefixlock.policies import LintConfig, lint_paths
from prefixlock.policies.output import sarif

with tempfile.TemporaryDirectory() as tmp:
    root = Path(tmp)
    (root / "prompts").mkdir()
    (root / "prompts" / "system.md.j2").write_text(
        "You are the release assistant.\nThe time is {{ now }}.\n", encoding="utf-8"
    )
    (root / "prompts" / "user_turn.md.j2").write_text(
        "Today is {{ today }}.\n{{ question }}\n", encoding="utf-8"
    )  # fine: the newest turn
    (root / "agents").mkdir()
    (root / "agents" / "reviewer.md").write_text(
        "---\nname: reviewer\nmodel: claude-opus-4-7\n---\nReview diffs.\n", encoding="utf-8"
    )
    config = LintConfig(model="claude-sonnet-4-6", root=str(root))
    result = lint_paths([str(root)], config)
    for f in result.findings:
        print(f"{Path(f.path).relative_to(root)}:{f.line}:{f.col} {f.code} {f.message}")
    log = json.loads(sarif(result.findings))
    run = log["runs"][0]
    print(
        f"SARIF {log['version']}: {len(run['results'])} results, "
        f"{len(run['tool']['driver']['rules'])} rules"
    )
    assert sorted(r["ruleId"] for r in run["results"]) == ["PL101", "PL602"]
