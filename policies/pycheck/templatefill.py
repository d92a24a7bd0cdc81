"""PL101-PL106 in Python: a chat template kept in another module, rendered into messages with
the conversation in one slot and a volatile value in another (`self.prompt.format_messages(
history=history, current_date=current_date, ...)`). A template handed the history is a turn of
a conversation, sent again each turn; its other slots are its fixed text around the history,
which a chat template keeps ahead of it (its system part), so a clock there changes the prefix
every request. Only where the template's text is not in this file (imported, or bound to an
attribute from an import): where it is, the rules that read its layout decide.

The same hand-off one step earlier: a call of another object's method given the conversation
and the moment in slots of their own (`self.chatbot.run(history=h, current_date=d)`) builds
its request from both, so the clock reaches the repeated request there too; not a call that
keeps or logs them (`store.save(...)`), nor one of this class's own methods (`self.f(...)`),
whose bodies the data-flow rules follow. Pure: a syntax tree in, findings out.
"""

# pure: imports no I/O (tests/test_layout.py checks it)

from __future__ import annotations

import ast

from ..meaning import SIDE_WORDS, VOLATILE_CODES, kind_of_name, words
from .context import Context
from .syntax import callee, last_name, walk_cached
from .taint import _MOMENT_READINGS, _MOMENT_WORDS
from .windows import _is_history

# LangChain's chat templates render to a message list by these methods.
_RENDERS = frozenset({"format_messages", "aformat_messages", "format_prompt", "aformat_prompt"})
_TEMPLATE_WORDS = frozenset({"prompt", "template"})
# Words of a slot that names the present moment, not the time a record carries.
_PRESENT = frozenset({"current", "now", "today"})
# Owners that keep what they are given.
_STORES = frozenset({"store", "db", "database", "repo", "repository", "cache", "log", "logger"})
# Verbs of a call that keeps, shows or measures what it is given rather than asking a model.
_KEEPS = frozenset(
    {"save", "store", "log", "add", "insert", "append", "record", "update", "write", "persist"}
    | {"print", "debug", "info", "warning", "emit", "send_message", "count", "len"}
)


def check_filled_templates(tree: ast.Module, ctx: Context) -> None:
    written = _bound_at_module(tree)
    attrs = _attributes_from(tree)
    own = {
        n.name for n in walk_cached(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))
    }
    for fn in walk_cached(tree):
        if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        if set(words(fn.name)) & SIDE_WORDS:
            continue  # a summary or a title: one request per piece of work
        for call in walk_cached(fn):
            if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute)):
                continue
            if call.func.attr not in _RENDERS:
                _handed_with_history(call, own, ctx)
                continue
            source = _template_source(call.func.value, attrs)
            if source is None or source in written:
                continue
            slots = [k for k in call.keywords if k.arg]
            if not any(k.arg and _is_history(ast.Name(id=k.arg)) for k in slots):
                continue  # no conversation in it: a one-shot request's text
            for k in slots:
                kind = _volatile(k)
                if kind is not None:
                    ctx.flag(
                        k.value,
                        VOLATILE_CODES[kind],
                        f"`{k.arg}` ({kind}) fills a slot of the chat template `{source}` "
                        "rendered with the conversation: the template's text around the history "
                        "is its prefix, and the prefix changes with it on every request; put it "
                        "in the newest user message instead",
                    )


def _handed_with_history(call: ast.Call, own: set[str], ctx: Context) -> None:
    """`self.chatbot.run(history=h, current_date=d)`: another object's method given the
    conversation and the moment, each in a slot named for it."""
    name = callee(call)
    owner = call.func.value if isinstance(call.func, ast.Attribute) else None
    if isinstance(owner, ast.Name) and owner.id in ("self", "cls") and name in own:
        return  # this class's own method: its body is here for the data-flow rules
    if set(words(name)) & (_KEEPS | SIDE_WORDS):
        return
    if owner is not None and set(words(last_name(owner))) & _STORES:
        return  # `self._store.new_epoch(..., time=t)`: a record written, no request built
    slots = [k for k in call.keywords if k.arg]
    if not any(k.arg and _is_history(ast.Name(id=k.arg)) for k in slots):
        return
    for k in slots:
        ws = set(words(k.arg or ""))
        if isinstance(k.value, ast.Constant) or not (
            ws
            and ws <= _MOMENT_WORDS | {"date", "today"}
            and ws & _MOMENT_READINGS
            and ws & _PRESENT  # `current_date`, `now`: not a record's `time`
        ):
            continue
        kind = kind_of_name(k.arg or "")
        if kind in VOLATILE_CODES:
            ctx.flag(
                k.value,
                VOLATILE_CODES[kind],
                f"`{k.arg}` ({kind}) is handed to `{name}()` with the conversation, to build "
                "the request that sends it: the moment reaches the prompt ahead of the "
                "history, and the prefix changes with it; put it in the newest user message "
                "instead",
            )


def _volatile(k: ast.keyword) -> str | None:
    """The volatile kind the slot's value means by its name or the slot's (`current_date=d`),
    not a literal written out (`current_date="unknown"`)."""
    if isinstance(k.value, ast.Constant):
        return None
    for name in (k.arg, last_name(k.value)):
        kind = kind_of_name(name) if name else None
        if kind in VOLATILE_CODES:
            return kind
    return None


def _template_source(node: ast.expr, attrs: dict[str, str]) -> str | None:
    """The name the rendered template goes by: `CHATBOT_PROMPT`, or the name an attribute was
    bound to (`self.prompt = CHATBOT_PROMPT`); None for anything not named for a prompt."""
    if isinstance(node, ast.Name):
        name = node.id
    elif isinstance(node, ast.Attribute) and node.attr in attrs:
        name = attrs[node.attr]
    else:
        return None
    return name if set(words(name)) & _TEMPLATE_WORDS else None


def _attributes_from(tree: ast.Module) -> dict[str, str]:
    """`self.prompt = CHATBOT_PROMPT`: attribute -> the plain name bound to it."""
    out: dict[str, str] = {}
    for a in walk_cached(tree):
        if isinstance(a, ast.Assign) and isinstance(a.value, ast.Name):
            for t in a.targets:
                if isinstance(t, ast.Attribute):
                    out[t.attr] = a.value.id
    return out


def _bound_at_module(tree: ast.Module) -> set[str]:
    """Names this module binds itself (its own templates, whose text is here to read)."""
    out: set[str] = set()
    for stmt in tree.body:
        if isinstance(stmt, ast.Assign):
            out |= {t.id for t in stmt.targets if isinstance(t, ast.Name)}
        elif isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name):
            out.add(stmt.target.id)
    return out
