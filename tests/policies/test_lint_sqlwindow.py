"""The one SQL-window decision both front ends call (policies/sqlwindow.py)."""

from __future__ import annotations

import pytest

from prefixlock.policies.sqlwindow import newest_capped

WINDOW = "SELECT role, content FROM messages WHERE chat = ? ORDER BY id DESC LIMIT ?"


def test_a_newest_first_capped_read_names_its_table_and_its_limit() -> None:
    found = newest_capped(WINDOW)
    assert found is not None and found[0] == "messages"
    assert WINDOW[found[1] :].startswith("LIMIT")


@pytest.mark.parametrize("quote", ['"', "`", "\n  "])
def test_the_source_quote_before_the_query_is_allowed(quote: str) -> None:
    assert newest_capped(quote + WINDOW + quote) is not None


@pytest.mark.parametrize(
    "text",
    [
        WINDOW.replace("LIMIT ?", "LIMIT ? OFFSET ?"),  # a page
        WINDOW.replace("LIMIT ?", "LIMIT 1"),  # the latest reply
        WINDOW.replace("DESC", "ASC"),  # oldest first
        "DELETE FROM messages WHERE id IN (SELECT id FROM messages ORDER BY id DESC LIMIT 50)",
        "SELECT role, content FROM messages WHERE chat = ? ORDER BY id DESC",  # no cap
    ],
)
def test_pages_writes_single_rows_and_whole_reads_are_no_window(text: str) -> None:
    assert newest_capped(text) is None
