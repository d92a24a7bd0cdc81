"""A `@tool` schema is derived from the code only: the same function gives the same schema, prefix
bytes and fingerprint in every process, whatever the hash seed (set defaults, enums, literals,
optional and nested model arguments), and whatever order the tools are registered in."""

from __future__ import annotations

import json
from pathlib import Path

from tests.helpers.hash_seed import run_with_hash_seed

TOOLS_SOURCE = r'''
import enum
from typing import Literal

import pydantic

from prefixlock import FrozenPrefix, tool


class Mode(enum.Enum):
    FAST = "fast"
    THOROUGH = "thorough"


class Window(pydantic.BaseModel):
    start: int = 0
    end: int | None = None


@tool
def search(
    query: str,
    kinds: frozenset[str] = frozenset({"py", "md", "txt", "toml", "rs", "yaml", "json"}),
    mode: Mode = Mode.FAST,
    order: Literal["name", "date", "size"] = "name",
    limit: int | None = None,
) -> str:
    """Search the workspace.

    Args:
        query: what to look for.
        kinds: file kinds to search.
        mode: how hard to look.
    """
    return query


@tool
async def read(path: str, window: Window | None = None, tags: set[str] = {"a", "b", "c"}) -> str:
    """Read part of a file."""
    return path


def prefixes() -> list[FrozenPrefix]:
    return [
        FrozenPrefix(system=["You help.", "Be brief."], tools=[search, read]),
        FrozenPrefix(system=["You help.", "Be brief."], tools=[read, search]),
    ]
'''

CHILD = r"""
import json, runpy, sys
prefixes = runpy.run_path(sys.argv[1] + "/tools_under_test.py")["prefixes"]
print(json.dumps([[p.fingerprint, [s.data.hex() for s in p.segments]] for p in prefixes()]))
"""


def _run(tmp: Path, seed: str) -> list[list[object]]:
    result: list[list[object]] = run_with_hash_seed(CHILD, seed, str(tmp))
    return result


def test_tool_schemas_are_the_same_in_every_process(tmp_path: Path) -> None:
    (tmp_path / "tools_under_test.py").write_text(TOOLS_SOURCE)
    runs = [_run(tmp_path, seed) for seed in ("0", "1", "777")]
    assert runs[0] == runs[1] == runs[2]
    # Registration order does not matter either (both prefixes of one run are equal).
    (first, second) = runs[0]
    assert first == second
    tools = json.loads(bytes.fromhex(str(first[1][0])))  # type: ignore[index]
    kinds = tools[1]["input_schema"]["properties"]["kinds"]["default"]
    assert kinds == sorted(kinds)  # a set default is written in a fixed order
