"""Python source checks: follow volatile and unordered values into prompt and tool construction.

A small taint analysis over the AST. Sources (clock readings, random ids, git output, directory
listings, runtime statistics, sets, `json.dumps` without sorted keys) mark values; assignments,
f-strings, joins, containers, loops and calls to functions of the same module carry the marks;
sinks are the places that become the cached prefix: `system=`, `instructions=`, `tools=`, system
and developer messages, earlier messages of a literal message list, tool-spec dicts, variables
named like a system prompt, and functions that build one. The newest message of a list and
tool results are not sinks: volatile facts belong there. Pure: text in, findings out.
"""

from __future__ import annotations

import ast
import re
import string
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from typing import TypeAlias

from prefixlock.prices import PriceTable
from prefixlock.tokenizer import count_tokens

from .findings import Edit, Finding, Fix, source_lines
from .rules import ERROR, NOTE, RULES, WARNING

# --- taints -----------------------------------------------------------------------------------

CODE_OF = {
    "time": "PL101",
    "date": "PL102",
    "random": "PL103",
    "vcs": "PL104",
    "filetree": "PL105",
    "runtime": "PL106",
    "unordered": "PL201",
    "json": "PL202",
    "listing": "PL203",
}
VOLATILE = frozenset({"time", "date", "random", "vcs", "filetree", "runtime"})
ORDER = frozenset({"unordered", "listing"})
DYNAMIC = frozenset({"param", "file"})


@dataclass(frozen=True)
class Taint:
    kind: str
    line: int
    col: int
    end_line: int
    end_col: int
    desc: str
    once: bool = False  # computed at import time (module level)
    fix_span: tuple[int, int, int, int] | None = None  # what to wrap in sorted()
    fix_join: bool = False  # the iteration joins strings: sorting is safe
    node_id: int = 0  # id of the json.dumps call for PL202 fixes


Taints = frozenset[Taint]
EMPTY: Taints = frozenset()


def _at(node: ast.AST, kind: str, desc: str, once: bool = False) -> Taint:
    return Taint(
        kind,
        getattr(node, "lineno", 1),
        getattr(node, "col_offset", 0),
        int(getattr(node, "end_lineno", None) or getattr(node, "lineno", None) or 1),
        int(getattr(node, "end_col_offset", None) or 0),
        desc,
        once,
    )


def _drop(ts: Taints, kinds: Iterable[str]) -> Taints:
    k = set(kinds)
    return frozenset(t for t in ts if t.kind not in k)


# --- source tables ------------------------------------------------------------------------------

_TIME = {
    "datetime.datetime.now": "datetime.now()",
    "datetime.datetime.utcnow": "datetime.utcnow()",
    "datetime.datetime.today": "datetime.today()",
    "time.time": "time.time()",
    "time.time_ns": "time.time_ns()",
    "time.ctime": "time.ctime()",
    "time.localtime": "time.localtime()",
    "time.gmtime": "time.gmtime()",
    "time.asctime": "time.asctime()",
    "arrow.now": "arrow.now()",
    "arrow.utcnow": "arrow.utcnow()",
    "pendulum.now": "pendulum.now()",
}
_DATE = {"datetime.date.today": "date.today()"}
_RANDOM_PREFIXES = ("random.", "secrets.", "uuid.uuid1", "uuid.uuid4", "nanoid.", "shortuuid.")
_RANDOM = {"os.urandom": "os.urandom()"}
_RUNTIME = {
    "os.getpid", "os.getppid", "os.getloadavg", "os.times", "time.perf_counter",
    "time.perf_counter_ns", "time.monotonic", "time.monotonic_ns", "time.process_time",
    "resource.getrusage", "shutil.disk_usage", "threading.active_count", "gc.get_count",
    "tracemalloc.get_traced_memory", "os.cpu_times",
}
_LISTING = {"os.listdir", "os.scandir", "glob.glob", "glob.iglob", "os.walk"}
_LISTING_METHODS = {"iterdir", "glob", "rglob", "walk"}
_SUBPROCESS = {
    "subprocess.run", "subprocess.check_output", "subprocess.Popen", "subprocess.call",
    "subprocess.check_call", "subprocess.getoutput", "subprocess.getstatusoutput", "os.popen",
    "os.system",
}
_VCS_OBJECTS = {"git.Repo", "pygit2.Repository", "dulwich.repo.Repo"}
_KEEP_METHODS_CLEARING_ORDER = {"sorted"}
_SCALAR_BUILTINS = {
    "len", "min", "max", "sum", "any", "all", "bool", "int", "float", "abs", "round",
}
_TIME_DIRECTIVES = re.compile(r"%[HIMSfpXcTrRsz]")
_DATE_DIRECTIVES = re.compile(r"%[dFDxjaAbBheUWuwVG]")

_SYSTEM_NAME = re.compile(
    r"(?i)^(system|system_?prompt|system_?message|system_?text|sys_?prompt|instructions|"
    r"preamble|developer_?(prompt|message))$"
)
_SYSTEM_FUNC = re.compile(
    r"(?i)(system_?(prompt|message|text|instructions|block)|(^|_)(build|make|render|get|create|"
    r"compose|load)_system$|^system$|^system_(for|of)(_|$)|instructions|preamble)"
)
# Calls that take prompt-like keywords but never send them (headers, logs, telemetry).
_NOT_A_REQUEST = re.compile(r"(?i)(header|log|debug|print|metric|telemetry|trace|warn|span)")
_TOOL_CALL = re.compile(r"(?i)(^|\.)(tool|toolspec|tool_spec|make_tool|function_tool)$")
_PREFIX_KWARGS = {
    "system": "system prompt",
    "instructions": "instructions",
    "system_prompt": "system prompt",
    "tools": "tool definitions",
    "functions": "tool definitions",
}


# --- module model ------------------------------------------------------------------------------

@dataclass
class Summary:
    params: list[str]
    returns: Taints = EMPTY
    param_sinks: dict[str, str] = field(default_factory=dict)  # param -> where it ends up
    is_method: bool = False


@dataclass
class Sink:
    where: str
    line: int
    in_function: bool
    move: Fix | None = None  # the unsafe fix that moves volatile lines to the newest turn


def _dotted(node: ast.AST) -> str | None:
    parts: list[str] = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
        return ".".join(reversed(parts))
    if isinstance(node, ast.Call):
        inner = _dotted(node.func)
        if inner is not None:
            parts.append(inner + "()")
            return ".".join(reversed(parts))
    return None


def _const_str(node: ast.AST | None) -> str | None:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    return None


def _dict_get(d: ast.Dict, key: str) -> ast.expr | None:
    for k, v in zip(d.keys, d.values, strict=True):
        if _const_str(k) == key:
            return v
    return None


def _dict_keys(d: ast.Dict) -> set[str]:
    return {s for k in d.keys if (s := _const_str(k)) is not None}


# The unsafe move fix reads a prompt as text pieces and values (ast.FormattedValue), in order.
_Atom: TypeAlias = ast.expr | str
_FORMATTER = string.Formatter()
# Where a prompt rebuilt as an f-string may behave differently from the original: said in the
# fix's description.
_NOTE_CONCAT = ("operands of + not known to be str become {x}: the same text for any str, while "
                "a value that + refused (TypeError) is now printed")
_NOTE_JOIN = ("join items not known to be str become {x}: the same text for any str, while a "
              "value that join refused (TypeError) is now printed")
_NOTE_PERCENT_D = ("%d becomes {int(x)}: the same text for any number, while a str that %d "
                   "refused is now converted")
_NOTE_PERCENT_ONE = ("the single value after % becomes one field: a tuple there, which % "
                     "unpacked, is now printed whole")


class _Analyzer:
    def __init__(self, path: str, tree: ast.Module, lines: list[str], model: str | None,
                 prices: PriceTable | None) -> None:
        self.path = path
        self.tree = tree
        self.lines = lines
        self.model = model
        self.prices = prices
        self.imports: dict[str, str] = {}
        self.module_env: dict[str, Taints] = {}
        self.consts: dict[str, str] = {}  # module-level string constants
        self.dict_consts: set[str] = set()
        self.funcs: dict[str, Summary] = {}
        self.func_nodes: dict[str, ast.FunctionDef | ast.AsyncFunctionDef] = {}
        self.class_env: dict[str, dict[str, Taints]] = {}
        self.reporting = False
        self.findings: dict[tuple[str, int, int], Finding] = {}
        self.current: Summary | None = None
        self.current_class: str | None = None
        self.in_function = False
        self.list_literals: dict[str, ast.List] = {}
        self.module_lists: dict[str, ast.List] = {}
        self.modules: set[str] = set()  # names bound by `import x` (modules, not objects)
        # The current function's local names bound once by `name = value` and read once:
        # the unsafe fix may edit such a value where it is built.
        self.single_use: dict[str, ast.expr] | None = None  # computed when a fix asks
        self.current_fn: ast.FunctionDef | ast.AsyncFunctionDef | None = None
        self._nested: dict[int, list[ast.FunctionDef | ast.AsyncFunctionDef]] = {}
        self.scope_funcs: dict[str, list[Summary]] = {}
        self.collect_sinks = False

    # --- imports and names -------------------------------------------------------------------

    def collect_imports(self) -> None:
        for node in ast.walk(self.tree):
            if isinstance(node, ast.Import):
                for a in node.names:
                    self.imports[a.asname or a.name.split(".")[0]] = (
                        a.name if a.asname else a.name.split(".")[0]
                    )
                    self.modules.add(a.asname or a.name.split(".")[0])
            elif isinstance(node, ast.ImportFrom) and node.module:
                for a in node.names:
                    self.imports[a.asname or a.name] = f"{node.module}.{a.name}"

    def qualname(self, node: ast.AST) -> str | None:
        d = _dotted(node)
        if d is None:
            return None
        head, _, rest = d.partition(".")
        base = self.imports.get(head)
        if base is None:
            return d
        return f"{base}.{rest}" if rest else base

    # --- expression evaluation ---------------------------------------------------------------

    def lookup(self, name: str, env: dict[str, Taints]) -> Taints:
        if name in env:
            return env[name]
        return self.module_env.get(name, EMPTY)

    def ev(self, node: ast.AST | None, env: dict[str, Taints]) -> Taints:
        if node is None:
            return EMPTY
        m = getattr(self, "ev_" + type(node).__name__, None)
        if m is not None:
            result: Taints = m(node, env)
            return result
        out: set[Taint] = set()
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.expr):
                out |= self.ev(child, env)
        return frozenset(out)

    def ev_Constant(self, node: ast.Constant, env: dict[str, Taints]) -> Taints:
        return EMPTY

    def ev_Name(self, node: ast.Name, env: dict[str, Taints]) -> Taints:
        return self.lookup(node.id, env)

    def ev_Lambda(self, node: ast.Lambda, env: dict[str, Taints]) -> Taints:
        return EMPTY

    def ev_Compare(self, node: ast.Compare, env: dict[str, Taints]) -> Taints:
        return EMPTY

    def ev_Attribute(self, node: ast.Attribute, env: dict[str, Taints]) -> Taints:
        if isinstance(node.value, ast.Name) and node.value.id in ("self", "cls"):
            if self.current_class is not None:
                return self.class_env.get(self.current_class, {}).get(node.attr, EMPTY)
            return EMPTY
        base = self.ev(node.value, env)
        if node.attr in ("year", "month"):
            # A year or month in prose changes rarely; not a cache problem worth flagging.
            return _drop(base, {"time", "date"})
        if node.attr in ("day", "weekday"):
            return self._downgrade(base)
        return base

    def _downgrade(self, ts: Taints) -> Taints:
        return frozenset(
            replace(t, kind="date", desc=t.desc + " (date part)") if t.kind == "time" else t
            for t in ts
        )

    def _by_format(self, ts: Taints, fmt: str | None) -> Taints:
        if fmt is None or _TIME_DIRECTIVES.search(fmt):
            return ts
        if _DATE_DIRECTIVES.search(fmt):
            return self._downgrade(ts)
        # Only year/month directives: changes rarely.
        return _drop(ts, {"time", "date"})

    def ev_JoinedStr(self, node: ast.JoinedStr, env: dict[str, Taints]) -> Taints:
        out: set[Taint] = set()
        for v in node.values:
            out |= self.ev(v, env)
        return frozenset(out)

    def ev_FormattedValue(self, node: ast.FormattedValue, env: dict[str, Taints]) -> Taints:
        ts = self.ev(node.value, env)
        if node.format_spec is not None and isinstance(node.format_spec, ast.JoinedStr):
            spec = "".join(_const_str(v) or "" for v in node.format_spec.values)
            if "%" in spec:
                ts = self._by_format(ts, spec)
        return ts

    def ev_Set(self, node: ast.Set, env: dict[str, Taints]) -> Taints:
        return self._union(node.elts, env) | {_at(node, "unordered", "a set literal",
                                                   not self.in_function)}

    def ev_SetComp(self, node: ast.SetComp, env: dict[str, Taints]) -> Taints:
        return self._comp(node, env) | {_at(node, "unordered", "a set comprehension",
                                             not self.in_function)}

    def ev_ListComp(self, node: ast.ListComp, env: dict[str, Taints]) -> Taints:
        return self._comp(node, env)

    def ev_GeneratorExp(self, node: ast.GeneratorExp, env: dict[str, Taints]) -> Taints:
        return self._comp(node, env)

    def ev_DictComp(self, node: ast.DictComp, env: dict[str, Taints]) -> Taints:
        inner, out = self._generators(node.generators, env)
        return frozenset(out | self.ev(node.key, inner) | self.ev(node.value, inner))

    def _comp(self, node: ast.ListComp | ast.SetComp | ast.GeneratorExp,
              env: dict[str, Taints]) -> Taints:
        inner, out = self._generators(node.generators, env)
        return frozenset(out | self.ev(node.elt, inner))

    def _generators(self, generators: list[ast.comprehension],
                    env: dict[str, Taints]) -> tuple[dict[str, Taints], set[Taint]]:
        """A comprehension's scope after its `for` clauses, and the order taints of what they
        iterate: those go to the result, the loop targets are bound without them."""
        inner = dict(env)
        out: set[Taint] = set()
        for gen in generators:
            it = self.ev(gen.iter, inner)
            out |= {t for t in it if t.kind in ORDER}
            self.bind(gen.target, _drop(it, ORDER), inner, replace_=True)
        return inner, out

    def _union(self, nodes: Iterable[ast.AST | None], env: dict[str, Taints]) -> Taints:
        out: set[Taint] = set()
        for n in nodes:
            out |= self.ev(n, env)
        return frozenset(out)

    def _with_fix(self, ts: Taints, arg: ast.expr, join: bool) -> Taints:
        span = (arg.lineno, arg.col_offset, arg.end_lineno or arg.lineno, arg.end_col_offset or 0)
        return frozenset(
            replace(t, fix_span=span, fix_join=join)
            if t.kind == "unordered" and t.fix_span is None else t
            for t in ts
        )

    def ev_Call(self, node: ast.Call, env: dict[str, Taints]) -> Taints:
        q = self.qualname(node.func) or ""
        args_t = self._union([*node.args, *(k.value for k in node.keywords)], env)
        once = not self.in_function
        q.rsplit(".", 1)[-1]
        # Sources.
        if q in _TIME:
            return args_t | {_at(node, "time", _TIME[q], once)}
        if q in _DATE:
            return args_t | {_at(node, "date", _DATE[q], once)}
        if q == "time.strftime" and len(node.args) == 1:
            return self._by_format(frozenset({_at(node, "time", "time.strftime()", once)}),
                                   _const_str(node.args[0]))
        if q in _RANDOM or q.startswith(_RANDOM_PREFIXES):
            return args_t | {_at(node, "random", q + "()", once)}
        if q in _RUNTIME or q.startswith("psutil."):
            return args_t | {_at(node, "runtime", q + "()", once)}
        if q in _LISTING:
            return args_t | {
                _at(node, "filetree", q + "()", once),
                replace(_at(node, "listing", q + "()", once),
                        fix_span=(node.lineno, node.col_offset, node.end_lineno or node.lineno,
                                  node.end_col_offset or 0)),
            }
        if q in _VCS_OBJECTS:
            return args_t | {_at(node, "vcs", q + "()", once)}
        if q in _SUBPROCESS and self._mentions_git(node):
            return args_t | {_at(node, "vcs", "git output via " + q + "()", once)}
        if q == "open" or (isinstance(node.func, ast.Attribute)
                           and node.func.attr in ("read_text", "read_bytes")):
            # A file's contents are not a listing, even when its path came from one.
            recv_t = self.ev(node.func.value, env) if isinstance(node.func, ast.Attribute) \
                else EMPTY
            return _drop(args_t | recv_t, {"filetree", "listing"}) | {
                _at(node, "file", "file contents", once)}
        # Order-changing builtins.
        if q == "sorted":
            return _drop(args_t, ORDER)
        if q in _SCALAR_BUILTINS:
            return _drop(args_t, ORDER)
        if q in ("set", "frozenset"):
            return args_t | {_at(node, "unordered", q + "()", once)}
        if q in ("list", "tuple") and node.args:
            return self._with_fix(args_t, node.args[0], join=False)
        if q == "json.dumps":
            sk = next((k for k in node.keywords if k.arg == "sort_keys"), None)
            if sk is not None and isinstance(sk.value, ast.Constant) and sk.value.value is True:
                return args_t
            if sk is not None and not isinstance(sk.value, ast.Constant):
                return args_t
            return args_t | {replace(_at(node, "json", "json.dumps() without sort_keys", once),
                                     node_id=id(node))}
        # Methods.
        if isinstance(node.func, ast.Attribute):
            meth = node.func.attr
            recv = self.ev(node.func.value, env)
            # `.walk()`/`.glob()` of a path object; a module's function of that name
            # (`ast.walk`) lists no files (os.walk and glob.glob are matched by name above).
            module_call = (isinstance(node.func.value, ast.Name)
                           and node.func.value.id in self.modules)
            if meth in _LISTING_METHODS and not node.args[1:] and not module_call:
                return recv | args_t | {
                    _at(node, "filetree", f".{meth}()", once),
                    replace(_at(node, "listing", f".{meth}()", once),
                            fix_span=(node.lineno, node.col_offset,
                                      node.end_lineno or node.lineno, node.end_col_offset or 0)),
                }
            if meth in ("now", "utcnow") and not node.args[1:]:
                # A clock object's reading (datetime, arrow, pendulum, a Clock protocol).
                desc = (_dotted(node.func) or meth) + "()"
                return recv | args_t | {_at(node, "time", desc, once)}
            if meth == "strftime":
                return self._by_format(recv, _const_str(node.args[0]) if node.args else None)
            if meth == "date":
                return self._downgrade(recv)
            if meth == "join" and node.args:
                return recv | self._with_fix(self.ev(node.args[0], env), node.args[0], join=True)
            if meth in ("sort",):
                return EMPTY
            if isinstance(node.func.value, ast.Name) and node.func.value.id in ("self", "cls"):
                summ = self.funcs.get(f"{self.current_class}.{meth}")
                if summ is not None:
                    return self.apply_summary(summ, node, env, skip_self=True)
            return recv | args_t
        if isinstance(node.func, ast.Name) and node.func.id in self.scope_funcs:
            out: set[Taint] = set()
            for summ in self.scope_funcs[node.func.id]:
                out |= self.apply_summary(summ, node, env, skip_self=False)
            return frozenset(out)
        if isinstance(node.func, ast.Name) and node.func.id in self.funcs:
            return self.apply_summary(self.funcs[node.func.id], node, env, skip_self=False)
        return args_t

    def _mentions_git(self, node: ast.Call) -> bool:
        for a in node.args[:1]:
            for sub in ast.walk(a):
                s = _const_str(sub)
                if s is not None and (s == "git" or s.startswith("git ")):
                    return True
        return False

    def _arg_map(self, summ: Summary, node: ast.Call, skip_self: bool) -> dict[str, ast.expr]:
        params = summ.params[1:] if (summ.is_method and skip_self) else summ.params
        out: dict[str, ast.expr] = {}
        for p, a in zip(params, node.args, strict=False):
            out[p] = a
        for k in node.keywords:
            if k.arg is not None:
                out[k.arg] = k.value
        return out

    def apply_summary(self, summ: Summary, node: ast.Call, env: dict[str, Taints],
                      skip_self: bool) -> Taints:
        amap = self._arg_map(summ, node, skip_self)
        out: set[Taint] = set()
        for t in summ.returns:
            if t.kind == "param":
                if t.desc in amap:
                    out |= self.ev(amap[t.desc], env)
            else:
                out.add(t)
        if self.reporting and summ.param_sinks:
            for p, where in summ.param_sinks.items():
                if p in amap:
                    self.report(self.ev(amap[p], env), Sink(where, node.lineno, self.in_function))
        return frozenset(out)

    # --- statements --------------------------------------------------------------------------

    def bind(self, target: ast.AST, ts: Taints, env: dict[str, Taints], replace_: bool) -> None:
        if isinstance(target, ast.Name):
            env[target.id] = ts if replace_ else env.get(target.id, EMPTY) | ts
        elif isinstance(target, (ast.Tuple, ast.List)):
            for e in target.elts:
                self.bind(e, ts, env, replace_)
        elif isinstance(target, ast.Starred):
            self.bind(target.value, ts, env, replace_)
        elif isinstance(target, ast.Attribute):
            if isinstance(target.value, ast.Name) and target.value.id in ("self", "cls"):
                if self.current_class is not None:
                    cenv = self.class_env.setdefault(self.current_class, {})
                    cenv[target.attr] = cenv.get(target.attr, EMPTY) | ts
            else:
                base = _dotted(target.value)
                if base and "." not in base and "(" not in base:
                    env[base] = env.get(base, self.lookup(base, env)) | ts
        elif isinstance(target, ast.Subscript):
            base = _dotted(target.value)
            if base and "(" not in base:
                if base.startswith(("self.", "cls.")) and self.current_class is not None:
                    cenv = self.class_env.setdefault(self.current_class, {})
                    attr = base.split(".", 1)[1]
                    cenv[attr] = cenv.get(attr, EMPTY) | ts
                else:
                    env[base] = self.lookup(base, env) | ts

    def run(self, body: Sequence[ast.stmt], env: dict[str, Taints], depth: int,
            loop: Taints) -> None:
        for stmt in body:
            self.stmt(stmt, env, depth, loop)

    def stmt(self, stmt: ast.stmt, env: dict[str, Taints], depth: int, loop: Taints) -> None:
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            return
        if self.reporting or self.collect_sinks:
            self.check_sinks(stmt, env)
        if isinstance(stmt, ast.Assign):
            ts = self.ev(stmt.value, env) | loop
            alias = self._func_alias(stmt.value)
            for t in stmt.targets:
                if alias and isinstance(t, ast.Name):
                    self.scope_funcs[t.id] = alias
                self.bind(t, ts, env, replace_=depth == 0 and not loop)
                if isinstance(t, ast.Name) and isinstance(stmt.value, ast.List):
                    self.list_literals[t.id] = stmt.value
        elif isinstance(stmt, ast.AnnAssign) and stmt.value is not None:
            self.bind(stmt.target, self.ev(stmt.value, env) | loop, env, replace_=depth == 0)
        elif isinstance(stmt, ast.AugAssign):
            self.bind(stmt.target, self.ev(stmt.value, env) | loop, env, replace_=False)
        elif isinstance(stmt, ast.Expr):
            self.effect(stmt.value, env, loop)
        elif isinstance(stmt, (ast.For, ast.AsyncFor)):
            it = self.ev(stmt.iter, env)
            self.bind(stmt.target, _drop(it, ORDER), env, replace_=False)
            inner_loop = loop | frozenset(t for t in it if t.kind in ORDER)
            for _ in range(2):  # twice, so values carried round the loop settle
                self.run(stmt.body, env, depth + 1, inner_loop)
            self.run(stmt.orelse, env, depth + 1, loop)
        elif isinstance(stmt, ast.While):
            for _ in range(2):
                self.run(stmt.body, env, depth + 1, loop)
            self.run(stmt.orelse, env, depth + 1, loop)
        elif isinstance(stmt, ast.If):
            self.run(stmt.body, env, depth + 1, loop)
            self.run(stmt.orelse, env, depth + 1, loop)
        elif isinstance(stmt, (ast.With, ast.AsyncWith)):
            for item in stmt.items:
                if item.optional_vars is not None:
                    self.bind(item.optional_vars, self.ev(item.context_expr, env), env, False)
            self.run(stmt.body, env, depth + 1, loop)
        elif isinstance(stmt, ast.Try):
            self.run(stmt.body, env, depth + 1, loop)
            for h in stmt.handlers:
                self.run(h.body, env, depth + 1, loop)
            self.run(stmt.orelse, env, depth + 1, loop)
            self.run(stmt.finalbody, env, depth + 1, loop)
        elif isinstance(stmt, ast.Return) and self.current is not None:
            self.current.returns = self.current.returns | self.ev(stmt.value, env)

    def lookup_expr(self, node: ast.expr, env: dict[str, Taints]) -> Taints:
        return self.ev(node, env)

    def _func_alias(self, value: ast.expr) -> list[Summary]:
        """Local functions a name is bound to (`step = a_step if x else b_step`)."""
        names = [value] if isinstance(value, ast.Name) else (
            [value.body, value.orelse] if isinstance(value, ast.IfExp) else [])
        out: list[Summary] = []
        for n in names:
            if isinstance(n, ast.Name) and n.id in self.scope_funcs:
                out.extend(self.scope_funcs[n.id])
        return out

    def effect(self, expr: ast.expr, env: dict[str, Taints], loop: Taints) -> None:
        """Mutating calls (`parts.append(x)`) carry x's marks into the container."""
        if isinstance(expr, ast.Await):
            expr = expr.value
        if not isinstance(expr, ast.Call) or not isinstance(expr.func, ast.Attribute):
            self.ev(expr, env)
            return
        meth = expr.func.attr
        if meth in ("append", "extend", "insert", "add", "update", "write", "setdefault",
                    "appendleft"):
            ts = self._union([*expr.args, *(k.value for k in expr.keywords)], env) | loop
            if meth == "add":
                ts = ts | {_at(expr, "unordered", "a set built with .add()", not self.in_function)}
            self.bind(expr.func.value, ts, env, replace_=False)
        elif meth == "shuffle" and expr.args:
            # random.shuffle(x) / rng.shuffle(x): the list order is now random.
            self.bind(expr.args[0], self.lookup_expr(expr.args[0], env) | {
                _at(expr, "unordered", "a list shuffled by " + (_dotted(expr.func) or "shuffle"),
                    not self.in_function)}, env, replace_=False)
        elif meth == "sort":
            target = expr.func.value
            if isinstance(target, ast.Name):
                env[target.id] = _drop(self.lookup(target.id, env), ORDER)
        else:
            self.ev(expr, env)

    # --- sinks ---------------------------------------------------------------------------------

    def _single_use(self, fn: ast.FunctionDef | ast.AsyncFunctionDef) -> dict[str, ast.expr]:
        stores: dict[str, list[ast.expr | None]] = {}
        loads: dict[str, int] = {}
        for stmt in fn.body:
            for n in self._walk_no_defs(stmt):
                if isinstance(n, ast.Name):
                    if isinstance(n.ctx, ast.Load):
                        loads[n.id] = loads.get(n.id, 0) + 1
                    else:
                        stores.setdefault(n.id, []).append(None)  # for, with, augmented, ...
                elif isinstance(n, ast.Assign) and len(n.targets) == 1 and isinstance(
                        n.targets[0], ast.Name):
                    stores.setdefault(n.targets[0].id, []).append(n.value)
        # An `x = value` statement is seen twice above: as the Assign and as its Store name.
        return {name: vals[0] for name, vals in stores.items()
                if len(vals) == 2 and vals[0] is not None and loads.get(name) == 1}

    def _walk_no_defs(self, node: ast.AST) -> Iterator[ast.AST]:
        stack = [node]
        while stack:
            n = stack.pop()
            yield n
            for c in ast.iter_child_nodes(n):
                if not isinstance(c, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef,
                                      ast.Lambda)):
                    stack.append(c)

    def check_sinks(self, stmt: ast.stmt, env: dict[str, Taints]) -> None:
        if isinstance(stmt, (ast.For, ast.AsyncFor, ast.While, ast.If, ast.With, ast.AsyncWith,
                             ast.Try)):
            # Compound statements: their bodies are checked statement by statement.
            heads: list[ast.AST] = []
            if isinstance(stmt, (ast.For, ast.AsyncFor)):
                heads = [stmt.iter]
            elif isinstance(stmt, (ast.While, ast.If)):
                heads = [stmt.test]
            elif isinstance(stmt, (ast.With, ast.AsyncWith)):
                heads = [i.context_expr for i in stmt.items]
            for h in heads:
                self._check_expr_sinks(h, env)
            return
        self._check_expr_sinks(stmt, env)
        if isinstance(stmt, (ast.Assign, ast.AnnAssign)):
            targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
            value = stmt.value
            for t in targets:
                name = t.id if isinstance(t, ast.Name) else (
                    t.attr if isinstance(t, ast.Attribute) else None)
                if name and value is not None and _SYSTEM_NAME.match(name):
                    self.report(self.ev(value, env), Sink(f"system prompt ({name})",
                                                          stmt.lineno, self.in_function))
                    self.check_layout(value, env)
        if (isinstance(stmt, ast.Return) and stmt.value is not None
                and self.current is not None and self.current_func_name
                and _SYSTEM_FUNC.search(self.current_func_name)):
            self.report(self.ev(stmt.value, env),
                        Sink(f"system prompt (returned by {self.current_func_name}())",
                             stmt.lineno, True))
            self.check_layout(stmt.value, env)

    current_func_name: str | None = None

    def _check_expr_sinks(self, root: ast.AST, env: dict[str, Taints]) -> None:
        for node in self._walk_no_defs(root):
            if isinstance(node, ast.Call):
                self.check_call(node, env)
            elif isinstance(node, ast.Dict):
                self.check_dict(node, env)

    def check_dict(self, node: ast.Dict, env: dict[str, Taints]) -> None:
        keys = _dict_keys(node)
        role = _const_str(_dict_get(node, "role"))
        if role in ("system", "developer"):
            content = _dict_get(node, "content")
            self.report(self.ev(content, env), Sink(f"{role} message", node.lineno,
                                                    self.in_function))
            if content is not None:
                self.check_layout(content, env)
        elif "name" in keys and keys & {"input_schema", "parameters", "inputSchema"}:
            self.report(self.ev(node, env), Sink("tool definition", node.lineno,
                                                 self.in_function))
        elif "model" in keys and keys & {"system", "messages", "instructions", "input"}:
            # A request body built as a dict and splatted into the SDK call.
            kw = {k: v for k in keys if (v := _dict_get(node, k)) is not None}
            model = _const_str(kw.get("model")) or self.model
            price = self.prices.lookup(model) if (self.prices and model) else None
            anthropic = price is not None and price.provider == "anthropic"
            self.check_request(node, kw, env, anthropic)

    def check_call(self, node: ast.Call, env: dict[str, Taints]) -> None:
        q = self.qualname(node.func) or ""
        if _NOT_A_REQUEST.search(q.rsplit(".", 1)[-1]):
            return
        kw = {k.arg: k.value for k in node.keywords if k.arg is not None}
        if q.endswith("FrozenPrefix") and node.args and "system" not in kw:
            kw["system"] = node.args[0]
        if "description" in kw and _TOOL_CALL.search(q):
            self.report(self.ev(kw["description"], env),
                        Sink("tool description", node.lineno, self.in_function))
        self.check_request(node, kw, env, q.endswith(("messages.create", "messages.stream")))

    def check_request(self, node: ast.expr, kw: dict[str, ast.expr], env: dict[str, Taints],
                      anthropic: bool) -> None:
        """The prefix parts of one request, given as call keywords or body-dict entries."""
        move = self.move_fix(kw, env)
        for name, where in _PREFIX_KWARGS.items():
            if name in kw:
                self.report(self.ev(kw[name], env),
                            Sink(where, node.lineno, self.in_function,
                                 move if name in ("system", "instructions") else None))
                if name in ("system", "instructions", "system_prompt"):
                    self.check_layout(kw[name], env)
        for name in ("messages", "input"):
            if name in kw:
                self.check_messages(kw[name], env)
        if "system" in kw or "tools" in kw or "messages" in kw:
            self.check_breakpoints(node, anthropic, kw, env)
        if not anthropic:
            self.check_openai_breakpoints(node, kw, env)

    def check_messages(self, value: ast.expr, env: dict[str, Taints]) -> None:
        lst: ast.List | None = value if isinstance(value, ast.List) else None
        if lst is None and isinstance(value, ast.Name):
            lst = self.list_literals.get(value.id)
        if lst is None:
            return
        elts = lst.elts
        for i, e in enumerate(elts):
            if i == len(elts) - 1:
                continue  # the newest turn: volatile facts belong here
            if not isinstance(e, ast.Dict):
                continue
            role = _const_str(_dict_get(e, "role"))
            if role in ("system", "developer"):
                continue  # checked as a dict sink
            content = _dict_get(e, "content")
            if content is None or self._is_tool_result(content):
                continue
            self.report(self.ev(content, env),
                        Sink(f"earlier {role or 'message'} message {i}", e.lineno,
                             self.in_function))

    def _is_tool_result(self, content: ast.expr) -> bool:
        if isinstance(content, ast.List):
            return all(isinstance(b, ast.Dict) and _const_str(_dict_get(b, "type")) in
                       ("tool_result", "function_call_output") for b in content.elts)
        return False

    # --- layout (PL301, PL302) ----------------------------------------------------------------

    def pieces(self, node: ast.AST, env: dict[str, Taints]) -> list[tuple[str, int, ast.AST]]:
        if isinstance(node, ast.JoinedStr):
            out: list[tuple[str, int, ast.AST]] = []
            for v in node.values:
                if isinstance(v, ast.FormattedValue):
                    out.extend(self.pieces(v.value, env))
                else:
                    out.append(("static", len(_const_str(v) or ""), v))
            return out
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
            return self.pieces(node.left, env) + self.pieces(node.right, env)
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                and node.func.attr == "join" and node.args
                and isinstance(node.args[0], (ast.List, ast.Tuple))):
            res: list[tuple[str, int, ast.AST]] = []
            for e in node.args[0].elts:
                res.extend(self.pieces(e, env))
            return res
        if isinstance(node, ast.List):
            res = []
            for e in node.elts:
                if isinstance(e, ast.Dict):
                    text = _dict_get(e, "text")
                    if text is not None:
                        res.extend(self.pieces(text, env))
                else:
                    res.extend(self.pieces(e, env))
            return res
        s = _const_str(node)
        if s is not None:
            return [("static", len(s), node)]
        if isinstance(node, ast.Name) and node.id in self.consts and node.id not in env:
            return [("static", len(self.consts[node.id]), node)]
        if isinstance(node, ast.IfExp):
            return [("mode", 0, node)]
        if (isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name)
                and node.value.id in self.dict_consts
                and not isinstance(node.slice, ast.Constant)):
            return [("mode", 0, node)]
        ts = self.ev(node, env)
        kinds = {t.kind for t in ts}
        if kinds & VOLATILE:
            return [("volatile", 0, node)]
        if kinds & DYNAMIC:
            return [("dynamic", 0, node)]
        return [("static", 0, node)]

    def check_layout(self, node: ast.AST, env: dict[str, Taints]) -> None:
        ps = [p for p in self.pieces(node, env) if not (p[0] == "static" and p[1] == 0
                                                       and _const_str(p[2]) == "")]
        if not ps:
            return
        first = ps[0]
        after = sum(n for k, n, _ in ps[1:] if k == "static")
        if first[0] == "mode" and after > 0:
            self.add(Finding(self.path, getattr(first[2], "lineno", 1),
                             getattr(first[2], "col_offset", 0) + 1, "PL302",
                             "the prompt starts with mode-dependent text; every mode gets its "
                             f"own cache entry for the {after} static characters after it",
                             source_line=self.line(getattr(first[2], "lineno", 1))))
        for i, (kind, _, n) in enumerate(ps):
            if kind != "dynamic":
                continue
            rest = sum(k2 for kd, k2, _ in ps[i + 1:] if kd == "static")
            if rest >= 200:
                line = getattr(n, "lineno", 1)
                self.add(Finding(self.path, line, getattr(n, "col_offset", 0) + 1, "PL301",
                                 f"dynamic content comes before {rest} characters of static "
                                 "instructions; put the static part first",
                                 source_line=self.line(line)))
            break

    # --- breakpoints in literal requests (PL401-PL406) ----------------------------------------

    def _cc_dicts(self, node: ast.AST | None, section: str,
                  out: list[tuple[str, ast.Dict, str]]) -> None:
        if node is None:
            return
        if isinstance(node, (ast.List, ast.Tuple)):
            for e in node.elts:
                self._cc_dicts(e, section, out)
        elif isinstance(node, ast.Dict):
            cc = _dict_get(node, "cache_control")
            if cc is not None:
                ttl = "5m"
                if isinstance(cc, ast.Dict):
                    ttl = _const_str(_dict_get(cc, "ttl")) or "5m"
                out.append((section, node, ttl))
            for k, v in zip(node.keys, node.values, strict=True):
                if _const_str(k) != "cache_control":
                    self._cc_dicts(v, section, out)
        elif isinstance(node, ast.Name) and node.id in self.list_literals:
            self._cc_dicts(self.list_literals[node.id], section, out)

    def check_breakpoints(self, node: ast.expr, anthropic: bool, kw: dict[str, ast.expr],
                          env: dict[str, Taints]) -> None:
        marks: list[tuple[str, ast.Dict, str]] = []
        for section in ("tools", "system", "messages"):
            self._cc_dicts(kw.get(section), section, marks)
        top = kw.get("cache_control")
        count = len(marks) + (1 if top is not None else 0)
        line = node.lineno
        if count > 4:
            self.add(Finding(self.path, line, node.col_offset + 1, "PL401",
                             f"{count} cache breakpoints in one request; the limit is 4",
                             source_line=self.line(line)))
        seen_short = False
        for _, d, ttl in marks:
            if ttl == "1h" and seen_short:
                self.add(Finding(self.path, d.lineno, d.col_offset + 1, "PL403",
                                 "a 1h breakpoint after a 5m one; longer TTLs must come first",
                                 source_line=self.line(d.lineno)))
                break
            if ttl != "1h":
                seen_short = True
        last_msg = None
        msgs = kw.get("messages")
        if isinstance(msgs, ast.Name):
            msgs = self.list_literals.get(msgs.id)
        if isinstance(msgs, ast.List) and msgs.elts:
            last_msg = msgs.elts[-1]
        for section, d, _ in marks:
            if last_msg is not None and any(d is n for n in ast.walk(last_msg)):
                continue
            text = _dict_get(d, "text") or _dict_get(d, "content")
            kinds = {t.kind for t in self.ev(text, env)}
            if kinds & VOLATILE:
                self.add(Finding(self.path, d.lineno, d.col_offset + 1, "PL402",
                                 f"cache breakpoint on a {section} block whose content changes "
                                 "every request: the write is paid and never read",
                                 source_line=self.line(d.lineno)))
        model = _const_str(kw.get("model")) or self.model
        price = self.prices.lookup(model) if (self.prices and model) else None
        if price is not None and price.provider != "anthropic":
            anthropic = False
        system_text = self._static_text(kw.get("system"))
        if price is not None and anthropic and system_text is not None and count > 0:
            tokens = count_tokens(system_text)
            if "tools" not in kw and tokens < price.min_cacheable_tokens:
                self.add(Finding(self.path, line, node.col_offset + 1, "PL405",
                                 f"the cached prefix is about {tokens} tokens, under "
                                 f"{price.model}'s minimum of {price.min_cacheable_tokens}: "
                                 "nothing is cached", source_line=self.line(line)))
        if anthropic and top is None and marks and self._stable_tail_unmarked(kw, marks):
            self.add(Finding(self.path, line, node.col_offset + 1, "PL406",
                             "every cache breakpoint sits before the end of the system prompt: "
                             "the rest of it and the conversation are never cached",
                             source_line=self.line(line)))
        if anthropic and count == 0 and "system" in kw and self._no_hidden_marks(kw):
            below = (price is not None and system_text is not None and "tools" not in kw
                     and count_tokens(system_text) < price.min_cacheable_tokens)
            if not below:
                self.add(Finding(self.path, line, node.col_offset + 1, "PL406",
                                 "Anthropic request without cache_control: nothing is cached",
                                 source_line=self.line(line)))

    # --- gpt-5.6 breakpoints in literal OpenAI requests (PL401, PL402, PL406-PL408) -----------

    def _openai_marks(self, kw: dict[str, ast.expr]
                      ) -> tuple[list[tuple[int, str | None, ast.Dict]], int, bool]:
        """(marks as (item index, role, marked part), item count, every item visible) of the
        literal `messages` / `input` of an OpenAI request. Not visible: an item or a content
        list built elsewhere, which may carry marks of its own. The visible marks are a lower
        bound either way."""
        items = kw.get("messages", kw.get("input"))
        if isinstance(items, ast.Name):
            items = self.list_literals.get(items.id, items)
        marks: list[tuple[int, str | None, ast.Dict]] = []
        if items is None or _const_str(items) is not None or isinstance(items, ast.JoinedStr):
            return marks, 1 if items is not None else 0, True  # text input: no parts to mark
        if not isinstance(items, (ast.List, ast.Tuple)):
            return marks, 0, False
        visible = True
        for i, e in enumerate(items.elts):
            if not isinstance(e, ast.Dict) or None in e.keys:
                visible = False
                continue
            role = _const_str(_dict_get(e, "role"))
            kind = _const_str(_dict_get(e, "type"))
            content = _dict_get(e, "output" if kind == "function_call_output" else "content")
            if isinstance(content, ast.Name):
                content = self.list_literals.get(content.id, content)
            if isinstance(content, (ast.List, ast.Tuple)):
                for part in content.elts:
                    if not isinstance(part, ast.Dict) or None in part.keys:
                        visible = False
                    elif _dict_get(part, "prompt_cache_breakpoint") is not None:
                        marks.append((i, role, part))
            elif not isinstance(content, (ast.Constant, ast.JoinedStr, ast.Name, ast.BinOp)):
                # A name is taken for text, as the Anthropic no-breakpoint check does: message
                # lists written out in the call hold the question, not a prepared part list.
                visible = False
        return marks, len(items.elts), visible

    def check_openai_breakpoints(self, node: ast.expr, kw: dict[str, ast.expr],
                                 env: dict[str, Taints]) -> None:
        """gpt-5.6 caching options of a Chat Completions or Responses request. Only a request
        that uses `prompt_cache_breakpoint` or `prompt_cache_options` (fields older models
        refuse) is checked: the code is then written for a breakpoint-caching model."""
        opts = kw.get("prompt_cache_options")
        line = node.lineno
        if (kw.get("prompt_cache_retention") is not None and isinstance(opts, ast.Dict)
                and _dict_get(opts, "ttl") is not None):
            self.add(Finding(self.path, line, node.col_offset + 1, "PL408",
                             "prompt_cache_retention and prompt_cache_options.ttl are both set: "
                             "the retention is deprecated in favour of the TTL, and the two are "
                             "separate limits (a maximum and a minimum lifetime)",
                             source_line=self.line(line)))
        if "messages" not in kw and "input" not in kw:
            return
        marks, n_items, visible = self._openai_marks(kw)
        if not marks and opts is None:
            return
        mode: str | None = "implicit"  # the documented default
        if opts is not None:
            given = _dict_get(opts, "mode") if isinstance(opts, ast.Dict) else None
            mode = (_const_str(given) if given is not None
                    else "implicit" if isinstance(opts, ast.Dict) else None)
        for i, role, part in marks:
            if role == "assistant":
                self.add(Finding(self.path, part.lineno, part.col_offset + 1, "PL407",
                                 "prompt_cache_breakpoint on an assistant message: breakpoints "
                                 "go on system, developer, user or tool content, never on the "
                                 "model's output", source_line=self.line(part.lineno)))
            elif i < n_items - 1 and {t.kind for t in self.ev(_dict_get(part, "text"), env)
                                      } & VOLATILE:
                self.add(Finding(self.path, part.lineno, part.col_offset + 1, "PL402",
                                 "prompt_cache_breakpoint on text that changes every request: "
                                 "the write is paid (1.25x) and never read",
                                 source_line=self.line(part.lineno)))
        kept = [(i, part) for i, role, part in marks if role != "assistant"]
        if mode == "explicit" and visible and not kept:
            self.add(Finding(self.path, line, node.col_offset + 1, "PL406",
                             "prompt_cache_options mode is explicit and no content block carries "
                             "prompt_cache_breakpoint: nothing is cached",
                             source_line=self.line(line)))
        if mode not in ("implicit", "explicit"):
            return
        room = 4 if mode == "explicit" else 3
        if mode == "implicit":
            # A mark on the last item is the implicit breakpoint's own write when that item is
            # an input message or tool output; assumed so whatever its role (lenient).
            kept = [(i, p) for i, p in kept if i != n_items - 1]
        if len(kept) > room:
            _, first = kept[0]
            wasted = len(kept) - room
            self.add(Finding(self.path, first.lineno, first.col_offset + 1, "PL401",
                             f"{len(kept)} explicit cache breakpoints; a request in {mode} mode "
                             f"writes only the latest {room}: {wasted} mark(s), the first here, "
                             "are never written", severity=WARNING,
                             source_line=self.line(first.lineno)))

    def _stable_tail_unmarked(self, kw: dict[str, ast.expr],
                              marks: list[tuple[str, ast.Dict, str]]) -> bool:
        """True when the visible breakpoints all sit on tools or on an earlier system block
        than the last, and the messages are a literal list that carries none."""
        system = kw.get("system")
        if isinstance(system, ast.Name):
            system = self.list_literals.get(system.id, system)
        if system is None or any(s == "messages" for s, _, _ in marks):
            return False
        msgs = kw.get("messages")
        if isinstance(msgs, ast.Name):
            msgs = self.list_literals.get(msgs.id)
        if not isinstance(msgs, ast.List) or not all(
                isinstance(e, ast.Dict) and None not in e.keys
                and isinstance(_dict_get(e, "content"),
                               (ast.Constant, ast.JoinedStr, ast.Name, ast.BinOp))
                for e in msgs.elts):
            return False  # a breakpoint may hide in messages built elsewhere
        if not any(s == "system" for s, _, _ in marks):
            return True  # only the tools are marked
        if not isinstance(system, ast.List) or not system.elts:
            return False
        last = system.elts[-1]
        return isinstance(last, ast.Dict) and None not in last.keys and not any(
            d is last for _, d, _ in marks)

    def _no_hidden_marks(self, kw: dict[str, ast.expr]) -> bool:
        """True when every part that could carry cache_control is visible and carries none."""
        system = kw["system"]
        if not isinstance(system, (ast.Constant, ast.JoinedStr, ast.BinOp, ast.Name)):
            return False
        if isinstance(system, ast.Name) and system.id in self.list_literals:
            return False
        for name in ("messages", "tools"):
            v = kw.get(name)
            if v is None:
                continue
            if isinstance(v, ast.Name):
                v = self.list_literals.get(v.id)
                if v is None:
                    return False
            if not isinstance(v, ast.List):
                return False
            if not all(isinstance(e, ast.Dict) and None not in e.keys for e in v.elts):
                return False
            for e in v.elts:
                content = _dict_get(e, "content") if isinstance(e, ast.Dict) else None
                if content is not None and not isinstance(
                        content, (ast.Constant, ast.JoinedStr, ast.Name, ast.BinOp, ast.List)):
                    return False
        return True

    def _static_text(self, node: ast.expr | None) -> str | None:
        if node is None:
            return None
        s = _const_str(node)
        if s is not None:
            return s
        if isinstance(node, ast.Name) and node.id in self.consts:
            return self.consts[node.id]
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
            a, b = self._static_text(node.left), self._static_text(node.right)
            return None if a is None or b is None else a + b
        if (isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mult)
                and isinstance(node.right, ast.Constant) and isinstance(node.right.value, int)):
            a = self._static_text(node.left)
            return None if a is None else a * min(node.right.value, 10_000)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and (
                node.func.attr in ("strip", "lstrip", "rstrip")):
            return self._static_text(node.func.value)
        if isinstance(node, ast.List):
            parts: list[str] = []
            for e in node.elts:
                t = self._static_text(_dict_get(e, "text")) if isinstance(e, ast.Dict) else None
                if t is None:
                    return None
                parts.append(t)
            return "".join(parts)
        return None

    # --- the unsafe fix: move volatile lines of the system prompt to the newest user turn -----

    def move_fix(self, kw: dict[str, ast.expr], env: dict[str, Taints]) -> Fix | None:
        if not self.reporting:
            return None  # only the reporting pass attaches fixes to findings
        system = kw.get("system", kw.get("instructions"))
        msgs = kw.get("messages", kw.get("input"))
        # A prompt or message list built in a local variable used only here is edited where
        # it is built.
        if isinstance(system, ast.Name) or isinstance(msgs, ast.Name):
            if self.single_use is None:
                fn = self.current_fn if self.in_function else None
                self.single_use = self._single_use(fn) if fn is not None else {}
            if isinstance(system, ast.Name):
                system = self.single_use.get(system.id, system)
            if isinstance(msgs, ast.Name):
                msgs = self.single_use.get(msgs.id, msgs)
        if (not isinstance(system, (ast.JoinedStr, ast.Call, ast.BinOp))
                or not isinstance(msgs, ast.List) or not msgs.elts):
            return None
        if msgs is not kw.get("messages", kw.get("input")) and (
                msgs.end_lineno or msgs.lineno) < system.lineno:
            return None  # the list is built first: a moved value may not be bound there yet
        last = msgs.elts[-1]
        if not isinstance(last, ast.Dict) or _const_str(_dict_get(last, "role")) != "user":
            return None
        content = _dict_get(last, "content")
        if not isinstance(content, (ast.Constant, ast.JoinedStr, ast.Name, ast.BinOp)):
            return None
        prompt = self._prompt_atoms(system, env)
        if prompt is None:
            return None
        atoms, notes = prompt
        return self._move_lines(system, content, atoms, notes, env)

    def _prompt_atoms(self, node: ast.expr, env: dict[str, Taints]
                      ) -> tuple[list[_Atom], list[str]] | None:
        """The prompt's text as literal pieces and values (ast.FormattedValue) in order, when
        it is written in a form whose code the fix can rebuild as an f-string: an f-string,
        `"...".format(...)`, a `+` chain, `"sep".join([...])` or `"..." % values`. With notes
        on where the rebuilt code may behave differently (none for an f-string)."""
        if isinstance(node, ast.JoinedStr):
            return _fstring_atoms(node), []
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            template = _const_str(node.func.value)
            if template is not None and node.func.attr == "format":
                return _format_atoms(template, node)
            if template is not None and node.func.attr == "join":
                return self._join_atoms(template, node, env)
            return None
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mod):
            template = _const_str(node.left)
            return None if template is None else self._percent_atoms(template, node.right, env)
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
            return self._concat_atoms(node, env)
        return None

    def _is_text(self, node: ast.expr, env: dict[str, Taints]) -> bool:
        """`node` certainly evaluates to a str: a literal, an f-string, str()/repr(), a
        `.format`/`.join`/`%` on a string literal, or a module-level string constant that is
        not rebound locally."""
        if _const_str(node) is not None or isinstance(node, ast.JoinedStr):
            return True
        if isinstance(node, ast.Name):
            return node.id in self.consts and not (self.in_function and node.id in env)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
            return node.func.id in ("str", "repr") and len(node.args) == 1
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            return (node.func.attr in ("format", "join")
                    and _const_str(node.func.value) is not None)
        return (isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mod)
                and _const_str(node.left) is not None)

    def _concat_atoms(self, node: ast.BinOp, env: dict[str, Taints]
                      ) -> tuple[list[_Atom], list[str]] | None:
        operands: list[ast.expr] = []
        stack: list[ast.expr] = [node]
        while stack:  # flattened left to right; a long chain is a deep tree
            n = stack.pop()
            if isinstance(n, ast.BinOp) and isinstance(n.op, ast.Add):
                stack += [n.right, n.left]
            else:
                operands.append(n)
        if not any(self._is_text(o, env) for o in operands):
            return None  # maybe not text at all
        atoms: list[_Atom] = []
        unknown = False
        for o in operands:
            if isinstance(o, ast.JoinedStr):
                atoms += _fstring_atoms(o)
            elif (s := _const_str(o)) is not None:
                atoms.append(s)
            elif isinstance(o, ast.Constant):
                return None  # `"a" + 1` raises
            else:
                atoms.append(_value(o))
                unknown = unknown or not self._is_text(o, env)
        return atoms, [_NOTE_CONCAT] if unknown else []

    def _join_atoms(self, sep: str, call: ast.Call, env: dict[str, Taints]
                    ) -> tuple[list[_Atom], list[str]] | None:
        if call.keywords or len(call.args) != 1 or not isinstance(call.args[0],
                                                                   (ast.List, ast.Tuple)):
            return None  # a generator, a name, ...: the items are not visible
        atoms: list[_Atom] = []
        unknown = False
        for i, e in enumerate(call.args[0].elts):
            if i and sep:
                atoms.append(sep)
            if isinstance(e, ast.JoinedStr):
                atoms += _fstring_atoms(e)
            elif (s := _const_str(e)) is not None:
                atoms.append(s)
            elif isinstance(e, (ast.Starred, ast.Constant)):
                return None  # items not visible, or a join that raises
            else:
                atoms.append(_value(e))
                unknown = unknown or not self._is_text(e, env)
        return atoms, [_NOTE_JOIN] if unknown else []

    def _percent_atoms(self, template: str, right: ast.expr, env: dict[str, Taints]
                       ) -> tuple[list[_Atom], list[str]] | None:
        values = list(right.elts) if isinstance(right, ast.Tuple) else [right]
        if any(isinstance(v, ast.Starred) for v in values):
            return None
        atoms: list[_Atom] = []
        notes: list[str] = []
        text: list[str] = []
        pos = n = 0
        while (j := template.find("%", pos)) >= 0:
            text.append(template[pos:j])
            c = template[j + 1:j + 2]
            pos = j + 2
            if c == "%":
                text.append("%")
                continue
            if c not in ("s", "d", "r") or n == len(values):
                return None  # flags, widths, mapping keys, other conversions; or % raises
            v = values[n]
            n += 1
            atoms.append("".join(text))
            text = []
            if c == "r":
                atoms.append(_value(v, ord("r")))
            elif c == "s":
                atoms.append(_value(v) if self._is_text(v, env) else _value(v, ord("s")))
            elif isinstance(v, ast.Constant) and type(v.value) is int:
                atoms.append(_value(v))
            else:
                # %d prints int(x) for every number it accepts (floats are truncated).
                atoms.append(_value(ast.Call(ast.Name("int", ast.Load()), [v], [])))
                notes.append(_NOTE_PERCENT_D)
        text.append(template[pos:])
        atoms.append("".join(text))
        if n != len(values):
            return None  # % raises: not all arguments converted
        if not isinstance(right, ast.Tuple) and not (
                self._is_text(right, env) or isinstance(right, ast.Constant)):
            notes.append(_NOTE_PERCENT_ONE)
        return atoms, sorted(set(notes))

    def _move_lines(self, system: ast.expr, content: ast.expr, atoms: list[_Atom],
                    notes: list[str], env: dict[str, Taints]) -> Fix | None:
        """Split the prompt's atoms into lines, move the lines that hold a volatile value to
        the front of the newest user message, and rewrite both as f-strings."""
        lines: list[list[_Atom]] = [[]]
        for a in atoms:
            if not isinstance(a, str):
                lines[-1].append(a)
                continue
            *done, tail = a.split("\n")
            for part in done:
                lines[-1].append(part + "\n")
                lines.append([])
            if tail:
                lines[-1].append(tail)
        keep: list[_Atom] = []
        moved: list[_Atom] = []
        for ln in lines:
            volatile = any(isinstance(a, ast.FormattedValue)
                           and {t.kind for t in self.ev(a, env)} & VOLATILE for a in ln)
            (moved if volatile else keep).extend(ln)

        def static(atoms: list[_Atom]) -> int:
            return sum(len(a) for a in atoms if isinstance(a, str))

        # Only a line of a longer prompt moves; a one-line prompt is rewritten by hand.
        if not moved or not keep or static(moved) >= static(keep):
            return None
        if not (isinstance(moved[-1], str) and moved[-1].endswith("\n")):
            moved.append("\n")
        try:
            new_system = ast.unparse(_build(keep))
            new_content = ast.unparse(ast.BinOp(_build(moved), ast.Add(), content))
            for text in (new_system, new_content):
                ast.parse(text, mode="eval")
        except (ValueError, SyntaxError):
            # An expression this Python cannot write inside an f-string (a backslash before
            # 3.12, quotes of every kind): left for a person.
            return None
        description = "move the volatile line into the newest user message"
        if notes:
            description += " (" + "; ".join(notes) + ")"
        return Fix((_replace(system, new_system), _replace(content, new_content)),
                   safe=False, description=description)

    # --- reporting ----------------------------------------------------------------------------

    def line(self, n: int) -> str:
        return self.lines[n - 1] if 0 < n <= len(self.lines) else ""

    def add(self, f: Finding) -> None:
        key = (f.code, f.line, f.col)
        old = self.findings.get(key)
        if old is None:
            self.findings[key] = f
        elif old.fix is None and f.fix is not None:
            # The same value reached a variable named like a prompt and then the request that
            # can carry the fix: keep the first message, take the fix.
            self.findings[key] = old.with_(fix=f.fix)

    def report(self, ts: Taints, sink: Sink) -> None:
        if not ts:
            return
        for t in ts:
            if t.kind == "param" and self.current is not None:
                self.current.param_sinks.setdefault(t.desc, sink.where)
        if not self.reporting:
            return
        for t in sorted(ts, key=lambda t: (t.line, t.col, t.kind)):
            code = CODE_OF.get(t.kind)
            if code is None:
                continue
            msg = f"{t.desc} flows into the {sink.where} (line {sink.line})"
            severity = ""
            if t.once and sink.in_function and t.kind in VOLATILE:
                severity = NOTE
                msg += "; computed once at import, so it changes with every new process"
            elif sink.where.startswith("tool") and RULES[code].severity == WARNING:
                # Tool definitions come first in the prefix: a change there misses every level.
                severity = ERROR
                msg += "; tool definitions come first, so every cache level misses"
            fix = self.fix_for(t)
            if fix is None and t.kind in VOLATILE:
                fix = sink.move
            self.add(Finding(self.path, t.line, t.col + 1, code, msg, severity=severity,
                             end_line=t.end_line, end_col=t.end_col + 1,
                             source_line=self.line(t.line), fix=fix))

    def fix_for(self, t: Taint) -> Fix | None:
        if t.kind in ORDER and t.fix_span is not None:
            l1, c1, l2, c2 = t.fix_span
            return Fix((Edit(l1, c1, l1, c1, "sorted("), Edit(l2, c2, l2, c2, ")")),
                       safe=t.kind == "listing" or t.fix_join,
                       description="wrap in sorted(...)")
        if t.kind == "json":
            # Insert before the closing parenthesis of the json.dumps call.
            return Fix((Edit(t.end_line, t.end_col - 1, t.end_line, t.end_col - 1,
                             ", sort_keys=True"),), safe=True, description="add sort_keys=True")
        return None

    # --- driver ------------------------------------------------------------------------------

    def collect_consts(self) -> None:
        for stmt in self.tree.body:
            if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(
                    stmt.targets[0], ast.Name):
                name = stmt.targets[0].id
                s = self._static_text(stmt.value)
                if s is not None:
                    self.consts[name] = s
                elif isinstance(stmt.value, ast.Dict):
                    self.dict_consts.add(name)

    def functions(self) -> Iterator[tuple[str, str | None,
                                          ast.FunctionDef | ast.AsyncFunctionDef]]:
        for stmt in self.tree.body:
            if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
                yield stmt.name, None, stmt
            elif isinstance(stmt, ast.ClassDef):
                for sub in stmt.body:
                    if isinstance(sub, (ast.FunctionDef, ast.AsyncFunctionDef)):
                        yield f"{stmt.name}.{sub.name}", stmt.name, sub

    def analyze_function(self, key: str, cls: str | None,
                         fn: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        summ = self.funcs[key]
        self.current = summ
        self.current_class = cls
        self.current_func_name = fn.name
        self.in_function = True
        # Module-level list literals (a TOOLS list with cache_control) stay visible inside.
        self.list_literals = dict(self.module_lists)
        self.single_use = None
        self.current_fn = fn
        env: dict[str, Taints] = {}
        args = fn.args
        for a in [*args.posonlyargs, *args.args, *args.kwonlyargs]:
            if a.arg not in ("self", "cls"):
                env[a.arg] = frozenset({_at(a, "param", a.arg)})
        nested = self._nested.get(id(fn))
        if nested is None:
            nested = [sub for sub in ast.walk(fn) if sub is not fn
                      and isinstance(sub, (ast.FunctionDef, ast.AsyncFunctionDef))]
            self._nested[id(fn)] = nested
        # Nested functions get summaries of their own (kept across rounds), so a value passed
        # to one (`step(model, f"...{now}")`) is followed into the request it builds.
        self.scope_funcs = {}
        for sub in nested:
            skey = f"{key}.<locals>.{sub.name}"
            if skey not in self.funcs:
                self.funcs[skey] = Summary([a.arg for a in [*sub.args.args,
                                                            *sub.args.kwonlyargs]])
            self.scope_funcs.setdefault(sub.name, []).append(self.funcs[skey])
        self.run(fn.body, env, 0, EMPTY)
        scope = dict(self.scope_funcs)
        for sub in nested:
            inner = dict(env)
            for a in [*sub.args.args, *sub.args.kwonlyargs]:
                inner[a.arg] = frozenset({_at(a, "param", a.arg)})
            saved = self.current
            self.current = self.funcs[f"{key}.<locals>.{sub.name}"]
            self.current_func_name = sub.name
            self.scope_funcs = scope
            self.single_use = {}  # the outer function's locals are not the nested one's
            self.run(sub.body, inner, 0, EMPTY)
            self.current = saved
            self.current_func_name = fn.name
        self.scope_funcs = {}
        self.current = None
        self.current_class = None
        self.current_func_name = None
        self.in_function = False

    def analyze(self) -> list[Finding]:
        self.collect_imports()
        self.collect_consts()
        for key, cls, fn in self.functions():
            params = [a.arg for a in [*fn.args.posonlyargs, *fn.args.args, *fn.args.kwonlyargs]]
            self.funcs[key] = Summary(params, is_method=cls is not None)
            if cls is None:
                self.funcs.setdefault(fn.name, self.funcs[key])
        for stmt in self.tree.body:
            if isinstance(stmt, ast.ClassDef):
                cenv = self.class_env.setdefault(stmt.name, {})
                for sub in stmt.body:
                    if isinstance(sub, ast.Assign):
                        for t in sub.targets:
                            if isinstance(t, ast.Name):
                                cenv[t.id] = self.ev(sub.value, {})
        module_env: dict[str, Taints] = {}
        self.module_env = module_env
        self.run(self.tree.body, module_env, 0, EMPTY)
        for round_ in range(2):  # summaries settle over two rounds
            # The second round also finds which parameters reach a sink, so that callers
            # analysed before their callee still see it in the reporting pass.
            self.collect_sinks = round_ == 1
            for key, cls, fn in self.functions():
                self.funcs[key].returns = EMPTY
                self.analyze_function(key, cls, fn)
        self.collect_sinks = False
        self.reporting = True
        self.list_literals = {}
        self.run(self.tree.body, dict(module_env), 0, EMPTY)
        self.module_lists = dict(self.list_literals)
        for key, cls, fn in self.functions():
            self.analyze_function(key, cls, fn)
        return sorted(self.findings.values(), key=lambda f: (f.line, f.col, f.code))


def _replace(node: ast.expr, text: str) -> Edit:
    return Edit(node.lineno, node.col_offset, node.end_lineno or node.lineno,
                node.end_col_offset or 0, text)


def _value(expr: ast.expr, conversion: int = -1, spec: str = "") -> _Atom:
    """An f-string field for `expr`; a str or int literal printed as is becomes text."""
    if (isinstance(expr, ast.Constant) and type(expr.value) in (str, int) and not spec
            and conversion in (-1, ord("s"))):
        return str(expr.value)
    return ast.FormattedValue(expr, conversion,
                              ast.JoinedStr([ast.Constant(spec)]) if spec else None)


def _fstring_atoms(node: ast.JoinedStr) -> list[_Atom]:
    return [v if isinstance(v, ast.FormattedValue) else (_const_str(v) or "")
            for v in node.values]


def _format_atoms(template: str, call: ast.Call) -> tuple[list[_Atom], list[str]] | None:
    """`template.format(...)` with simple fields ({}, {0}, {name}, with !conversion and a
    constant :spec): str.format formats each as an f-string field does."""
    if (any(isinstance(a, ast.Starred) for a in call.args)
            or any(k.arg is None for k in call.keywords)):
        return None  # *args / **kwargs: the fields' values are not visible
    try:
        parsed = list(_FORMATTER.parse(template))
    except ValueError:
        return None
    named = {k.arg: k.value for k in call.keywords if k.arg is not None}
    uses: dict[int, int] = {}
    atoms: list[_Atom] = []
    auto: bool | None = None  # automatic ({}) or manual ({0}) numbering; Python refuses both
    index = 0
    for literal, name, spec, conv in parsed:
        if literal:
            atoms.append(literal)
        if name is None:
            continue
        value: ast.expr | None
        if name == "" or (name.isascii() and name.isdigit()):
            if auto is (name != ""):
                return None
            auto = name == ""
            n = index if auto else int(name)
            index += auto
            value = call.args[n] if n < len(call.args) else None
        elif name.isidentifier():
            value = named.get(name)
        else:
            return None  # attribute or index fields ({0.name}, {x[0]})
        spec = spec or ""
        if value is None or conv not in (None, "s", "r", "a") or "{" in spec or "}" in spec:
            return None  # a missing argument, a bad conversion or a nested field
        uses[id(value)] = uses.get(id(value), 0) + 1
        atoms.append(_value(value, -1 if conv is None else ord(conv), spec))
    # Each argument is evaluated once by .format(); the f-string evaluates it once per field.
    # Only names and constants may be used twice or not at all.
    if any(uses.get(id(v), 0) != 1 and not isinstance(v, (ast.Name, ast.Constant))
           for v in [*call.args, *named.values()]):
        return None
    return atoms, []


def _build(atoms: list[_Atom]) -> ast.expr:
    vals: list[ast.expr] = []
    for a in atoms:
        if isinstance(a, str):
            if vals and isinstance(vals[-1], ast.Constant):
                vals[-1] = ast.Constant(str(vals[-1].value) + a)
            else:
                vals.append(ast.Constant(a))
        else:
            vals.append(a)
    if all(isinstance(x, ast.Constant) for x in vals):
        return ast.Constant("".join(str(x.value) for x in vals if isinstance(x, ast.Constant)))
    return ast.JoinedStr(vals)


def check_python(path: str, text: str, model: str | None = None,
                 prices: PriceTable | None = None) -> list[Finding]:
    """Lint one Python source file. A syntax error is a PL901 finding."""
    lines = source_lines(text)
    try:
        tree = ast.parse(text, filename=path)
    except SyntaxError as exc:
        line = exc.lineno or 1
        return [Finding(path, line, (exc.offset or 1), "PL901", f"syntax error: {exc.msg}",
                        source_line=lines[line - 1] if 0 < line <= len(lines) else "")]
    except ValueError as exc:  # null bytes
        return [Finding(path, 1, 1, "PL903", f"cannot parse: {exc}")]
    if not _interesting(text):
        return []
    found = _Analyzer(path, tree, lines, model, prices).analyze()
    return found if text.isascii() else _char_columns(found, lines)


def _char_columns(findings: list[Finding], lines: list[str]) -> list[Finding]:
    """Findings and fix edits with columns in characters, as editors, SARIF
    (`unicodeCodePoints`) and `apply_edits` count them; the AST counts UTF-8 bytes, so on a
    line with non-ASCII text before the spot the two differ."""

    def col(line: int, byte_col: int) -> int:
        if not 0 < line <= len(lines) or lines[line - 1].isascii():
            return byte_col
        return len(lines[line - 1].encode("utf-8")[:byte_col].decode("utf-8", "ignore"))

    fixes: dict[int, Fix] = {}  # a fix shared by several findings stays one object

    def convert(fix: Fix) -> Fix:
        if id(fix) not in fixes:
            edits = tuple(replace(e, col=col(e.line, e.col), end_col=col(e.end_line, e.end_col))
                          for e in fix.edits)
            fixes[id(fix)] = replace(fix, edits=edits)
        return fixes[id(fix)]

    out = []
    for f in findings:
        end_col = None if f.end_col is None else col(f.end_line or f.line, f.end_col - 1) + 1
        out.append(replace(f, col=col(f.line, f.col - 1) + 1, end_col=end_col,
                           fix=None if f.fix is None else convert(f.fix)))
    return out


_HINTS = ("system", "tools", "instructions", "preamble", "messages", "prompt", "cache_control",
          "role",
          "input_schema", "parameters", "FrozenPrefix", "description")


def _interesting(text: str) -> bool:
    """Cheap pre-filter: a file that never mentions a prompt part cannot reach a sink."""
    return any(h in text for h in _HINTS)
