"""The explorer script: it calls whatever list/search/read tools a request offers, fills their
arguments from their schemas, and answers from what they returned."""

from __future__ import annotations

from typing import Any

from prefixlock.emulator import EXPLORER, ScriptedModel
from prefixlock.emulator.model import Conversation

SCHEMAS = {
    "list_files": {"type": "object", "properties": {"directory": {"type": "string"}}},
    "search": {
        "type": "object",
        "properties": {"query": {"type": "string"}, "limit": {"type": "integer"}},
        "required": ["query"],
    },
    "cat": {
        "type": "object",
        "properties": {"file_path": {"type": "string"}},
        "required": ["file_path"],
    },
    "deploy": {"type": "object", "properties": {"env": {"type": "string"}}, "required": ["env"]},
}
TOOLS = tuple(SCHEMAS)


def _reply(
    results: tuple[str, ...], tools: tuple[str, ...] = TOOLS
) -> tuple[str, dict[str, Any] | None]:
    conv = Conversation(1, "How is billing computed?", len(results), tools, results, SCHEMAS)
    reply = ScriptedModel(EXPLORER).reply(conv)
    if not reply.tool_calls:
        return reply.text, None
    (call,) = reply.tool_calls
    return call.name, dict(call.input)


def test_explorer_uses_the_offered_tools_in_order() -> None:
    assert _reply(()) == ("list_files", {"directory": "."})
    listing = "billing.py\nREADME.md\nlib/"
    # The term that names a listed file wins; the search gets it, escaped as a pattern.
    assert _reply((listing,)) == ("search", {"query": "billing"})
    assert _reply((listing, "lib/tax.py:3: billing = 1")) == ("cat", {"file_path": "billing.py"})
    text, call = _reply((listing, "lib/tax.py:3: billing = 1", "1\tdef total(): ..."))
    assert call is None
    assert "list_files(directory='.'): billing.py, README.md, lib/" in text
    assert "search(query='billing'): 1 line(s); lib/tax.py:3: billing = 1" in text
    assert "cat(file_path='billing.py'): 1 line(s); 1 def total(): ..." in text


def test_explorer_without_tools_says_so_and_never_calls_unknown_ones() -> None:
    text, call = _reply((), tools=("deploy",))  # a required field it cannot fill: skipped
    assert call is None and "no tools" in text
