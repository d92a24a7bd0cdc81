"""A smart-home entity's current state read by its key (`entity["state"]`,
`device.get("state", "unknown")`), as a Home Assistant agent lists its devices for the prompt.

The state of a light, switch or sensor changes between requests (on, off, 21.5): written into a
system prompt rebuilt for each message, it changes the prefix's bytes ahead of the history, as
the device states a Jinja template renders do (`taint.rendered`). Only a value named for an
entity, device or sensor counts (`meaning.names_device`, which TypeScript's `entity.state`
reads too): a graph's or a form's `state` is no device's. Pure: a syntax node in, a
description or None out.
"""

# pure: imports no I/O (tests/test_layout.py checks it)

from __future__ import annotations

import ast

from ..meaning import names_device
from .syntax import const_str


def _thing(node: ast.expr) -> str | None:
    if isinstance(node, ast.Name) and names_device(node.id):
        return node.id
    return None


def device_state(node: ast.expr) -> str | None:
    """How the node reads a device's current state (`entity['state']`,
    `device.get('state')`), or None."""
    if isinstance(node, ast.Subscript) and const_str(node.slice) == "state":
        name = _thing(node.value)
        return f"{name}['state']" if name else None
    if (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == "get"
        and node.args
        and const_str(node.args[0]) == "state"
    ):
        name = _thing(node.func.value)
        return f"{name}.get('state')" if name else None
    return None
