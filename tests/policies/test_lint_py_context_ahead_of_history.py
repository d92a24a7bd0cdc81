"""A `{context}` field ahead of a `{history}` field in a module-level system prompt template
(`policies/pycheck/templates.py`, PL304): the RAG form, its context filled per request ahead
of the conversation the template carries; reported on the field's line. Its near misses: no
history field, a context after the history, a settled context, a template filled in its own
module (whose values the data-flow rules follow)."""

from __future__ import annotations

from tests.helpers.lintfind import line_codes

_TEMPLATE = (
    'SUPPORT_SYSTEM_PROMPT = """You answer questions about the shop.\n'
    "Context:\n"
    "{context}\n"
    "Chat so far:\n"
    "{chat_history}\n"
    '"""\n'
)


def _pl304(src: str) -> list[int]:
    return [line for line, code in line_codes(src, "prompts.py") if code == "PL304"]


def test_a_context_field_ahead_of_the_history_field_is_reported() -> None:
    assert _pl304(_TEMPLATE) == [3]


def test_a_record_context_ahead_of_the_history_is_reported_too() -> None:
    assert _pl304(_TEMPLATE.replace("{context}", "{customer_context}")) == [3]


def test_no_history_field_is_quiet() -> None:
    assert _pl304(_TEMPLATE.replace("{chat_history}", "Be brief.")) == []


def test_a_context_after_the_history_is_not_this_form() -> None:
    src = 'SYSTEM_PROMPT = "History:\\n{history}\\nContext:\\n{context}"\n'
    assert _pl304(src) == []


def test_a_settled_context_is_quiet() -> None:
    assert _pl304(_TEMPLATE.replace("{context}", "{profile_context}")) == []


def test_a_template_filled_in_its_own_module_is_left_to_the_flow_rules() -> None:
    src = _TEMPLATE + "print(SUPPORT_SYSTEM_PROMPT.format(context='', chat_history=''))\n"
    assert _pl304(src) == []
