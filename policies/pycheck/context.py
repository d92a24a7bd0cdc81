"""What the analyses of one file share: the file's facts (path, lines, imports, string constants,
the model and prices), where the walk stands (`Scope`), which pass runs, and the findings. Raises
no rule itself; the analyses add their findings here."""

# pure: imports no I/O (tests/test_layout.py checks it)

from __future__ import annotations

import ast
from collections.abc import Callable
from dataclasses import dataclass, field

from prefixlock.billing.prices import Price, PriceTable

from ..findings import Finding
from ..meaning import words
from .docprompt import returns_system_prompt
from .syntax import Function, const_str, dotted, format_fields, static_text, walk_cached
from .taint import Summary, Taints


def _reruns(dec: ast.expr) -> bool:
    """Whether a decorated prompt function runs again on each request. pydantic-ai runs an
    `@agent.system_prompt` function only while the message history is empty, and keeps its text
    in the first message, unless `dynamic=True` (its `Agent.system_prompt` docstring: "If True,
    the system prompt will be reevaluated even when `messages_history` is provided")."""
    d = dotted(dec.func if isinstance(dec, ast.Call) else dec) or ""
    if d.rsplit(".", 1)[-1] != "system_prompt":
        return True
    return isinstance(dec, ast.Call) and any(
        k.arg == "dynamic" and not (isinstance(k.value, ast.Constant) and not k.value.value)
        for k in dec.keywords
    )


@dataclass
class Scope:
    """Where the walk stands: the module's body, or a function's (or a function's nested in
    it, which shares the enclosing function's `fn`, class and list literals)."""

    fn: Function | None = None  # the module-level function or method walked
    name: str | None = None  # the function whose body is walked: `fn` or one nested in it
    cls: str | None = None
    summary: Summary | None = None  # the walked function's, which its returns update
    list_literals: dict[str, ast.List] = field(default_factory=dict)  # name = [...]
    local_funcs: dict[str, list[Summary]] = field(default_factory=dict)  # nested defs by name
    # The function's local names bound once by `name = value` and read once: the unsafe fix
    # may edit such a value where it is built. Computed when a fix asks.
    single_use: dict[str, ast.expr] | None = None
    dict_literals: set[str] = field(default_factory=set)  # name = {"k": ...}: keys in order
    # name = {"k": v, ...}: the taints of each field, read one by one (`name["k"]`).
    dict_fields: dict[str, dict[str, Taints]] = field(default_factory=dict)
    # name = {"CURRENT_TIME": now, **state}: the taints of the fields named for the moment,
    # which a `**name` splat into a template's render() carries (taint.moment_fields).
    moment_fields: dict[str, Taints] = field(default_factory=dict)

    @property
    def in_function(self) -> bool:
        return self.fn is not None


class Findings:
    """The findings of one file, one per (code, line, column)."""

    def __init__(self) -> None:
        self._by_place: dict[tuple[str, int, int], Finding] = {}

    def add(self, f: Finding) -> None:
        key = (f.code, f.line, f.col)
        old = self._by_place.get(key)
        if old is None:
            self._by_place[key] = f
        elif old.fix is None and f.fix is not None:
            # The same value reached a variable named like a prompt and then the request that
            # can carry the fix: keep the first message, take the fix.
            self._by_place[key] = old.with_(fix=f.fix)

    def in_order(self) -> list[Finding]:
        return sorted(self._by_place.values(), key=lambda f: (f.line, f.col, f.code))


_PROMPT_DECORATORS = frozenset({"system_prompt", "instructions", "instruction", "dynamic_prompt"})
_PROMPT_FUNC_KWARGS = frozenset({"instructions", "system_prompt", "instruction", "system_message"})


@dataclass
class Context:
    """One file under analysis. `checking`: the sinks are checked (the last summary round and
    the reporting pass); `reporting`: taints that reach a sink become findings, with fixes."""

    path: str
    lines: list[str]
    model: str | None
    prices: PriceTable | None
    imports: dict[str, str] = field(default_factory=dict)  # bound name -> dotted origin
    modules: set[str] = field(default_factory=set)  # names bound by `import x` (not objects)
    consts: dict[str, str] = field(default_factory=dict)  # module-level string constants
    # name -> the fields `.format` fills in the string literals bound to it anywhere in the
    # file (`t = "Q: {question}"`, then `t = t.format(...)`); None: bound to anything else too
    format_fields: dict[str, frozenset[str] | None] = field(default_factory=dict)
    dict_consts: set[str] = field(default_factory=set)  # module-level dict literals
    # Functions whose return value is a system prompt by how they are used, whatever their
    # name: passed as `instructions=`/`system_prompt=`/`instruction=` (OpenAI Agents, LangChain,
    # ADK) or decorated `@agent.system_prompt`/`@agent.instructions` (pydantic-ai).
    prompt_funcs: set[str] = field(default_factory=set)
    # Prompt functions the framework runs for the first request only (pydantic-ai's
    # `@agent.system_prompt` without `dynamic=True`): their text is kept in the history.
    first_request_funcs: set[str] = field(default_factory=set)
    # Lines run on a conversation's first turn only (`if self.turn_count == 0:`): what is
    # fetched there is written once and kept for the later requests.
    first_turn_lines: set[int] = field(default_factory=set)
    # Session state an agent framework substitutes into `{key}` of an instruction (ADK):
    # `ctx.state["key"] = value`.
    state_values: dict[str, ast.expr] = field(default_factory=dict)
    # What a name of another module of the project carries (`pkg.helpers.now_str`, called or
    # not -> the taints of its return value or its binding, with lines of that module), where
    # the engine can find the module; None when it cannot.
    foreign: Callable[[str, bool], Taints] | None = None
    # The project runs a long-lived server (a web framework's app or routes, a chat platform's
    # bot, a LiveKit worker): a value read at import is fixed per process, and its processes
    # (workers, restarts, deploys) serve the same conversations on different days.
    serving: Callable[[], bool] = lambda: False  # asked only where it decides
    # whether the project shows a program one user runs per conversation (a page, a window,
    # a terminal prompt); asked only where it decides
    one_user: Callable[[], bool] = lambda: False
    scope: Scope = field(default_factory=Scope)
    checking: bool = False
    reporting: bool = False
    findings: Findings = field(default_factory=Findings)

    @classmethod
    def of(
        cls,
        path: str,
        tree: ast.Module,
        lines: list[str],
        model: str | None,
        prices: PriceTable | None,
    ) -> Context:
        ctx = cls(path, lines, model, prices)
        for node in walk_cached(tree):
            if isinstance(node, ast.If) and _first_turn(node.test):
                for stmt in node.body:
                    ctx.first_turn_lines.update(
                        range(stmt.lineno, (stmt.end_lineno or stmt.lineno) + 1)
                    )
            if isinstance(node, ast.ClassDef) and any(
                (dotted(b) or "").endswith("ContextProvider") for b in node.bases
            ):
                # atomic-agents renders each context provider's `get_info()` into the system
                # prompt on every run.
                ctx.prompt_funcs.update(
                    f.name
                    for f in node.body
                    if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef))
                    and f.name == "get_info"
                )
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                if returns_system_prompt(node):
                    ctx.prompt_funcs.add(node.name)
                for dec in node.decorator_list:
                    d = dotted(dec.func if isinstance(dec, ast.Call) else dec) or ""
                    if d.rsplit(".", 1)[-1] in _PROMPT_DECORATORS and "." in d:
                        if _reruns(dec):
                            ctx.prompt_funcs.add(node.name)
                        else:
                            ctx.first_request_funcs.add(node.name)
            elif isinstance(node, ast.Call):
                for k in node.keywords:
                    if k.arg in _PROMPT_FUNC_KWARGS and isinstance(k.value, ast.Name):
                        ctx.prompt_funcs.add(k.value.id)
                    elif k.arg in _PROMPT_FUNC_KWARGS and isinstance(
                        k.value, (ast.List, ast.Tuple)
                    ):
                        # `instructions=[RULES, add_branch_info]` (pydantic-ai): a function
                        # in the list is run for each model request and its text sent.
                        ctx.prompt_funcs.update(
                            e.id
                            for e in k.value.elts
                            if isinstance(e, ast.Name) and not e.id.isupper()
                        )
            elif isinstance(node, ast.Assign):
                _note_template(ctx.format_fields, node)
                for t in node.targets:
                    if (
                        isinstance(t, ast.Subscript)
                        and (dotted(t.value) or "").rsplit(".", 1)[-1] == "state"
                        and const_str(t.slice) is not None
                    ):
                        ctx.state_values[str(const_str(t.slice))] = node.value
            if isinstance(node, ast.Import):
                for a in node.names:
                    ctx.imports[a.asname or a.name.split(".")[0]] = (
                        a.name if a.asname else a.name.split(".")[0]
                    )
                    ctx.modules.add(a.asname or a.name.split(".")[0])
            elif isinstance(node, ast.ImportFrom) and node.module:
                for a in node.names:
                    ctx.imports[a.asname or a.name] = f"{node.module}.{a.name}"
            elif isinstance(node, ast.ImportFrom) and node.level:
                # `from . import helpers`: a module of the importing file's package.
                for a in node.names:
                    ctx.imports[a.asname or a.name] = a.name
                    ctx.modules.add(a.asname or a.name)
        for stmt in tree.body:
            if (
                isinstance(stmt, ast.Assign)
                and len(stmt.targets) == 1
                and isinstance(stmt.targets[0], ast.Name)
            ):
                name = stmt.targets[0].id
                s = static_text(stmt.value, ctx.consts)
                if s is not None:
                    ctx.consts[name] = s
                elif isinstance(stmt.value, ast.Dict):
                    ctx.dict_consts.add(name)
        return ctx

    def qualname(self, node: ast.AST) -> str | None:
        """The dotted name of `node` with its head resolved through the imports."""
        d = dotted(node)
        if d is None:
            return None
        head, _, rest = d.partition(".")
        base = self.imports.get(head)
        if base is None:
            return d
        return f"{base}.{rest}" if rest else base

    def line(self, n: int) -> str:
        return self.lines[n - 1] if 0 < n <= len(self.lines) else ""

    def price(self, model: ast.expr | None) -> Price | None:
        """The price of the model a request names as a literal, else of the configured one."""
        name = const_str(model) or self.model
        return self.prices.lookup(name) if (self.prices and name) else None

    def flag(self, node: ast.AST, code: str, message: str, severity: str = "") -> None:
        """A finding at `node` (its first character), with the rule's severity unless given."""
        line = getattr(node, "lineno", 1)
        self.findings.add(
            Finding(
                self.path,
                line,
                getattr(node, "col_offset", 0) + 1,
                code,
                message,
                severity=severity,
                source_line=self.line(line),
            )
        )


_FIRST_TURN_COUNTERS = frozenset({"turn", "turns", "step", "steps", "iteration", "round"})


def _first_turn(test: ast.expr) -> bool:
    """`turn_count == 0`, `self.step == 0`: a branch taken on the first turn only."""
    if not (
        isinstance(test, ast.Compare)
        and len(test.ops) == 1
        and isinstance(test.ops[0], ast.Eq)
        and isinstance(test.comparators[0], ast.Constant)
        and test.comparators[0].value == 0
    ):
        return False
    name = dotted(test.left) or ""
    return bool(set(words(name.rsplit(".", 1)[-1])) & _FIRST_TURN_COUNTERS)


def _note_template(fields: dict[str, frozenset[str] | None], node: ast.Assign) -> None:
    """Record what `name = value` binds for `Context.format_fields`: a string literal's
    fields; the name's own `.format(...)` result (`t = t.format(x=1)`) adds none; anything
    else makes the name's template unknown."""
    for target in node.targets:
        if not isinstance(target, ast.Name):
            continue
        name, value = target.id, node.value
        text = const_str(value)
        if text is not None:
            got = format_fields(text)
            before = fields.get(name, frozenset())
            fields[name] = None if got is None or before is None else before | got
        elif not (
            isinstance(value, ast.Call)
            and isinstance(value.func, ast.Attribute)
            and value.func.attr == "format"
            and isinstance(value.func.value, ast.Name)
            and value.func.value.id == name
        ):
            fields[name] = None
