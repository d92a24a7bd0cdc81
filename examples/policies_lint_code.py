"""Lint prompt-building code in memory, then apply the safe fixes and lint it again.

Run: .venv/bin/python examples/policies_lint_code.py
"""

from __future__ import annotations

from prefixlock.policies import lint_source
from prefixlock.policies.fixes import apply_edits

SOURCE = """import datetime
import json

SKILLS = {"search", "edit", "review"}


def build_system(config: dict) -> str:
    now = datetime.datetime.now()
    system = (
        "You are a coding assistant.\\n"
        + "Skills: " + ", ".join(SKILLS) + "\\n"
        + "Enabled: " + json.dumps({name: config.get(name, True) for name in SKILLS}) + "\\n"
        + f"Current time: {now}\\n"
    )
    return system


def next_user_turn(question: str) -> dict:
    # A date in the newest user turn is fine: nothing after it is cached yet.
    return {"role": "user", "content": f"(today is {datetime.date.today()}) {question}"}
"""

findings = lint_source(SOURCE, "agent.py")
for f in findings:
    kind = "" if f.fix is None else ("safe" if f.fix.safe else "unsafe")
    fix = "" if f.fix is None else f"  [fix: {f.fix.description}, {kind}]"
    print(f"{f.path}:{f.line}:{f.col} {f.code} {f.severity}: {f.message}{fix}")
assert {f.code for f in findings} == {"PL101", "PL201", "PL202"}

edits = [e for f in findings if f.fix is not None and f.fix.safe for e in f.fix.edits]
fixed, applied = apply_edits(SOURCE, edits)
print(f"\napplied {applied} safe edits; remaining:")
for f in lint_source(fixed, "agent.py"):
    print(f"  {f.code} line {f.line}: {f.message}")
assert [f.code for f in lint_source(fixed, "agent.py")] == ["PL101"]
