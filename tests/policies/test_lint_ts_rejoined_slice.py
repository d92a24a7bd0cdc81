"""A history split at a moving index only to put an item between its two halves
(`[...msgs.slice(0, at), extra, ...msgs.slice(at)]`) leaves no message out: an insertion, not
a window, so the moving cut is not reported there. Each negative has a positive twin that
differs in the one thing the rule reads."""

from __future__ import annotations

from tests.helpers.lintfind import lines_of

_TS = (
    "export function lead(messages: Msg[]): Msg[] {\n"
    "  const startIndex = messages.findIndex((m) => m.role !== 'system');\n"
    "  const extra: Msg = { role: 'user', content: 'go on' };\n"
    "  return [HEAD, extra, ...messages.slice(startIndex)];\n"
    "}\n"
)


def _src(head: str) -> str:
    return _TS.replace("HEAD", head)


def test_both_halves_spread_back_around_an_item_is_not_a_window() -> None:
    assert lines_of(_src("...messages.slice(0, startIndex)"), "PL303", "lead.ts") == []


def test_the_tail_alone_after_a_fixed_head_is_a_window() -> None:
    assert lines_of(_src("system"), "PL303", "lead.ts") == [4]


def test_a_head_cut_at_another_index_is_still_a_window() -> None:
    assert lines_of(_src("...messages.slice(0, 1)"), "PL303", "lead.ts") == [4]


def test_a_head_of_another_list_is_still_a_window() -> None:
    assert lines_of(_src("...others.slice(0, startIndex)"), "PL303", "lead.ts") == [4]
