"""Safe fixes, property-tested: they silence their rule, keep the code valid, and are
idempotent."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from prefixlock.policies.engine import lint_source
from prefixlock.policies.findings import Edit
from prefixlock.policies.fixes import apply_edits

names = st.lists(st.from_regex(r"[a-z]{1,8}", fullmatch=True), min_size=1, max_size=6, unique=True)


def _module(skills: list[str], keys: list[str], sort_keys: bool, sorted_join: bool) -> str:
    literal = "{" + ", ".join(repr(s) for s in skills) + "}"
    keyset = "{" + ", ".join(repr(k) for k in keys) + "}"
    join = "sorted(SKILLS)" if sorted_join else "SKILLS"
    # The dict's keys come from a set's iteration, an order that moves between runs (a dict
    # handed in, or written out with literal keys, keeps its order and is not flagged).
    dumps = f"json.dumps({{k: len(k) for k in KEYS}}{', sort_keys=True' if sort_keys else ''})"
    return (
        f"import json\n\nSKILLS = {literal}\nKEYS = {keyset}\n\n\n"
        f"def render():\n    return {dumps}\n\n\n"
        f"system_prompt = 'Skills: ' + ', '.join({join}) + '\\n' + render()\n"
    )


def _safe_edits(src: str) -> list[Edit]:
    return [e for f in lint_source(src, "m.py") if f.fix and f.fix.safe for e in f.fix.edits]


@settings(max_examples=60, deadline=None)
@given(names, names, st.booleans(), st.booleans())
def test_safe_fixes_silence_and_are_idempotent(
    skills: list[str], keys: list[str], sort_keys: bool, sorted_join: bool
) -> None:
    src = _module(skills, keys, sort_keys, sorted_join)
    before = {f.code for f in lint_source(src, "m.py")}
    assert ("PL201" in before) == (not sorted_join or not sort_keys)
    assert ("PL202" in before) == (not sort_keys)
    fixed, _ = apply_edits(src, _safe_edits(src))
    compile(fixed, "m.py", "exec")
    assert not {f.code for f in lint_source(fixed, "m.py")} & {"PL201", "PL202"}
    again, n = apply_edits(fixed, _safe_edits(fixed))
    assert again == fixed and n == 0
    # The fixed module renders the same text whatever the set's iteration order was.
    ns: dict[str, object] = {}
    exec(compile(fixed, "m.py", "exec"), ns)
    prompt = ns["system_prompt"]
    assert isinstance(prompt, str)
    assert prompt.startswith("Skills: " + ", ".join(sorted(skills)))
