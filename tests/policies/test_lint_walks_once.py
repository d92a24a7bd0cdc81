"""Checks that gather something of the whole file do it once a file, not once a finding or a
call: a walk of the file per item is quadratic, and a large file runs past the time bound. The
walks of the whole file are counted (no clock) on a file of n items and one of 2n: the count
must not grow with the items."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from types import ModuleType

import pytest
from tree_sitter import Node

from prefixlock.policies.jscheck import chainstart, check_js, instancemode, runonce, structure


def _calls(n: int) -> str:
    """Calls with a number to functions not declared here (windows' cap-parameter check)."""
    return "function main() {\n" + "".join(f"  getItems(x{i}, {i});\n" for i in range(n)) + "}\n"


def _modes(n: int) -> str:
    """Mode picks by a field set only in the constructor (PL302 findings dropped)."""
    runs = "".join(
        f"  run{i}(messages) {{\n    const tools = this.mode === 'x' ? T1 : T2;\n"
        "    return c.create({ messages, tools });\n  }\n"
        for i in range(n)
    )
    return "class A {\n  constructor(m) { this.mode = m; }\n" + runs + "}\n"


def _chains(n: int) -> str:
    """Responses chains whose instructions are built only at the chain's start."""
    return "".join(
        f"async function f{i}(prevId) {{\n  return c.responses.create({{ previous_response_id: "
        f"prevId, instructions: prevId ? undefined : build{i}(), input }});\n}}\n"
        f"function build{i}() {{ return 'x' + Date.now(); }}\n"
        for i in range(n)
    )


def _runs(n: int) -> str:
    """Runs that start their own conversation, each with a date read before its loop."""
    return "".join(
        f"async function run{i}(p, task) {{\n"
        "  const messages = [{ role: 'user', content: task }];\n"
        f"  const d = `${{new Date().toDateString()}}`;\n  for (;;) {{\n"
        "    const system = `x ${d}`;\n    await p.runTurn({ systemPrompt: system, messages });\n"
        "  }\n}\n"
        for i in range(n)
    )


@pytest.mark.parametrize(
    ("module", "text"),
    [(structure, _calls), (instancemode, _modes), (chainstart, _chains), (runonce, _runs)],
)
def test_the_file_is_walked_as_often_whatever_its_items(
    module: ModuleType, text: Callable[[int], str], monkeypatch: pytest.MonkeyPatch
) -> None:
    real = module.walk
    whole: list[Node] = []

    def counted(node: Node) -> Iterator[Node]:
        if node.parent is None:
            whole.append(node)
        return real(node)  # type: ignore[no-any-return]

    monkeypatch.setattr(module, "walk", counted)
    counts = []
    for n in (10, 20):
        whole.clear()
        check_js("a.ts", text(n))
        counts.append(len(whole))
    assert counts[0] > 0
    assert counts[0] == counts[1]
