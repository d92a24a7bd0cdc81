"""SQL text that reads a chat's newest messages to a cap: one decision for both front ends.

`SELECT role, content FROM messages WHERE chat = ? ORDER BY id DESC LIMIT ?` loads the newest
rows of a conversation; once the chat is longer than the cap, the first message sent moves on
every exchange (a window, PL303). A write (`DELETE`, `UPDATE`), a page (`OFFSET`) or a cap of
one or two (the latest reply to read) is no window. Which tables hold messages stays each front
end's word list.
"""

from __future__ import annotations

import re

# The table named, then a newest-first order, then a cap (a number or a placeholder).
_SQL = re.compile(
    r"\bfrom\s+[\"`\[]?(?P<table>\w+)[\"`\]]?"
    r".*?\border\s+by\s+[\w.\"`]+\s+desc\b.*?\blimit\s+(?P<cap>[^\s,;)]+)",
    re.IGNORECASE | re.DOTALL,
)
_OFFSET = re.compile(r"\boffset\b", re.IGNORECASE)
# A read (not a DELETE or an UPDATE), the source's own quote allowed before it.
_READ = re.compile(r"[\s\"'`]*(?:select|with)\b", re.IGNORECASE)


def newest_capped(text: str) -> tuple[str, int] | None:
    """The table a query reads newest first to a cap of more than two rows, and the index in
    `text` where its `LIMIT` is written; None for any other text."""
    m = _SQL.search(text) if _READ.match(text) else None
    if m is None or _OFFSET.search(text):
        return None
    cap = m.group("cap").strip("'\"`")
    if cap.isdigit() and int(cap) <= 2:
        return None
    return m.group("table"), text.lower().rfind("limit", m.start(), m.start("cap"))
