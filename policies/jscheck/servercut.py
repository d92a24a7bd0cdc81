"""A history window asked of the server by a request parameter: `context_management` with a
compaction or a clearing edit (OpenAI Responses `[{ type: "compaction", compact_threshold }]`,
Anthropic `{ edits: [{ type: "clear_tool_uses_20250919" }] }`). The server replaces or clears
older turns of the conversation once it passes the threshold, so the prefix the next request
reads is no longer the one cached (PL303). Pure: a tree in, findings out.
"""

# pure: imports no I/O (tests/test_layout.py checks it)

from __future__ import annotations

from tree_sitter import Node

from ..findings import Finding
from ..servercut import REQUEST_KEYS, server_cut, server_cut_message
from .syntax import Source, key_name, string_value, walk


def _edit_types(src: Source, value: Node) -> list[str]:
    """The `type` strings of the edits the parameter asks for, wherever they are nested."""
    out = []
    for n in walk(value):
        if n.type == "pair" and key_name(src, n.child_by_field_name("key")) == "type":
            text = string_value(src, n.child_by_field_name("value"))
            if text is not None:
                out.append(text)
    return out


def check_server_cut(src: Source) -> list[Finding]:
    out: list[Finding] = []
    if b"context_management" not in src.data:
        return out  # the parameter is not written in the file: skip the walk
    for n in walk(src.root):
        if n.type != "pair" or key_name(src, n.child_by_field_name("key")) != "context_management":
            continue
        obj = n.parent
        keys = {
            key_name(src, p.child_by_field_name("key")) if p.type == "pair" else src.text(p)
            for p in (obj.named_children if obj is not None else [])
        }
        if not keys & REQUEST_KEYS:
            continue  # settings kept for later requests, not a request
        value = n.child_by_field_name("value")
        kind = server_cut(_edit_types(src, value)) if value is not None else None
        if kind is not None:
            out.append(src.finding(n, "PL303", server_cut_message(kind)))
    return out
