"""PL101-PL106 in Python: a system prompt kept as a module-level template whose slots are filled
elsewhere (`RESEARCH_SYSTEM_PROMPT = "... Today's date is {date}. ..."`, rendered by another
module with `.format(date=today())`). The slot is named for a volatile value, so the prompt's
text changes with it wherever it is filled; the finding stands at the slot, as for a template
file. PL304 for a `{context}` field ahead of a `{history}` field in such a template (the
RAG form: the context is filled per request before the history the template carries). Pure:
a syntax tree in, findings out.
"""

# pure: imports no I/O (tests/test_layout.py checks it)

from __future__ import annotations

import ast
import re

from ..meaning import HISTORY_WORDS, SIDE_WORDS, VOLATILE_CODES, kind_of_name, words
from .context import Context
from .syntax import walk_cached

_FIELD = re.compile(r"(?<!\{)\{([A-Za-z_]\w*)(?:![rsa])?(?::[^{}]*)?\}(?!\})")
_JINJA = re.compile(r"\{\{\s*([A-Za-z_]\w*)\s*(?:\|[^}]*)?\}\}")
_CODE = VOLATILE_CODES
# A context that is the app's or the user's standing setting, not what a request fills
_SETTLED = frozenset({"profile", "persona", "system", "settings", "instructions"})


def _system_template(name: str) -> bool:
    """`RESEARCH_SYSTEM_PROMPT`, `_lead_system_prompt`: a system prompt's text, by its name
    (not `system_prompt_budget` or a user prompt, nor a side task's, `COMPRESS_SYSTEM_PROMPT`:
    sent once per piece of work, with no loop of requests sharing it)."""
    ws = set(words(name))
    if ws & SIDE_WORDS:
        return False
    return (
        "system" in ws
        and bool(ws & {"prompt", "message", "instructions"})
        and not ws
        & {
            "user",
            "budget",
            "tokens",
            "len",
            "length",
        }
    )


def check_prompt_templates(tree: ast.Module, ctx: Context) -> None:
    formatted_here = {
        n.value.id
        for n in walk_cached(tree)
        if isinstance(n, ast.Attribute)
        and n.attr in ("format", "format_map")
        and isinstance(n.value, ast.Name)
    }
    for stmt in tree.body:
        if not isinstance(stmt, (ast.Assign, ast.AnnAssign)) or stmt.value is None:
            continue
        targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
        names = {t.id for t in targets if isinstance(t, ast.Name) and _system_template(t.id)}
        if not names or names & formatted_here:
            continue  # filled in this module: its values are followed where they are given
        for node in walk_cached(stmt.value):
            if not (isinstance(node, ast.Constant) and isinstance(node.value, str)):
                continue
            if isinstance(stmt.value, ast.JoinedStr) or _in_fstring(stmt.value, node):
                continue  # an f-string's fields are filled here, and read as values
            for line, slot, kind in _slots(node.value, node.lineno):
                ctx.flag(
                    ast.Constant(value=None, lineno=line, col_offset=0),
                    _CODE[kind],
                    f"placeholder {slot} ({kind}) in the system prompt template "
                    f"(line {stmt.lineno}) is filled per request wherever it is rendered: the "
                    "prefix changes with it; fill it in the newest user message instead",
                )
            for line, slot, history in _context_ahead(node.value, node.lineno):
                ctx.flag(
                    ast.Constant(value=None, lineno=line, col_offset=0),
                    "PL304",
                    f"placeholder {slot} in the system prompt template (line {stmt.lineno}) "
                    f"is filled for each request, ahead of {history}, the conversation the "
                    "same template carries: the text before the history changes whenever it "
                    "does and the whole history is sent again uncached; put it in the newest "
                    "user message instead",
                )


def _slots(text: str, line0: int) -> list[tuple[int, str, str]]:
    """(line, slot, kind) of each slot named for a volatile value: `str.format` fields
    (`{date}`, `{now:%H:%M}`), or, in a text with none, Jinja's `{{ date }}` (beside format
    fields `{{` is an escaped brace: `{{"date": "YYYY-MM-DD"}}` is literal JSON)."""
    fields = list(_FIELD.finditer(text))
    found = fields if fields else list(_JINJA.finditer(text))
    out = []
    for m in found:
        kind = kind_of_name(m.group(1))
        if kind in _CODE:
            out.append((line0 + text.count("\n", 0, m.start()), m.group(0), kind))
    return out


def _context_ahead(text: str, line0: int) -> list[tuple[int, str, str]]:
    """(line, slot, history slot) of each `{context}` field (`{rag_context}`,
    `{patient_context}`; not a settled `{profile_context}`) ahead of the first field for the
    conversation (`{history}`, `{chat_history}`) in one template: the RAG form, its context
    filled per request before the history it carries."""
    fields = list(_FIELD.finditer(text)) or list(_JINJA.finditer(text))
    named = [(m, words(m.group(1))) for m in fields]
    history = next((m for m, ws in named if ws[-1:] and ws[-1] in HISTORY_WORDS), None)
    if history is None:
        return []
    return [
        (line0 + text.count("\n", 0, m.start()), m.group(0), history.group(0))
        for m, ws in named
        if m.start() < history.start() and ws[-1:] == ["context"] and not set(ws) & _SETTLED
    ]


def _in_fstring(root: ast.expr, node: ast.Constant) -> bool:
    return any(
        isinstance(j, ast.JoinedStr) and any(v is node for v in j.values) for j in walk_cached(root)
    )
