"""PL304 in Python: what a memory or a retrieval read for this turn written into the system
prompt. The read is a call named for it (`read_memory(user_id)`, `self.memory.get_memory_context()`,
`memory_manager.retrieve_memory_info()`, `retrieve_raw(q)`, `store_memory.search(...)`), or a
field of the state named for memories (`state["recall_memories"]`); what is made from it, to a
fixed point over the function's locals, carries it. The system prompt is one a request sends
ahead of a history (`[SystemMessage(sys)] + msgs`, `[{"role": "system", "content": s},
*history]`), or the one a function named for building it returns (`def
_build_system_prompt(...)`, `def build_instructions(...)`) where another function of the module
calls that builder (rebuilt per turn, not once in `__init__`). The memory changes as the
conversation goes on (the agent saves facts, a retrieval follows the newest question), so the
prefix does, and the history after it is sent again uncached.

A memory written (`memory.save(...)`, `add_memory(...)`) or a memory class constructed
(`ConversationBufferMemory(...)`) is no read. Pure: a syntax tree in, findings out.
"""

# pure: imports no I/O (tests/test_layout.py checks it)

from __future__ import annotations

import ast

from ..findings import Finding
from ..meaning import identity_name, words
from .context import Context
from .retrieved import _retrieved_name
from .side import _class_role
from .syntax import const_str, last_name, walk_cached

Fn = ast.FunctionDef | ast.AsyncFunctionDef
# Words of a call that reads a memory or retrieves for this turn.
_RECALL = frozenset(
    {"memory", "memories", "recall", "recalled", "retrieve", "retrieved", "retrieval", "rag"}
)
_MEMORY = frozenset({"memory", "memories"})
# Verbs of a call that writes or manages a memory rather than reads it.
_WRITES = frozenset(
    {"add", "save", "store", "update", "write", "append", "delete", "clear", "remove", "set"}
    | {"put", "insert", "persist", "record", "extend", "reset", "extract", "consolidate"}
    | {"init", "create", "build", "configure", "enabled", "enable", "count", "len", "size"}
)
# A function named for building the system prompt (`_build_system_prompt`, `make_instructions`).
_BUILDS = frozenset({"build", "make", "compose", "create", "get", "render", "prepare", "format"})
# Setup functions: a builder called only from them runs once, not per turn.
_SETUP = frozenset({"__init__", "setup", "set_up", "configure", "main"})
_SYSTEM_KWARGS = frozenset({"system", "system_prompt", "instructions"})
# A local named for what a user set once, whatever call read it (`persona_memory`).
_KEPT = frozenset({"profile", "persona", "settings"})


def _recall_call(node: ast.AST) -> bool:
    """`read_memory(uid)`, `self.memory.get_memory_context()`, `rag.search(q)`: a call named
    for reading a memory or retrieving, by its own name or the object it is called on."""
    if not isinstance(node, ast.Call):
        return False
    name = last_name(node.func)
    if not name or name[0].isupper():  # a class constructed: `ConversationBufferMemory()`
        return False
    own = set(words(name))
    if own & _WRITES:
        return False
    owner = last_name(node.func.value) if isinstance(node.func, ast.Attribute) else ""
    named = own | set(words(owner))
    if named & _MEMORY:
        return True  # a memory the agent writes as the conversation goes on
    # A retrieval differs per turn by what it is handed: one handed only ids and constants
    # (`retrieve_segments(channel.id, conversation_id, 2000)`) looks up the same thing.
    return bool(named & _RECALL) and any(_asks(a) for a in _arguments(node))


def _arguments(node: ast.Call) -> list[ast.expr]:
    return [*node.args, *(k.value for k in node.keywords)]


def _asks(arg: ast.expr) -> bool:
    """An argument that may carry this turn's text: not a constant nor an id."""
    if isinstance(arg, ast.Constant):
        return False
    return not identity_name(last_name(arg)) if last_name(arg) else True


def _memory_field(node: ast.AST) -> bool:
    """`state["core_memories"]`: a field named for memories, read from a mapping."""
    if not isinstance(node, ast.Subscript):
        return False
    key = const_str(node.slice)
    return key is not None and _retrieved_name(key) and bool(set(words(key)) & _RECALL)


def _source(value: ast.AST) -> ast.AST | None:
    """The first memory read inside a value, if any (not inside a nested function)."""
    for n in walk_cached(value):
        if isinstance(n, ast.Lambda):
            continue
        if _recall_call(n) or _memory_field(n):
            return n
    return None


def _body(fn: Fn) -> list[ast.AST]:
    out: list[ast.AST] = []
    stack: list[ast.AST] = list(fn.body)
    while stack:
        n = stack.pop()
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            continue
        out.append(n)
        stack.extend(ast.iter_child_nodes(n))
    return out


def _carriers(nodes: list[ast.AST]) -> dict[str, list[ast.AST]]:
    """Each local made from a memory read, with those reads: bound from a value holding one,
    or from a local that carries one, or grown by one (`parts.append(f"{memory}")`)."""
    out: dict[str, list[ast.AST]] = {}
    changed = True
    while changed:
        changed = False
        for n in nodes:
            target: ast.expr | None = None
            value: ast.expr | None = None
            if isinstance(n, ast.Assign) and len(n.targets) == 1:
                target, value = n.targets[0], n.value
            elif isinstance(n, (ast.AugAssign, ast.AnnAssign)):
                target, value = n.target, n.value
            elif (
                isinstance(n, ast.Call)
                and isinstance(n.func, ast.Attribute)
                and n.func.attr in ("append", "extend", "insert")
                and n.args
            ):
                target, value = n.func.value, n.args[-1]
            if value is None or target is None:
                continue
            src = _read_in(value, out, getattr(n, "lineno", 0))
            if src is None:
                continue
            names = (
                [t.id for t in walk_cached(target) if isinstance(t, ast.Name)]
                if isinstance(target, (ast.Name, ast.Tuple, ast.List))
                else []
            )
            direct = _source(value) is not None
            for name in names:
                if direct and set(words(name)) & _KEPT:
                    continue  # `persona_memory`: a settled persona, whatever recalled it
                if all(s is not src for s in out.setdefault(name, [])):
                    out[name].append(src)
                    changed = True
    return out


def _read_in(value: ast.AST, carriers: dict[str, list[ast.AST]], line: int) -> ast.AST | None:
    """The memory read a value holds or carries through a local: of a local's reads, the
    last one written before `line`."""
    src = _source(value)
    if src is not None:
        return src
    for n in walk_cached(value):
        if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load) and n.id in carriers:
            before = [s for s in carriers[n.id] if getattr(s, "lineno", 0) <= line]
            if before:
                return max(before, key=lambda s: getattr(s, "lineno", 0))
    return None


def _system_content(node: ast.expr) -> ast.expr | None:
    """The content of `{"role": "system", "content": c}` or `SystemMessage(c)`."""
    if isinstance(node, ast.Dict):
        fields = {const_str(k): v for k, v in zip(node.keys, node.values, strict=True) if k}
        role = fields.get("role")
        return fields.get("content") if role is not None and const_str(role) == "system" else None
    if isinstance(node, ast.Call) and _class_role(node) == "system":
        kw = {k.arg: k.value for k in node.keywords if k.arg}
        return kw.get("content") or (node.args[0] if node.args else None)
    return None


def _ahead_of_history(nodes: list[ast.AST]) -> list[ast.expr]:
    """System prompts a list puts ahead of a history: `[system, *history]` or `[system] +
    history` (the history not written out)."""
    out: list[ast.expr] = []
    for n in nodes:
        if (
            isinstance(n, ast.List)
            and n.elts
            and any(isinstance(e, ast.Starred) for e in n.elts[1:])
        ):
            head = _system_content(n.elts[0])
            if head is not None:
                out.append(head)
        elif (
            isinstance(n, ast.BinOp)
            and isinstance(n.op, ast.Add)
            and isinstance(n.left, ast.List)
            and len(n.left.elts) == 1
            and not isinstance(n.right, (ast.List, ast.Tuple, ast.Constant))
        ):
            head = _system_content(n.left.elts[0])
            if head is not None:
                out.append(head)
        elif isinstance(n, ast.Call):
            kws = {k.arg: k.value for k in n.keywords if k.arg}
            history = kws.get("messages", kws.get("input"))
            if history is not None and not isinstance(history, (ast.List, ast.Tuple)):
                out += [v for k, v in kws.items() if k in _SYSTEM_KWARGS]
    return out


def _builder(fn: Fn) -> bool:
    """A function named for building the system prompt or the instructions."""
    ws = set(words(fn.name))
    return bool(ws & _BUILDS) and (
        {"system", "prompt"} <= ws or "instructions" in ws or "persona" in ws
    )


def _called_per_turn(name: str, tree: ast.Module) -> bool:
    """`name` is called in a function of the module other than a setup function."""
    for fn in walk_cached(tree):
        if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)) and fn.name not in _SETUP:
            for n in _body(fn):
                if isinstance(n, ast.Call) and last_name(n.func) == name and fn.name != name:
                    return True
    return False


def check_recalled_in_system(tree: ast.Module, ctx: Context, found: list[Finding]) -> list[Finding]:
    """The findings to add to `found`: one a function, none in a function where `found`
    already holds a PL304."""
    out: list[Finding] = []
    for fn in walk_cached(tree):
        if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        end = fn.end_lineno or fn.lineno
        if any(f.code == "PL304" and fn.lineno <= f.line <= end for f in found + out):
            continue
        nodes = _body(fn)
        carriers = _carriers(nodes)
        prompts = _ahead_of_history(nodes)
        if _builder(fn) and _called_per_turn(fn.name, tree):
            prompts += [n.value for n in nodes if isinstance(n, ast.Return) and n.value]
        prompts.sort(key=lambda p: (p.lineno, p.col_offset))
        src = next((s for p in prompts if (s := _read_in(p, carriers, p.lineno)) is not None), None)
        if src is None:
            continue
        line = getattr(src, "lineno", fn.lineno)
        out.append(
            Finding(
                ctx.path,
                line,
                getattr(src, "col_offset", 0) + 1,
                "PL304",
                f"what `{ast.unparse(src)[:60]}` read from a memory or a retrieval for this turn "
                "is written into the system prompt ahead of the conversation: each time it "
                "changes, the history after it is sent again uncached; put it in the newest "
                "user message",
                source_line=ctx.line(line),
            )
        )
    return out
