"""Every name the README shows a user writing is importable from `prefixlock` itself: the
`from prefixlock import ...` lines of its Python blocks, the names in its "Use it from Python"
section and in the prefixlock column of its comparison with the peers (`McpServer.stdio(...)`,
`RunContext[Deps]`, ...). Read from the README, so a name added there is checked at once."""

from __future__ import annotations

import re
from pathlib import Path

import prefixlock

README = Path(__file__).resolve().parents[2] / "README.md"


def _section(text: str, title: str) -> str:
    start = text.index(f"## {title}")
    end = text.find("\n## ", start + 1)
    return text[start : end if end != -1 else len(text)]


def readme_names() -> set[str]:
    text = README.read_text(encoding="utf-8")
    names: set[str] = set()
    for block in re.findall(r"```python\n(.*?)```", text, re.S):
        for group, line in re.findall(r"from prefixlock import (?:\(([^)]*)\)|(.*))", block):
            imported = (group or line).split("#")[0]
            names.update(n.strip() for n in imported.replace("\n", ",").split(",") if n.strip())
    prose = re.sub(r"```.*?```", "", _section(text, "Use it from Python"), flags=re.S)
    spans = re.findall(r"`([^`]+)`", prose)
    table = _section(text, "Against pydantic-ai and the OpenAI Agents SDK")
    for row in table.splitlines():
        cells = row.split("|")
        if len(cells) > 3 and not set(cells[2].strip()) <= {"-"}:
            spans += re.findall(r"`([^`]+)`", cells[2])
    for span in spans:
        # A name a user writes as is: `Quote`, `McpServer.stdio(...)`, `RunContext[Deps]`.
        m = re.match(r"([A-Z][A-Za-z0-9]+)\b", span)
        if m and m.group(1) not in {"Deps", "Model"}:  # placeholders for the user's own types
            names.add(m.group(1))
    return names


def test_every_name_the_readme_shows_is_importable_from_prefixlock() -> None:
    names = readme_names()
    assert {"Agent", "McpServer", "RunContext", "ApprovalRequired", "Quote"} <= names
    missing = sorted(n for n in names if n not in prefixlock.__all__)
    assert not missing, f"shown in README.md, not importable from prefixlock: {missing}"
    for name in names:
        assert getattr(prefixlock, name) is not None
