"""The taint analysis of expressions: which volatile or unordered values an expression carries.

Sources mark values: clock readings, random ids, git output, directory listings, runtime
statistics, sets, `json.dumps` without sorted keys, file contents and parameters. Attribute
reads, f-strings, joins, containers, comprehensions and calls carry the marks; `sorted()` and
scalar builtins clear the order marks; calls to functions of the same module apply their
summaries. Raises no rule itself: a taint names the rule it becomes where it reaches a sink
(`CODE_OF`: PL101-PL106 volatile, PL201-PL203 unordered), which `sinks` reports.
"""

# pure: imports no I/O (tests/test_layout.py checks it)

from __future__ import annotations

import ast
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

from ..meaning import (
    FETCH_WORDS,
    HISTORY_WORDS,
    VOLATILE_CODES,
    identity_name,
    kind_of_name,
    names_request,
    words,
)
from .devicestate import device_state
from .queries import selects_rows
from .syntax import const_str, dotted, format_fields, last_name, walk_cached

if TYPE_CHECKING:
    from .context import Context

CODE_OF = VOLATILE_CODES | {
    "unordered": "PL201",
    "json": "PL202",
    "listing": "PL203",
    # What a search or a recall fetched for the current request: it differs on every
    # request, so in the prefix it moves the history's start (PL304).
    "retrieved": "PL304",
    # A running summary of the conversation: each new summary rewrites the prefix (PL303).
    "summary": "PL303",
}
VOLATILE = frozenset({"time", "date", "random", "vcs", "filetree", "runtime"})
ORDER = frozenset({"unordered", "listing"})
DYNAMIC = frozenset({"param", "file"})

Span = tuple[int, int, int, int]


@dataclass(frozen=True)
class Taint:
    kind: str
    line: int
    col: int
    end_line: int
    end_col: int
    desc: str
    once: bool = False  # computed at import time (module level)
    fix_span: Span | None = None  # what to wrap in sorted()
    fix_join: bool = False  # the iteration joins strings: sorting is safe
    # The field of a record the value was handed in as (`Profile(created_at=now)`,
    # `{"created_at": now}`) and the record's other fields: reading one of those others
    # (`profile.info`, `job["topic"]`) reads another value, not this one.
    field: str | None = None
    siblings: frozenset[str] = frozenset()


Taints = frozenset[Taint]
EMPTY: Taints = frozenset()


# The keywords of a message constructor that are its text.
_MESSAGE_TEXT = frozenset({"content", "text", "parts"})


# Methods that write their keywords into text: an id passed to one is text.
_FILLS = frozenset({"format", "format_map", "substitute", "safe_substitute", "render"})


def at(node: ast.AST, kind: str, desc: str, once: bool = False) -> Taint:
    """A taint of `kind` whose source is `node`."""
    return Taint(
        kind,
        getattr(node, "lineno", 1),
        getattr(node, "col_offset", 0),
        int(getattr(node, "end_lineno", None) or getattr(node, "lineno", None) or 1),
        int(getattr(node, "end_col_offset", None) or 0),
        desc,
        once,
    )


def drop(ts: Taints, kinds: Iterable[str]) -> Taints:
    k = set(kinds)
    return frozenset(t for t in ts if t.kind not in k)


def as_field(ts: Taints, name: str, siblings: frozenset[str]) -> Taints:
    """`ts` handed to a record as its field `name`, beside the fields `siblings`."""
    return frozenset(replace(t, field=name, siblings=siblings) for t in ts)


def read_field(ts: Taints, name: str) -> Taints:
    """What reading the field `name` of a record carrying `ts` carries: a value handed in as
    another of the record's fields is left out; the field's own value, and anything whose
    field is unknown (a property may compute from any of them), are kept."""
    out: set[Taint] = set()
    for t in ts:
        if t.field is None:
            out.add(t)
        elif t.field == name:
            out.add(replace(t, field=None, siblings=frozenset()))
        elif name not in t.siblings:
            out.add(t)
    return frozenset(out)


def unfielded(ts: Taints) -> Taints:
    """`ts` with their record fields forgotten (where the whole value is rendered)."""
    if not any(t.field is not None for t in ts):
        return ts
    return frozenset(replace(t, field=None, siblings=frozenset()) for t in ts)


def kinds(ts: Taints) -> set[str]:
    return {t.kind for t in ts}


def span(node: ast.expr) -> Span:
    return (node.lineno, node.col_offset, node.end_lineno or node.lineno, node.end_col_offset or 0)


@dataclass
class Summary:
    """What calling a function of the module does to taints: what its return value carries
    (a `param` taint stands for that argument's) and which parameters reach a sink."""

    params: list[str]
    returns: Taints = EMPTY
    param_sinks: dict[str, str] = field(default_factory=dict)  # param -> where it ends up
    is_method: bool = False
    # Per element, when every return is a tuple of one length (`return text, tools, skills`):
    # `a, b, c = f()` binds each name its own element's taints, not the tuple's union.
    elts: tuple[Taints, ...] | None = None
    elts_mixed: bool = False

    def add_return(self, ts: Taints, elts: list[Taints] | None) -> None:
        self.returns = self.returns | ts
        if self.elts_mixed:
            return
        if elts is None or (self.elts is not None and len(self.elts) != len(elts)):
            self.elts, self.elts_mixed = None, True
        elif self.elts is None:
            self.elts = tuple(elts)
        else:
            self.elts = tuple(a | b for a, b in zip(self.elts, elts, strict=True))


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


def reads_clock(qualname: str) -> bool:
    """Whether a call of `qualname` (resolved through the imports) reads the clock."""
    return qualname in _TIME or qualname in _DATE


_RANDOM_PREFIXES = ("random.", "secrets.", "uuid.uuid1", "uuid.uuid4", "nanoid.", "shortuuid.")
_RANDOM = {"os.urandom": "os.urandom()"}
_RUNTIME = {
    "os.getpid",
    "os.getppid",
    "os.getloadavg",
    "os.times",
    "time.perf_counter",
    "time.perf_counter_ns",
    "time.monotonic",
    "time.monotonic_ns",
    "time.process_time",
    "resource.getrusage",
    "shutil.disk_usage",
    "threading.active_count",
    "gc.get_count",
    "tracemalloc.get_traced_memory",
    "os.cpu_times",
}
# Mappings whose iteration order is decided outside the program.
_UNORDERED_MAPPINGS = {
    "os.environ": "os.environ (in the launching process's order)",
    "sys.modules": "sys.modules (in import order)",
}
# The working directory, read per call: a coding agent's tools move it between requests (as
# TypeScript's `process.cwd()` in a function); read at import it is fixed for the process.
_CWD = {"os.getcwd", "os.getcwdb", "pathlib.Path.cwd"}
_CWD_DESC = "the working directory"
_LISTING = {"os.listdir", "os.scandir", "glob.glob", "glob.iglob", "os.walk"}
_LISTING_METHODS = {"iterdir", "glob", "rglob", "walk"}
# Plugin registries: their order is the order packages were found on disk (PL203 when it
# reaches the tools or the prompt unsorted; what they are is the installation, not a tree).
_REGISTRIES = {
    "importlib.metadata.entry_points",
    "pkgutil.iter_modules",
    "pkg_resources.iter_entry_points",
    "pluggy.PluginManager.list_name_plugin",
}
_SUBPROCESS = {
    "subprocess.run",
    "subprocess.check_output",
    "subprocess.Popen",
    "subprocess.call",
    "subprocess.check_call",
    "subprocess.getoutput",
    "subprocess.getstatusoutput",
    "os.popen",
    "os.system",
}
_VCS_OBJECTS = {"git.Repo", "pygit2.Repository", "dulwich.repo.Repo"}
_SCALAR_BUILTINS = {
    "len",
    "min",
    "max",
    "sum",
    "any",
    "all",
    "bool",
    "int",
    "float",
    "abs",
    "round",
}
_TIME_DIRECTIVES = re.compile(r"%[HIMSfpXcTrRsz]")
_DATE_DIRECTIVES = re.compile(r"%[dFDxjaAbBheUWuwVG]")


# Template text (Jinja, Home Assistant templates) whose expressions read the clock or the
# devices' current states each time it is rendered: `{{ now().strftime(...) }}`,
# `{{ states('sensor.x') }}`, `{% for d in devices %}{{ d.state }}`.
RENDERED = "a template that renders"
_TEMPLATE_EXPR = re.compile(r"\{\{(.*?)\}\}|\{%(.*?)%\}", re.S)
_TEMPLATE_CLOCK = re.compile(r"\b(?:utc)?now\(\)")
_TEMPLATE_STATE = re.compile(r"\bstates\b|\bstate_attr\(|\bis_state\(|\.state\b")


# Entities whose state changes once a day at most (`binary_sensor.workday_sensor`): read per
# message, they write the same text all day, as a date does.
_ENTITY_ID = re.compile(r"""['"]([a-z_]+\.[a-z0-9_]+)['"]""")
_DAILY = frozenset({"workday", "holiday", "weekday", "weekend", "season", "date"})


def _daily_entities(expr: str) -> bool:
    """Every entity the expression names (`is_state('binary_sensor.workday_sensor', 'on')`)
    is one whose state changes once a day at most; none named is not daily."""
    ids = _ENTITY_ID.findall(expr)
    return bool(ids) and all(set(words(i.split(".", 1)[1])) & _DAILY for i in ids)


def rendered(node: ast.AST, text: str) -> Taints:
    """What template text puts into the prompt each time it is rendered: a clock reading or
    the current states of the things it lists (one taint of each kind, at the first expression
    that reads it)."""
    found: dict[str, int] = {}
    for m in _TEMPLATE_EXPR.finditer(text):
        expr = m.group(1) or m.group(2) or ""
        for kind, pattern in (("time", _TEMPLATE_CLOCK), ("runtime", _TEMPLATE_STATE)):
            if kind == "runtime" and _daily_entities(expr):
                continue
            if kind not in found and pattern.search(expr):
                found[kind] = text.count("\n", 0, m.start())
    out: set[Taint] = set()
    for kind, offset in found.items():
        what = "now()" if kind == "time" else "the current device states"
        t = at(node, kind, f"{RENDERED} {what} each time")
        if offset:
            line = t.line + offset
            t = replace(t, line=line, col=0, end_line=line, end_col=0)
        out.add(t)
    return frozenset(out)


def _downgrade(ts: Taints) -> Taints:
    """A clock reading reduced to its date."""
    return frozenset(
        replace(t, kind="date", desc=t.desc + " (date part)") if t.kind == "time" else t for t in ts
    )


# The words of a parameter named for the present moment.
_MOMENT_WORDS = frozenset({"time", "now", "current", "clock", "datetime", "dt", "utc", "local"})
# The words of a moment's name that say it is a reading (`current` alone or `local` is not).
_MOMENT_READINGS = frozenset({"time", "now", "datetime", "date", "today", "clock"})


# Owners whose attributes are pieces of prompt text (`prompts.alarm_clock`, `templates.x`).
_PROMPT_OWNERS = frozenset({"prompt", "prompts", "template", "templates"})


def _titled_by_name(value: ast.expr) -> bool:
    """A value whose name titles what it is rather than saying what it holds: a section of a
    prompt module read as an attribute (`prompts.alarm_clock` is text about an alarm, no
    clock reading), or an object made from a class (`GitHubKnowledgebase()`: a tool, no
    repository state)."""
    if isinstance(value, ast.Attribute) and isinstance(value.value, ast.Name):
        return bool(set(words(value.value.id)) & _PROMPT_OWNERS)
    if isinstance(value, ast.Call) and isinstance(value.func, ast.Name):
        n = value.func.id
        return n[:1].isupper() and not n.isupper() and not value.args and not value.keywords
    return False


def _by_format(ts: Taints, fmt: str | None) -> Taints:
    """A clock reading formatted with `fmt` (strftime directives)."""
    if fmt is None or _TIME_DIRECTIVES.search(fmt):
        return ts
    if _DATE_DIRECTIVES.search(fmt):
        return _downgrade(ts)
    # Only year/month directives: changes rarely.
    return drop(ts, {"time", "date"})


def _names_files(pattern: ast.expr) -> bool:
    """A glob pattern with no wildcard written in it (`glob(name)` of a configured file name or
    pattern list): it looks up files someone named, it does not list a tree."""
    return not any(
        isinstance(n, ast.Constant)
        and isinstance(n.value, str)
        and any(c in n.value for c in "*?[")
        for n in walk_cached(pattern)
    )


def _listed(node: ast.Call, desc: str, once: bool, glob: bool = False) -> set[Taint]:
    """A directory listing: which files it names, and their order (fixed by sorted()). A glob
    of named files keeps only the order: which files match changes when such a file is added
    or removed, not with the work."""
    order = replace(at(node, "listing", desc, once), fix_span=span(node))
    if glob and node.args and _names_files(node.args[0]):
        return {order}
    return {at(node, "filetree", desc, once), order}


def _with_fix(ts: Taints, arg: ast.expr, join: bool) -> Taints:
    """Unordered taints iterated as `arg`: wrapping `arg` in sorted() fixes them."""
    where = span(arg)
    return frozenset(
        replace(t, fix_span=where, fix_join=join)
        if t.kind == "unordered" and t.fix_span is None
        else t
        for t in ts
    )


# Calls that fetch content for a request (`search_text_memories(query=user_message)`,
# `retriever.invoke(question)`, `vector_store.similarity_search(query)`), by their words.
# Python names a fetch of context by its word as well (`get_context(query)`). A call of any
# other name handed the request itself is read by data flow (`Evaluator._made_from_request`).
_FETCH = FETCH_WORDS | {"context"}


# Builtins and owners whose calls handed the request pick nothing for the prompt: a
# conversion, a print, a log line, a copy or a check of the text.
_BUILTINS = frozenset(
    {"str", "repr", "print", "len", "isinstance", "type", "id", "hash", "list", "dict", "tuple"}
    | {"bool", "int", "float", "sorted", "reversed", "enumerate", "zip", "map", "filter"}
)
_NOT_PICKERS = frozenset({"logger", "log", "logging", "console", "print", "json", "re", "os"})
_STR_METHODS = frozenset(
    {"strip", "lstrip", "rstrip", "lower", "upper", "split", "replace", "encode", "startswith"}
    | {"endswith", "append", "extend", "add", "info", "debug", "warning", "error", "exception"}
)


def _builds_messages(fn: ast.AST) -> bool:
    """The function writes chat messages (`{"role": ...}`) or sends a list (`messages=`)."""
    for n in walk_cached(fn):
        if isinstance(n, ast.Dict) and any(const_str(k) == "role" for k in n.keys if k):
            return True
        if isinstance(n, ast.Call) and any(k.arg == "messages" for k in n.keywords):
            return True
    return False


# Names about the request but not its text (`question_count`, `user_system_prompt`).
# Names of a running summary of the conversation (`summary`, `session_summary`,
# `compressed_summary`); not a summary of skills, a document or a repository.
_SUMMARY_OF = frozenset(
    {"summary", "conversation", "chat", "history", "session", "thread", "running", "rolling"}
    | {"current", "previous", "prior", "memory", "dialog", "dialogue", "compressed", "archived"}
)


def _names_summary(name: str) -> bool:
    ws = words(name)
    return bool(ws) and ws[-1] == "summary" and set(ws) <= _SUMMARY_OF


# Records whose own summary is fixed text about them, not the conversation's running summary
# (`lecture.summary`, `document.summary`): a `lecture_summary` is not read as one either.
_DOCUMENTS = frozenset(
    {"lecture", "lesson", "course", "chapter", "document", "doc", "article", "paper", "book"}
    | {"page", "file", "video", "episode", "podcast", "post", "product", "meeting", "report"}
)


def _document_summary(value: ast.expr) -> bool:
    """`lecture.summary`: the summary field of a record named for a document."""
    node = value.func if isinstance(value, ast.Call) else value
    if not isinstance(node, ast.Attribute):
        return False
    return bool(set(words(last_name(node.value))) & _DOCUMENTS)


# Names of content retrieved for the current request (`memories`, `search_results`,
# `rag_context`); not what the user set once (`profile_context`, `system_context`).
_RETRIEVED_LAST = frozenset({"memories", "results", "documents", "chunks", "passages"})
# A memory that changes turn by turn (`short_term_memory`, `session_memory`); a project's or
# a user's memory (`project_memory`) is notes kept across sessions.
_TURN_MEMORY = frozenset({"short", "session", "working", "conversation", "chat", "thread"})
_FETCHED_CONTEXT = frozenset(
    {"search", "retrieved", "retrieval", "rag", "docs", "doc", "document", "memory", "web"}
    | {"relevant", "knowledge", "query", "results"}
)
_SETTLED = frozenset({"profile", "persona", "system", "settings", "instructions", "tool", "test"})


def _names_retrieved(name: str) -> bool:
    ws = words(name)
    if not ws or set(ws) & _SETTLED:
        return False
    return (
        ws[-1] in _RETRIEVED_LAST
        or (ws[-1] == "context" and bool(set(ws) & _FETCHED_CONTEXT))
        or (ws[-1] == "memory" and bool(set(ws) & _TURN_MEMORY))
    )


_NOT_THE_REQUEST = frozenset(
    {"count", "number", "num", "max", "min", "system", "prompt", "template", "schema"}
)
_CONVERSATION = frozenset({"messages", "history", "conversation", "msgs", "turns", "chat"})


def _newest_message(node: ast.Subscript) -> bool:
    """`messages[-1]`, `state["messages"][-1]`: the last message of a conversation."""
    sl = node.slice
    if not (
        isinstance(sl, ast.UnaryOp)
        and isinstance(sl.op, ast.USub)
        and isinstance(sl.operand, ast.Constant)
        and sl.operand.value == 1
    ):
        return False
    v = node.value
    if isinstance(v, ast.Subscript) and isinstance(v.slice, ast.Constant):
        name = str(v.slice.value)
    else:
        name = v.id if isinstance(v, ast.Name) else v.attr if isinstance(v, ast.Attribute) else ""
    ws = set(words(name))
    return bool(ws & _CONVERSATION) and "system" not in ws


def _fetches_for_request(node: ast.Call) -> bool:
    """A call named for a search or a recall (its method or the object it is called on) that
    is handed the current request: `memory.search(query=user_message)`, or the newest messages
    themselves (`memory.get_relevant_documents(str(messages[-10:]))`, `messages[-1]`)."""
    f = node.func
    names = [f.attr] if isinstance(f, ast.Attribute) else []
    if isinstance(f, ast.Attribute) and isinstance(f.value, (ast.Name, ast.Attribute)):
        names.append(f.value.id if isinstance(f.value, ast.Name) else f.value.attr)
    elif isinstance(f, ast.Name):
        names.append(f.id)
    if not any(set(words(n)) & _FETCH for n in names):
        return False
    if any(set(words(n)) & FETCH_WORDS for n in names) and any(
        _conversation_name(a) for a in node.args
    ):
        # `_retrieve_segment_context(channel_id, conversation_msgs, budget)`: a retrieval
        # handed the conversation itself searches by its newest turn, as one handed `[-1]`.
        return True
    for a in [*node.args, *(k.value for k in node.keywords)]:
        for n in walk_cached(a):
            name = (
                n.id if isinstance(n, ast.Name) else n.attr if isinstance(n, ast.Attribute) else ""
            )
            if names_request(name):
                return True
            if isinstance(n, ast.Subscript) and (_newest_message(n) or _newest_slice(n)):
                return True
    return False


# Names of the conversation's message list (`conversation_msgs`, `history`); `chat` and
# `session` also name ids and handles, and are left out.
_CONVERSATION = HISTORY_WORDS - {"chat", "session"}


def _conversation_name(arg: ast.expr) -> bool:
    """`conversation_msgs`, `self.history`: a name of the conversation's messages, not an id
    of one (`conversation_id`)."""
    name = (
        arg.id if isinstance(arg, ast.Name) else arg.attr if isinstance(arg, ast.Attribute) else ""
    )
    return bool(set(words(name)) & _CONVERSATION) and not identity_name(name)


def _newest_slice(node: ast.Subscript) -> bool:
    """`messages[-10:]`: the last messages of a conversation, the newest among them."""
    sl = node.slice
    if not (
        isinstance(sl, ast.Slice)
        and sl.upper is None
        and isinstance(sl.lower, ast.UnaryOp)
        and isinstance(sl.lower.op, ast.USub)
    ):
        return False
    v = node.value
    name = v.id if isinstance(v, ast.Name) else v.attr if isinstance(v, ast.Attribute) else ""
    ws = set(words(name))
    return bool(ws & _CONVERSATION) and "system" not in ws


def _mentions_git(node: ast.Call, consts: dict[str, str]) -> bool:
    for a in node.args[:1]:
        for sub in walk_cached(a):
            s = const_str(sub)
            if s is None and isinstance(sub, ast.Name):
                s = consts.get(sub.id)  # GIT = "git" (or a path to it)
            if s is not None and (s == "git" or s.startswith("git ") or s.endswith("/git")):
                return True
    return False


class Evaluator:
    """The taints of expressions over an environment (name -> taints), and their binding to
    assignment targets. Holds what the module's walk has learnt: the module-level names, the
    attributes of each class (`self.x`) and the function summaries."""

    def __init__(self, ctx: Context) -> None:
        self.ctx = ctx
        self.module_env: dict[str, Taints] = {}
        self.class_env: dict[str, dict[str, Taints]] = {}
        self.summaries: dict[str, Summary] = {}
        # Told of a call that passes a value to a parameter which reaches a sink (the value's
        # taints, where the parameter ends up, the call's line), in the reporting pass.
        self.argument_sink: Callable[[Taints, str, int], None] | None = None
        # Whether each function walked builds chat messages itself (`_builds_messages`).
        self._builders: dict[int, bool] = {}

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

    def union(self, nodes: Iterable[ast.AST | None], env: dict[str, Taints]) -> Taints:
        out: set[Taint] = set()
        for n in nodes:
            out |= self.ev(n, env)
        return frozenset(out)

    def ev_BoolOp(self, node: ast.BoolOp, env: dict[str, Taints]) -> Taints:
        out: set[Taint] = set()
        for i, v in enumerate(node.values):
            ts = self.ev(v, env)
            if (
                i
                and isinstance(node.op, ast.Or)
                and isinstance(v, ast.Call)
                and self.ctx.qualname(v.func) in _CWD
            ):
                # `workspace or Path.cwd()`: the directory stands in for the session's
                # workspace, chosen once when the session starts.
                ts = frozenset(t for t in ts if not t.desc.startswith(_CWD_DESC))
            out |= ts
        return frozenset(out)

    def ev_Constant(self, node: ast.Constant, env: dict[str, Taints]) -> Taints:
        if isinstance(node.value, str) and ("{{" in node.value or "{%" in node.value):
            return rendered(node, node.value)
        return EMPTY

    def ev_Name(self, node: ast.Name, env: dict[str, Taints]) -> Taints:
        ts = self.lookup(node.id, env)
        if not ts and node.id not in env and node.id not in self.module_env:
            origin = self.ctx.imports.get(node.id)
            if origin and "." in origin:
                return self.foreign(node, origin, False)  # `from .prompts import HEADER`
        return ts

    def ev_NamedExpr(self, node: ast.NamedExpr, env: dict[str, Taints]) -> Taints:
        ts = self.ev(node.value, env)
        self.bind(node.target, ts, env, replace_=False)  # `if x := f():` binds x
        return ts

    def ev_Lambda(self, node: ast.Lambda, env: dict[str, Taints]) -> Taints:
        return EMPTY

    def ev_Compare(self, node: ast.Compare, env: dict[str, Taints]) -> Taints:
        return EMPTY

    def ev_Subscript(self, node: ast.Subscript, env: dict[str, Taints]) -> Taints:
        if self.ctx.qualname(node.value) in _UNORDERED_MAPPINGS:
            return self.ev(node.slice, env)  # one entry, looked up by its key
        key = const_str(node.slice)
        if isinstance(node.value, ast.Name) and key is not None:
            fields = self.ctx.scope.dict_fields.get(node.value.id)
            if fields is not None and key in fields:
                # `persona["name"]` where `persona = {"id": uuid4(), "name": name}`: the field
                # read carries its own value, not the record's other fields.
                return fields[key]
        out = self.union((node.value, node.slice), env)
        if key is not None:
            out = read_field(out, key)  # `job["topic"]` of `{"topic": t, "created_at": now}`
        if const_str(node.slice) in _MESSAGE_TEXT and isinstance(node.value, ast.Subscript):
            out = out | self._newest_text(node.value)  # `messages[-1]["content"]`
        return out | self._device_state(node)

    def _device_state(self, node: ast.expr) -> Taints:
        """A smart-home entity's current state (`entity["state"]`), read at each request."""
        how = device_state(node)
        if how is None:
            return EMPTY
        desc = f"a device's current state (`{how}`)"
        return frozenset({at(node, "runtime", desc, not self.ctx.scope.in_function)})

    def _newest_text(self, node: ast.expr) -> Taints:
        """The text of the newest message (`messages[-1].content`): the turn this request
        answers (a question, a tool's results), different on every request."""
        if not isinstance(node, ast.Subscript) or not _newest_message(node):
            return EMPTY
        desc = f"the newest message (`{dotted(node.value) or 'messages'}[-1]`)"
        return frozenset({at(node, "retrieved", desc, not self.ctx.scope.in_function)})

    def ev_Attribute(self, node: ast.Attribute, env: dict[str, Taints]) -> Taints:
        if node.attr in _MESSAGE_TEXT:
            newest = self._newest_text(node.value)
            if newest:
                return newest | self.ev(node.value, env)
        q = self.ctx.qualname(node)
        if q in _UNORDERED_MAPPINGS:
            # Iterated, its order is the launcher's (environment) or the import path's
            # (modules): it differs between machines and runs.
            return frozenset(
                {
                    replace(
                        at(
                            node,
                            "unordered",
                            _UNORDERED_MAPPINGS[q],
                            not self.ctx.scope.in_function,
                        ),
                        fix_span=None,
                    )
                }
            )
        if isinstance(node.value, ast.Name) and node.value.id in ("self", "cls"):
            cls = self.ctx.scope.cls
            if cls is not None:
                return self.class_env.get(cls, {}).get(node.attr, EMPTY)
            return EMPTY
        member = self._module_member(node, self.ctx.qualname(node) or "", env, False)
        if member:
            return member
        base = self.ev(node.value, env)
        base = read_field(base, node.attr)  # `profile.info` of `Profile(info=i, created_at=now)`
        if node.attr in ("year", "month"):
            # A year or month in prose changes rarely; not a cache problem worth flagging.
            return drop(base, {"time", "date"})
        if node.attr in ("day", "weekday"):
            return _downgrade(base)
        return base

    def ev_Dict(self, node: ast.Dict, env: dict[str, Taints]) -> Taints:
        keys = [const_str(k) if k is not None else None for k in node.keys]
        names = frozenset(k for k in keys if k is not None)
        out: set[Taint] = set()
        for key, k_node, v in zip(keys, node.keys, node.values, strict=True):
            ts = self.ev(v, env)
            # A literal key is a field of the record the dict is (`{"created_at": now}`);
            # a `**splat` or a computed key is not known by name.
            out |= as_field(ts, key, names) if key is not None else ts | self.ev(k_node, env)
        return frozenset(out)

    def ev_JoinedStr(self, node: ast.JoinedStr, env: dict[str, Taints]) -> Taints:
        return self.union(node.values, env)

    def ev_FormattedValue(self, node: ast.FormattedValue, env: dict[str, Taints]) -> Taints:
        ts = self.named(node.value, self.ev(node.value, env), None)
        if node.format_spec is not None and isinstance(node.format_spec, ast.JoinedStr):
            spec = "".join(const_str(v) or "" for v in node.format_spec.values)
            if "%" in spec:
                ts = _by_format(ts, spec)
        return ts

    def ev_Set(self, node: ast.Set, env: dict[str, Taints]) -> Taints:
        return self.union(node.elts, env) | {
            at(node, "unordered", "a set literal", not self.ctx.scope.in_function)
        }

    def ev_SetComp(self, node: ast.SetComp, env: dict[str, Taints]) -> Taints:
        return self._comp(node, env) | {
            at(node, "unordered", "a set comprehension", not self.ctx.scope.in_function)
        }

    def ev_ListComp(self, node: ast.ListComp, env: dict[str, Taints]) -> Taints:
        return self._comp(node, env)

    def ev_GeneratorExp(self, node: ast.GeneratorExp, env: dict[str, Taints]) -> Taints:
        return self._comp(node, env)

    def ev_DictComp(self, node: ast.DictComp, env: dict[str, Taints]) -> Taints:
        inner, out = self._generators(node.generators, env)
        return frozenset(out | self.ev(node.key, inner) | self.ev(node.value, inner))

    def _comp(
        self, node: ast.ListComp | ast.SetComp | ast.GeneratorExp, env: dict[str, Taints]
    ) -> Taints:
        inner, out = self._generators(node.generators, env)
        return frozenset(out | self.ev(node.elt, inner))

    def _generators(
        self, generators: list[ast.comprehension], env: dict[str, Taints]
    ) -> tuple[dict[str, Taints], set[Taint]]:
        """A comprehension's scope after its `for` clauses, and the order taints of what they
        iterate: those go to the result, the loop targets are bound without them."""
        inner = dict(env)
        out: set[Taint] = set()
        for gen in generators:
            it = self.ev(gen.iter, inner)
            out |= {t for t in it if t.kind in ORDER}
            self.bind(gen.target, drop(it, ORDER), inner, replace_=True)
        return inner, out

    def ev_Call(self, node: ast.Call, env: dict[str, Taints]) -> Taints:
        out = self._call(node, env)
        if any(k.arg == "messages" for k in node.keywords):
            # A model's reply to a summariser's request is the new summary, not the old one
            # its prompt held: the summary is reported where it reaches a prompt itself.
            out = drop(out, {"summary"})
        f = node.func
        if (
            isinstance(f, ast.Attribute)
            and f.attr == "get"
            and node.args
            and const_str(node.args[0]) in _MESSAGE_TEXT
        ):
            out = out | self._newest_text(f.value)  # `messages[-1].get("content")`
        out = out | self._device_state(node)
        if _fetches_for_request(node):
            name = node.func.attr if isinstance(node.func, ast.Attribute) else dotted(node.func)
            desc = f"what `{name}(...)` fetched for the current request"
            out = out | {at(node, "retrieved", desc, not self.ctx.scope.in_function)}
        elif self._made_from_request(node, env):
            name = node.func.attr if isinstance(node.func, ast.Attribute) else dotted(node.func)
            desc = f"what `{name}(...)` made from the current request"
            out = out | {at(node, "retrieved", desc, False)}
        if (handed := self._summary_handed(node)) is not None:
            name = node.func.attr if isinstance(node.func, ast.Attribute) else dotted(node.func)
            desc = f"`{name}({handed})` (text made from a summary of the conversation)"
            out = out | {at(node, "summary", desc, False)}
        return out

    def _summary_handed(self, node: ast.Call) -> str | None:
        """`format_always_on_context(summary)`: a function whose body is not in view handed
        the conversation's running summary (a local named for it) returns text made from it,
        as the summary itself is reported where its name reaches a prompt. A builtin
        (`len(summary)`), a string method or a function of this module (followed instead) is
        no such text; the summary's name is that of its own value rule (`named`)."""
        if not self.ctx.scope.in_function:
            return None
        f = node.func
        if isinstance(f, ast.Name):
            if f.id in self.ctx.scope.local_funcs or f.id in self.summaries or f.id in _BUILTINS:
                return None
        elif not isinstance(f, ast.Attribute) or f.attr in _FILLS or f.attr in _STR_METHODS:
            return None
        for a in node.args:
            if isinstance(a, ast.Name) and _names_summary(a.id) and not _document_summary(a):
                return a.id
        return None

    def _made_from_request(self, node: ast.Call, env: dict[str, Taints]) -> bool:
        """A call whose body is not in view handed the current request as it came in (a
        parameter named for it, `select_prompts(user_query)`, `classify(question=query)`):
        what it returns is picked or computed for this request whatever the callee's name,
        so in the prefix it differs on every request. A callee whose body is read (a
        function of this module, a method of this class) is followed instead; a builtin, a
        method of the request itself (`query.strip()`) or of a logger is no such pick."""
        fn = self.ctx.scope.fn
        args = [*node.args, *(k.value for k in node.keywords if k.arg is not None)]
        if fn is None or not any(self._request_parameter(a, env) for a in args):
            return False
        if id(fn) not in self._builders:
            self._builders[id(fn)] = _builds_messages(fn)
        if self._builders[id(fn)]:
            # A function that builds the message list itself is read by the prefix flow,
            # which reports such a value where it is written into the list.
            return False
        f = node.func
        if isinstance(f, ast.Name):
            if f.id in self.ctx.scope.local_funcs or f.id in self.summaries:
                return False
            if f.id in _BUILTINS:
                return False
        elif isinstance(f, ast.Attribute):
            owner = last_name(f.value)
            own = isinstance(f.value, ast.Name) and f.value.id in ("self", "cls")
            if own and f"{self.ctx.scope.cls}.{f.attr}" in self.summaries:
                return False
            if not owner or set(words(owner)) & _NOT_PICKERS or names_request(owner):
                return False
            if f.attr in _FILLS or f.attr in _STR_METHODS:
                return False
        else:
            return False
        # Made from a value already picked for the request (`get_prompt(name)` over what a
        # selector picked): that pick is the finding; this call adds no other.
        return not any(t.kind == "retrieved" for t in self.union(args, env))

    def _request_parameter(self, arg: ast.expr, env: dict[str, Taints]) -> bool:
        """`user_query` as handed in, or a local made from it (`q = user_query.strip()`): a
        value that carries a parameter of this function named for the request."""
        if not isinstance(arg, ast.Name) or arg.id == "input":
            return False
        return any(
            t.kind == "param"
            and t.desc != "input"
            and names_request(t.desc)
            and not set(words(t.desc)) & _NOT_THE_REQUEST
            for t in env.get(arg.id, EMPTY)
        )

    def _call(self, node: ast.Call, env: dict[str, Taints]) -> Taints:
        q = self.ctx.qualname(node.func) or ""
        # A `**mapping` splat passes every key, but a callee such as a template's render()
        # uses only the keys its text names, unknown here: its values are not assumed to
        # reach the result (they do when the mapping is what is passed: `f(vars)`).
        kws = [k for k in node.keywords if k.arg is not None]
        if any(k.arg in _MESSAGE_TEXT for k in kws):
            # A message or part built with `content=` (`SystemPromptPart(content=...,
            # timestamp=now())`): only its text is sent; the rest is metadata.
            kws = [k for k in kws if k.arg in _MESSAGE_TEXT]
        elif not (isinstance(node.func, ast.Attribute) and node.func.attr in _FILLS):
            # An id handed to a call (`ToolContext(request_id=str(uuid4()))`) names the
            # request; what the call makes or fetches is not the id's text.
            kws = [k for k in kws if words(k.arg or "")[-1:] not in (["id"], ["ids"])]
        if _makes_record(node.func):
            # `ClientProfile(info=info, created_at=datetime.now())`: each keyword is a field of
            # the record made, known by its name where a field is read back (`profile.info`).
            names = frozenset(k.arg for k in node.keywords if k.arg is not None)
            args_t = self.union(node.args, env)
            for k in kws:
                args_t |= as_field(self.ev(k.value, env), k.arg or "", names)
        else:
            args_t = self.union([*node.args, *(k.value for k in kws)], env)
        for k in node.keywords:
            if k.arg is None:
                # Save the fields a splatted mapping names for the moment (`"CURRENT_TIME":
                # now`): a template is handed the current time under that name to show it.
                args_t |= self._splatted_moment(k.value, env)
        once = not self.ctx.scope.in_function
        # Sources.
        if q in _TIME:
            return args_t | {at(node, "time", _TIME[q], once)}
        if q in _DATE:
            return args_t | {at(node, "date", _DATE[q], once)}
        if q == "time.strftime" and len(node.args) == 1:
            return _by_format(
                frozenset({at(node, "time", "time.strftime()", once)}), const_str(node.args[0])
            )
        if q in _RANDOM or q.startswith(_RANDOM_PREFIXES):
            return args_t | {at(node, "random", q + "()", once)}
        if q in _RUNTIME or q.startswith("psutil."):
            return args_t | {at(node, "runtime", q + "()", once)}
        if q in _CWD and not once:
            return args_t | {at(node, "filetree", f"{_CWD_DESC} {q}()", once)}
        if q in _LISTING:
            return args_t | _listed(node, q + "()", once, glob=q.startswith("glob."))
        if q in _REGISTRIES:
            return args_t | {
                replace(
                    at(node, "listing", f"the plugin registry {q}()", once), fix_span=span(node)
                )
            }
        if q in _VCS_OBJECTS:
            return args_t | {at(node, "vcs", q + "()", once)}
        if q in _SUBPROCESS and _mentions_git(node, self.ctx.consts):
            return args_t | {at(node, "vcs", "git output via " + q + "()", once)}
        if q == "open" or (
            isinstance(node.func, ast.Attribute) and node.func.attr in ("read_text", "read_bytes")
        ):
            # A file's contents are not a listing, even when its path came from one.
            recv_t = (
                self.ev(node.func.value, env) if isinstance(node.func, ast.Attribute) else EMPTY
            )
            return drop(args_t | recv_t, {"filetree", "listing"}) | {
                at(node, "file", "file contents", once)
            }
        if isinstance(node.func, ast.Attribute) and node.func.attr == "open" and q != "os.open":
            # `(Path.cwd() / "pyproject.toml").open()`: a handle on a file the path names; what
            # is read from it is the file's, not the tree's (as `read_text()` above).
            return drop(args_t | self.ev(node.func.value, env), {"filetree", "listing"})
        # Order-changing builtins.
        if q == "sorted":
            return drop(args_t, ORDER)
        if q in _SCALAR_BUILTINS:
            return drop(args_t, ORDER)
        if q in ("set", "frozenset"):
            return args_t | {at(node, "unordered", q + "()", once)}
        if q in ("list", "tuple") and node.args:
            return _with_fix(args_t, node.args[0], join=False)
        if q == "json.dumps":
            sk = next((k for k in node.keywords if k.arg == "sort_keys"), None)
            if sk is not None and isinstance(sk.value, ast.Constant) and sk.value.value is True:
                # Sorted keys: a dict made here from a set's iteration dumps the same text.
                dumped = node.args[0] if node.args else None
                return drop(args_t, ORDER) if isinstance(dumped, ast.DictComp) else args_t
            if sk is not None and not isinstance(sk.value, ast.Constant):
                return args_t
            if not self._unstable_keys(node.args[0] if node.args else None, env):
                return args_t
            return args_t | {at(node, "json", "json.dumps() without sort_keys", once)}
        # Methods.
        if isinstance(node.func, ast.Attribute):
            found = self._module_member(node.func, q, env, True)
            if found:
                return args_t | found  # `helpers.now_str()` of `from . import helpers`
            made = _constructed_kind(node.func)
            if made is not None:
                desc = f"`{ast.unparse(node.func)}()` (a {made[1]} read when made)"
                return args_t | {at(node, made[0], desc, once)}
            if selects_rows(node, self.ctx.consts):
                # A read's parameters pick the rows; the rows hold what was stored.
                return self.ev(node.func.value, env)
            return self._method(node, node.func, args_t, env, once)
        local = self.ctx.scope.local_funcs
        if isinstance(node.func, ast.Name) and node.func.id in local:
            out: set[Taint] = set()
            for summ in local[node.func.id]:
                out |= self.apply_summary(summ, node, env, skip_self=False)
            return frozenset(out)
        if isinstance(node.func, ast.Name) and node.func.id in self.summaries:
            # What it returns, else its name (`_live_data_summary()` reads a database, which
            # no taint marks: its name says what it holds).
            got = self.apply_summary(self.summaries[node.func.id], node, env, skip_self=False)
            return self.named(node, got, None)
        origin = self.ctx.imports.get(node.func.id) if isinstance(node.func, ast.Name) else None
        if origin and "." in origin:
            # A function of another module of the project: what it returns.
            found = self.foreign(node, origin, True)
            if found:
                return args_t | found
        # A function of another module is known by its name (`get_tree_output(ws)`).
        return self.named(node, args_t, None)

    def foreign(self, node: ast.expr, origin: str, called: bool) -> Taints:
        """What a name of another module of the project carries (`origin`: its dotted name,
        called or not), placed at `node` (the finding belongs to this file) and saying where
        the value is made. A value bound at the other module's import stays computed once."""
        if self.ctx.foreign is None:
            return EMPTY
        once = not self.ctx.scope.in_function
        return frozenset(
            at(node, t.kind, t.desc, once or t.once) for t in self.ctx.foreign(origin, called)
        )

    def _module_member(
        self, node: ast.Attribute, q: str, env: dict[str, Taints], called: bool
    ) -> Taints:
        """`helpers.now_str` / `prompts.HEADER` where `helpers` names an imported module of
        the project (not a local value): what that module binds to the name."""
        head = node
        while isinstance(head, ast.Attribute):
            head = head.value  # type: ignore[assignment]
        if not isinstance(head, ast.Name) or head.id in env or head.id not in self.ctx.imports:
            return EMPTY
        if head.id in self.module_env or "." not in q:
            return EMPTY
        return self.foreign(node, q, called)

    def named(self, value: ast.expr, ts: Taints, name: str | None) -> Taints:
        """`ts`, plus a volatile taint when the value's name means one (`{today_str}`,
        `{get_git_status()}`, `.format(current_time=t)`) and nothing else marks it: a
        parameter or a value from another module is known only by its name."""
        if ts & {t for t in ts if t.kind in VOLATILE}:
            return ts
        if name is None and _titled_by_name(value):
            return ts
        if name is None:
            node = value.func if isinstance(value, ast.Call) else value
            name = last_name(node) or None
        kind = kind_of_name(name) if name else None
        if (
            kind is None
            and name
            and not isinstance(value, ast.Call)  # `read_user_text(path)` reads a file
            and name != "input"  # the bare input of a chain or a tool
            and names_request(name)
            and not set(words(name)) & _NOT_THE_REQUEST
            and any(t.kind == "param" for t in ts)
        ):
            # A parameter named for the current request (`query`, `user_msg.content`): what
            # the user asked this turn, as the TypeScript front end reads it.
            desc = f"`{name}` (the current request)"
            return ts | {at(value, "retrieved", desc, not self.ctx.scope.in_function)}
        fetched = [t for t in ts if t.kind == "param" and _names_retrieved(t.desc)]
        if kind is None and fetched and isinstance(value, ast.Name):
            # `def build_system_prompt(self, memories)`, then `f"- {memory}"` over them: a
            # parameter named for what was retrieved for this request, as in TypeScript.
            desc = f"`{fetched[0].desc}` (retrieved for this request)"
            return ts | {at(value, "retrieved", desc, False)}
        summary = (
            name is not None
            and _names_summary(name)
            and not name.split(".")[-1].isupper()
            and not _document_summary(value)
        )
        if kind is None and self.ctx.scope.in_function and summary:
            # `session_summary`, `result.summary`: the conversation's running summary, made
            # anew as the chat goes on (a module constant named so, or an upper-case
            # `prompts.SUMMARY`, is fixed text: the summariser's own instructions).
            desc = f"`{name}` (a summary of the conversation)"
            return ts | {at(value, "summary", desc, False)}
        if kind is None:
            return ts
        return ts | {at(value, kind, f"a value named `{name}`", not self.ctx.scope.in_function)}

    def moment_fields(self, value: ast.Dict, env: dict[str, Taints]) -> Taints:
        """The taints of the fields of a dict display whose literal key names the current
        moment (`CURRENT_TIME`, `current_date`, `now`; not `elapsed` or `created_at`)."""
        out: set[Taint] = set()
        for key, v in zip(value.keys, value.values, strict=True):
            ws = set(words(const_str(key) or "")) if key is not None else set()
            if ws and ws <= _MOMENT_WORDS | {"date", "today"} and ws & _MOMENT_READINGS:
                out |= self.ev(v, env)
        return frozenset(out)

    def _splatted_moment(self, value: ast.expr, env: dict[str, Taints]) -> Taints:
        if isinstance(value, ast.Dict):
            return self.moment_fields(value, env)
        if isinstance(value, ast.Name):
            return self.ctx.scope.moment_fields.get(value.id, EMPTY)
        return EMPTY

    def _unstable_keys(self, arg: ast.expr | None, env: dict[str, Taints]) -> bool:
        """Whether the key order of what json.dumps serialises may change between runs: the
        value carries an unordered source (a set's iteration, a directory listing). A dict
        written out with literal keys, here or as a module constant, keeps its order, and so
        does one handed in: a dict keeps the order its keys were inserted in, and the caller
        that builds it the same way each request builds it in the same order (every dump of a
        parameter the corpora hold was judged false: facts, tool results, parsed replies)."""
        if arg is None or isinstance(arg, (ast.Dict, ast.Constant, ast.JoinedStr)):
            return False
        if isinstance(arg, ast.Name) and (
            arg.id in self.ctx.scope.dict_literals
            or (arg.id in self.ctx.dict_consts and arg.id not in env)
        ):
            return False
        return bool(kinds(self.ev(arg, env)) & ORDER)

    def _method(
        self,
        node: ast.Call,
        func: ast.Attribute,
        args_t: Taints,
        env: dict[str, Taints],
        once: bool,
    ) -> Taints:
        meth = func.attr
        recv = self.ev(func.value, env)
        # `.walk()`/`.glob()` of a path object; a module's function of that name
        # (`ast.walk`) lists no files (os.walk and glob.glob are matched by name above).
        module_call = isinstance(func.value, ast.Name) and func.value.id in self.ctx.modules
        if meth in _LISTING_METHODS and not node.args[1:] and not module_call:
            return recv | args_t | _listed(node, f".{meth}()", once, glob=meth == "glob")
        if meth in ("now", "utcnow") and not node.args[1:]:
            # A clock object's reading (datetime, arrow, pendulum, a Clock protocol).
            desc = (dotted(func) or meth) + "()"
            return recv | args_t | {at(node, "time", desc, once)}
        clock = self._clock_parameter(func, recv)
        if clock is not None and meth in ("isoformat", "strftime"):
            # `def prompt(time, ...)` then `f"UTC time is {time.isoformat()}"`: the caller
            # hands the builder the live time, read here as a datetime.
            recv = recv | {at(node, "time", f"`{clock}.{meth}()` (the time handed in)", False)}
        if meth == "strftime":
            return _by_format(recv, const_str(node.args[0]) if node.args else None)
        if meth == "isoformat" and clock is not None:
            return recv
        if meth == "date":
            return _downgrade(recv)
        if meth == "format" and node.keywords:
            out = set(recv)
            for a in node.args:
                out |= self.named(a, self.ev(a, env), None)
            filled = self._template_fields(func.value)
            for k in node.keywords:
                if filled is not None and k.arg is not None and k.arg not in filled:
                    continue  # no `{name}` for it in the template: it reaches no text
                out |= self.named(k.value, self.ev(k.value, env), k.arg)
            return frozenset(out)
        if (
            meth in _FILLS
            and len(node.args) == 1
            and isinstance(node.args[0], ast.Dict)
            and not node.keywords
        ):
            # `template.format({"today_date": d, "question": query})`: a template filled from
            # a mapping written out; each value is known by its slot's name, as a keyword is.
            out = set(recv)
            for key, v in zip(node.args[0].keys, node.args[0].values, strict=True):
                slot = const_str(key) if key is not None else None
                out |= self.named(v, self.ev(v, env), slot) if slot else self.ev(v, env)
            return frozenset(out)
        if meth == "join" and node.args:
            return recv | _with_fix(self.ev(node.args[0], env), node.args[0], join=True)
        if meth in ("sort",):
            return EMPTY
        if meth in ("get", "pop", "setdefault") and (
            self.ctx.qualname(func.value) in _UNORDERED_MAPPINGS
        ):
            return args_t  # one entry, looked up by its key
        if meth == "get" and node.args and (field_name := const_str(node.args[0])) is not None:
            return read_field(recv, field_name) | args_t  # `job.get("topic")`: that field alone
        if isinstance(func.value, ast.Name) and func.value.id in ("self", "cls"):
            summ = self.summaries.get(f"{self.ctx.scope.cls}.{meth}")
            if summ is not None:
                return self.apply_summary(summ, node, env, skip_self=True)
        return recv | args_t

    def _template_fields(self, template: ast.expr) -> frozenset[str] | None:
        """The fields of the template `.format` fills, where its text is known: a string
        literal, or a name bound only to string literals in this file (and to its own filled
        text); None otherwise."""
        text = const_str(template)
        if text is not None:
            return format_fields(text)
        if isinstance(template, ast.Name):
            return self.ctx.format_fields.get(template.id)
        return None

    def _clock_parameter(self, func: ast.Attribute, recv: Taints) -> str | None:
        """The name of a parameter named for the moment (`time`, `now`, `current_time`; not
        a record's `created_at` or a `due_date`) that the function reads as a datetime."""
        value = func.value
        if not isinstance(value, ast.Name) or not self.ctx.scope.in_function:
            return None
        if kinds(recv) & VOLATILE or not any(
            t.kind == "param" and t.desc == value.id for t in recv
        ):
            return None
        ws = set(words(value.id))
        return value.id if ws and ws <= _MOMENT_WORDS else None

    @staticmethod
    def _arguments(summ: Summary, node: ast.Call, skip_self: bool) -> dict[str, ast.expr]:
        params = summ.params[1:] if (summ.is_method and skip_self) else summ.params
        amap: dict[str, ast.expr] = dict(zip(params, node.args, strict=False))
        for k in node.keywords:
            if k.arg is not None:
                amap[k.arg] = k.value
        return amap

    def _resolve(self, ts: Taints, amap: dict[str, ast.expr], env: dict[str, Taints]) -> Taints:
        """A summary's taints with each `param` taint replaced by that argument's."""
        out: set[Taint] = set()
        for t in ts:
            if t.kind == "param":
                if t.desc in amap:
                    out |= self.ev(amap[t.desc], env)
            else:
                out.add(t)
        return frozenset(out)

    def elements(self, node: ast.expr, env: dict[str, Taints]) -> list[Taints] | None:
        """The taints of each element of a tuple value: a tuple display, or a call to a
        function of the module whose every return is a tuple of one length. None when the
        value is not known element by element."""
        if isinstance(node, ast.Await):
            node = node.value
        if isinstance(node, (ast.Tuple, ast.List)):
            if any(isinstance(e, ast.Starred) for e in node.elts):
                return None
            return [self.ev(e, env) for e in node.elts]
        if not isinstance(node, ast.Call):
            return None
        summ: Summary | None = None
        skip_self = False
        func = node.func
        if isinstance(func, ast.Name):
            local = self.ctx.scope.local_funcs.get(func.id)
            if local and len(local) == 1:
                summ = local[0]
            elif not local:
                summ = self.summaries.get(func.id)
        elif (
            isinstance(func, ast.Attribute)
            and isinstance(func.value, ast.Name)
            and func.value.id in ("self", "cls")
        ):
            summ = self.summaries.get(f"{self.ctx.scope.cls}.{func.attr}")
            skip_self = True
        if summ is None or summ.elts is None or summ.elts_mixed:
            return None
        amap = self._arguments(summ, node, skip_self)
        return [self._resolve(e, amap, env) for e in summ.elts]

    def apply_summary(
        self, summ: Summary, node: ast.Call, env: dict[str, Taints], skip_self: bool
    ) -> Taints:
        amap = self._arguments(summ, node, skip_self)
        out: set[Taint] = set(self._resolve(summ.returns, amap, env))
        if self.ctx.reporting and summ.param_sinks and self.argument_sink is not None:
            # A sink evaluated here may summarise a function that adds to this map (recursion).
            for p, where in list(summ.param_sinks.items()):
                if p in amap:
                    # The parameter's name says what the caller hands over where the argument
                    # is a value of its own (`self._get_system_prompt(screen_info=parsed)`).
                    ts = self.named(amap[p], self.ev(amap[p], env), p)
                    self.argument_sink(ts, where, node.lineno)
        return frozenset(out)

    # --- binding -------------------------------------------------------------------------------

    def bind(self, target: ast.AST, ts: Taints, env: dict[str, Taints], replace_: bool) -> None:
        """Bind `ts` to an assignment target: replacing what a name held, or adding to it."""
        if isinstance(target, ast.Name):
            env[target.id] = ts if replace_ else env.get(target.id, EMPTY) | ts
        elif isinstance(target, (ast.Tuple, ast.List)):
            for e in target.elts:
                self.bind(e, ts, env, replace_)
        elif isinstance(target, ast.Starred):
            self.bind(target.value, ts, env, replace_)
        elif isinstance(target, ast.Attribute):
            if isinstance(target.value, ast.Name) and target.value.id in ("self", "cls"):
                self._bind_attr(target.attr, ts)
            else:
                base = dotted(target.value)
                if base and "." not in base and "(" not in base:
                    env[base] = env.get(base, self.lookup(base, env)) | ts
        elif isinstance(target, ast.Subscript):
            base = dotted(target.value)
            if base and "(" not in base:
                if base.startswith(("self.", "cls.")) and self.ctx.scope.cls is not None:
                    self._bind_attr(base.split(".", 1)[1], ts)
                else:
                    env[base] = self.lookup(base, env) | ts

    def _bind_attr(self, attr: str, ts: Taints) -> None:
        """Add `ts` to the attribute `attr` of the walked method's class (`self.attr`)."""
        cls = self.ctx.scope.cls
        if cls is not None:
            # A parameter's taint stands for one method's argument: read back in another
            # method, `user_input` would name that method's parameter of the same name.
            ts = frozenset(t for t in ts if t.kind != "param")
            cenv = self.class_env.setdefault(cls, {})
            cenv[attr] = cenv.get(attr, EMPTY) | ts


# First words of a class's constructor that reads the state it is named for when called
# (`DirectoryStructure.from_dir(path)`, `GitStatus.load(repo)`, `Snapshot.capture()`).
_READING_CONSTRUCTORS = frozenset(
    {"from", "load", "read", "scan", "collect", "capture", "snapshot", "current", "now"}
)


def _makes_record(func: ast.expr) -> bool:
    """Whether a call makes an object of a class named in CamelCase (`ClientProfile(...)`,
    `models.Job(...)`), whose keywords are its fields; not a constant's call (`MODE(...)`)."""
    name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
    return name[:1].isupper() and not name.isupper()


def _constructed_kind(func: ast.Attribute) -> tuple[str, str] | None:
    """A class's reading constructor called (`DirectoryStructure.from_dir(...)`): the value
    is what the class is named for, read as the class's name; (kind, class name)."""
    if (
        isinstance(func.value, ast.Name)
        and func.value.id[:1].isupper()
        and not func.value.id.isupper()
        and (words(func.attr) or [""])[0] in _READING_CONSTRUCTORS
    ):
        found = kind_of_name(func.value.id)
        if found is not None:
            return found, func.value.id
    return None
