"""PL304 in Python: session state that a tool rewrites, rendered into an agent framework's
instruction. Google ADK fills each `{key}` of an agent's `instruction` from the session state on
every model call; where a tool of the same module writes that key (`tool_context.state
["purchased_courses"] = courses`), the instruction ahead of the conversation changes whenever the
tool runs, and the whole history after it is sent again uncached.

Read in one module: an ADK import, an `instruction=` text with `{key}` slots, and a tool (a
function handed a `tool_context` or a `ToolContext`) that assigns `tool_context.state["key"]`
for one of them, not to a constant. A key set once when the session is created
(`initial_state = {"user_name": ...}`), a callback's state (a clock the value rules follow), a
slot that no tool writes, and an instruction of another framework are left alone. Pure: a
syntax tree in, findings out.
"""

# pure: imports no I/O (tests/test_layout.py checks it)

from __future__ import annotations

import ast
import re

from ..findings import Finding
from .context import Context
from .syntax import const_str, walk_cached

# `{key}` and ADK's optional `{key?}`; not `{{literal}}` nor an artifact's `{artifact.name}`.
_SLOT = re.compile(r"(?<!\{)\{([A-Za-z_][A-Za-z0-9_]*)\??\}(?!\})")
_WHY = (
    "the session state `{key}` is rendered into the agent's instruction on every model call, "
    "and `{tool}()` rewrites it mid-conversation (line {line}): the instruction ahead of the "
    "history changes whenever it runs and the whole history is sent again uncached; give the "
    "model the state in a tool result or the newest user message"
)


def _imports_adk(tree: ast.Module) -> bool:
    for n in walk_cached(tree):
        if isinstance(n, ast.ImportFrom) and (n.module or "").startswith("google.adk"):
            return True
        if isinstance(n, ast.Import) and any(a.name.startswith("google.adk") for a in n.names):
            return True
    return False


def _tool_context(arg: ast.arg) -> bool:
    """`tool_context` or `ctx: ToolContext`: the context ADK hands a tool the model calls
    mid-conversation. A callback's context (`callback_context`) writes what it computes each
    turn, a clock the value rules already follow."""
    annotation = arg.annotation
    named = annotation.id if isinstance(annotation, ast.Name) else ""
    if isinstance(annotation, ast.Attribute):
        named = annotation.attr
    return named == "ToolContext" or arg.arg == "tool_context"


def _written_keys(tree: ast.Module) -> dict[str, tuple[str, int]]:
    """Keys a tool assigns on its context's state (`tool_context.state["k"] = v`, not a
    constant), each with the tool and the line of its first write."""
    out: dict[str, tuple[str, int]] = {}
    for fn in walk_cached(tree):
        if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        params = {a.arg for a in fn.args.args + fn.args.kwonlyargs if _tool_context(a)}
        for n in walk_cached(fn):
            if not isinstance(n, (ast.Assign, ast.AugAssign)) or isinstance(n.value, ast.Constant):
                continue  # a fixed value writes the same text each time
            targets = n.targets if isinstance(n, ast.Assign) else [n.target]
            for t in targets:
                if (
                    isinstance(t, ast.Subscript)
                    and isinstance(t.value, ast.Attribute)
                    and t.value.attr == "state"
                    and isinstance(t.value.value, ast.Name)
                    and t.value.value.id in params
                    and (key := const_str(t.slice)) is not None
                ):
                    out.setdefault(key, (fn.name, n.lineno))
    return out


def check_tool_state_in_instruction(tree: ast.Module, ctx: Context) -> None:
    if not _imports_adk(tree):
        return
    written = _written_keys(tree)
    if not written:
        return
    for call in walk_cached(tree):
        if not isinstance(call, ast.Call):
            continue
        for kw in call.keywords:
            text = const_str(kw.value) if kw.arg == "instruction" else None
            if text is None:
                continue
            for m in _SLOT.finditer(text):
                key = m.group(1)
                if key not in written:
                    continue
                line = kw.value.lineno + text[: m.start()].count("\n")
                tool, at = written[key]
                ctx.findings.add(
                    Finding(
                        ctx.path,
                        line,
                        1,
                        "PL304",
                        _WHY.format(key=key, tool=tool, line=at),
                        source_line=ctx.line(line),
                    )
                )
                break  # one finding an instruction: the first slot a tool rewrites
