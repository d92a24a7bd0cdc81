"""Database reads whose parameters pick rows rather than become them.

`conn.execute("SELECT content FROM messages WHERE id > ?", (pointer,))`: the pointer (which may
have come from a record that also carries a clock stamp) chooses which stored rows come back;
the rows hold what was written, not the pointer. The value tracking follows the connection
into the rows and leaves the parameters out.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Mapping

from .syntax import static_text

# A read: `SELECT` or a `WITH` query, the quote or whitespace of the source allowed before it.
_READ = re.compile(r"\s*(?:select|with)\b", re.IGNORECASE)
_RUNS = frozenset({"execute", "fetch", "fetchrow", "fetchval"})


def selects_rows(call: ast.Call, consts: Mapping[str, str]) -> bool:
    """Whether `call` runs a written-out SQL read (`cursor.execute("SELECT ...", params)`)."""
    if not isinstance(call.func, ast.Attribute) or call.func.attr not in _RUNS or not call.args:
        return False
    text = static_text(call.args[0], consts)
    return text is not None and _READ.match(text) is not None
