"""A `{context}` slot ahead of a `{history}` slot in a system prompt template
(`policies/jscheck/sinks.py`, `_retrieved_slots`, PL304): the RAG form, whose context is filled
per request ahead of the conversation the template carries, in a string or in an array of lines
joined into one; reported on the slot's line. Its near misses: a context after the history, a
template with no history slot, a settled context (`profileContext`), an array never joined."""

from __future__ import annotations

from tests.helpers.lintfind import line_codes

_JOINED = (
    "const BASE = 'You answer questions about the clinic.';\n"
    "\n"
    "export const SYSTEM_PROMPT_WITH_CONTEXT = [\n"
    "  BASE,\n"
    "  'Context:',\n"
    "  '{context}',\n"
    "  'Dialogue so far:',\n"
    "  '{history}',\n"
    "].join('\\n');\n"
)


def _pl304(src: str) -> list[int]:
    return [line for line, code in line_codes(src, "prompts.ts") if code == "PL304"]


def test_a_context_slot_ahead_of_the_history_slot_of_joined_lines() -> None:
    assert _pl304(_JOINED) == [6]


def test_a_record_context_slot_ahead_of_the_history_is_reported_too() -> None:
    src = _JOINED.replace("'{context}'", "'{customerContext}'")
    assert _pl304(src) == [6]


def test_a_context_slot_ahead_of_the_history_in_one_string() -> None:
    src = "export const SYSTEM_PROMPT = `Use this:\n{context}\nChat so far:\n{chat_history}`;\n"
    assert _pl304(src) == [1]


def test_a_context_slot_after_the_history_is_not_this_form() -> None:
    src = "export const SYSTEM_PROMPT = ['{history}', 'Context:', '{context}'].join('\\n');\n"
    assert _pl304(src) == []


def test_a_context_slot_with_no_history_slot_is_quiet() -> None:
    src = _JOINED.replace("'{history}'", "'Answer briefly.'")
    assert _pl304(src) == []


def test_a_settled_context_ahead_of_the_history_is_quiet() -> None:
    src = _JOINED.replace("'{context}'", "'{profileContext}'")
    assert _pl304(src) == []


def test_an_array_never_joined_is_no_template() -> None:
    src = _JOINED.replace("].join('\\n');", "];")
    assert _pl304(src) == []
