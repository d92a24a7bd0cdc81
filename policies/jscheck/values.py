"""What a TypeScript/JavaScript expression carries: the volatile values (a clock reading, a date,
a random id, git output, a file listing, editor state, runtime statistics) and the orders from
outside the program (a directory listing, the environment's keys) that reach it.

Values are followed as the Python analysis follows them: through template literals, `+` and
`+=`, arrays and the `push`es into them, `.join`, `.replace(slot, value)`, local and module
bindings, class fields (`this.x = ...`), the return values of the file's functions (arguments
bound to their parameters) and, through a loader the engine supplies, bindings and functions
imported from other files of the project. A name with no value of its own is read by its
meaning (`currentBranch`, `todayStr`, `openTabs`: see `meaning`).
"""

# pure: imports no I/O (tests/test_layout.py checks it)

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from tree_sitter import Node

from ..meaning import (
    FETCH_WORDS,
    VOLATILE_CODES,
    identity_name,
    kind_of_name,
    metadata_field,
    names_device,
    names_request,
    words,
)
from .syntax import (
    FUNCTIONS,
    Source,
    arguments,
    callee_name,
    key_name,
    project_module,
    scope_of,
    string_value,
    unwrap,
    value_name,
    walk,
)

VOLATILE = frozenset({"time", "date", "random", "vcs", "filetree", "runtime"})
# What was fetched for the current request (a search, a memory recall, retrieved documents):
# it differs on every request, so in a system prompt it moves the history's start (PL304).
RETRIEVED = "retrieved"
ORDER = frozenset({"listing", "unordered"})
CODE_OF = VOLATILE_CODES | {
    "unordered": "PL201",
    "listing": "PL203",
    RETRIEVED: "PL304",
}


# Functions that return a file's contents given its path (Node's fs, Deno).
_READ_FILE = frozenset({"readFile", "readFileSync", "readTextFile", "readTextFileSync"})


@dataclass(frozen=True)
class Taint:
    kind: str  # a key of CODE_OF, or "param" (the function's parameter number `line`)
    line: int
    what: str  # the source text that makes the value
    path: str = ""  # the other file it is made in, when imported
    # A parameter read by its name (`datetime`): the position of that parameter, so that a
    # call handing it an argument reads the argument instead; -1 for every other taint.
    param: int = -1


Taints = frozenset[Taint]
EMPTY: Taints = frozenset()

_CLOCK_CALLS = {
    "Date.now": "time",
    "performance.now": "time",
    "process.hrtime": "runtime",
    "process.uptime": "runtime",
    "process.memoryUsage": "runtime",
    "process.cpuUsage": "runtime",
    "os.loadavg": "runtime",
    "os.freemem": "runtime",
    "os.uptime": "runtime",
    "os.cpus": "runtime",
    "Math.random": "random",
    "crypto.randomUUID": "random",
    "crypto.randomBytes": "random",
    # The working directory: a tool's `cd` or a workspace switch changes it mid-session.
    "process.cwd": "filetree",
}
_RANDOM_FUNCS = frozenset(
    {"randomUUID", "uuidv4", "uuid", "v4", "nanoid", "randomBytes", "ulid", "cuid", "createId"}
)
_NOW_FUNCS = frozenset({"dayjs", "moment"})
_SHELL_FUNCS = frozenset(
    {"execSync", "exec", "execa", "execaSync", "spawnSync", "spawn", "execFileSync", "execFile"}
)
_LISTING_FUNCS = frozenset(
    {
        "readdirSync",
        "readdir",
        "opendirSync",
        "opendir",
        "globSync",
        "glob",
        "fg",
        "fastGlob",
        "globby",
        "globbySync",
    }
)
# Methods that turn a clock reading into a date (`toISOString().split("T")[0]` also does).
_DATE_METHODS = frozenset({"toLocaleDateString", "toDateString", "getDate", "getDay"})
_MESSAGE_TEXT = frozenset({"content", "text", "parts", "contentParts"})
# Template engines' fill calls: the first argument is the template, the rest its slot values.
# Where a request comes from, read from the incoming HTTP request: it differs per request.
_CLIENT_STATE = frozenset({"geolocation", "geo", "ip", "location", "address"})
# Names of retrieved content, read as a whole value (`${memories}`, `searchResults`); `context`
# counts only as a whole name (`context.variables` is the state of a run, not its results).
_RETRIEVED_WORDS = frozenset({"results", "memories", "memory", "documents", "chunks", "passages"})
# What makes a `...Context` fetched: `searchContext`, `retrievedContext`, `docsContext`.
_FETCHED_CONTEXT = frozenset(
    {"search", "retrieved", "retrieval", "rag", "docs", "doc", "document", "memory", "web"}
    | {"relevant", "knowledge", "query", "results"}
    # `toolContext`: what a tool fetched for this reply (not `toolsContext`, a catalogue)
    | {"tool"}
)
# Reads of an incoming HTTP request's body (`await req.json()`, `await request.formData()`).
_BODY_READS = frozenset({"json", "formData"})
_BODY = "the request body"
# Fields of a request's body that configure the call, not its content (`model`, `stream`),
# and the settings a client sends alike with every request of a conversation: its language and
# the kind of task it is about (`language`, `locale`, `taskType`).
_BODY_CONFIG = frozenset(
    {"model", "stream", "temperature", "provider", "options", "config"}
    | {"language", "lang", "locale", "type"}
)
# What a date or time is of when its name says (`startDate`, `dueDate`, `createdAt`): a fact of
# a record (a trip, a task, a file), not a clock read, though only the name is seen.
_EVENT_BOUNDS = frozenset(
    {"start", "end", "due", "birth", "departure", "arrival", "expiry", "expiration"}
    | {"deadline", "release", "created", "updated", "modified", "published"}
)
# What the user has selected or open in a document app (a spreadsheet's range, a deck's slide).
_VIEWING = frozenset({"current", "active", "selected", "focused"})
_SHEET_PARTS = frozenset({"range", "worksheet", "sheet", "cell", "cells", "slide"})
# A running count of a person's exchanges (`callCount`, `interactionCount`, `totalMessages`):
# the store advances it after every reply, so it differs on the next request.
_EXCHANGES = frozenset({"interaction", "interactions", "call", "calls", "visit", "visits"})
_TALLIES = frozenset({"count", "total", "number", "num"})
_SETTLED_WORDS = frozenset({"profile", "persona", "system", "settings", "instructions", "tool"})
# Whose name a request may carry (`guestName`, `userName`): the person the conversation is
# with, the same on every turn of it.
_PEOPLE = frozenset({"guest", "user", "customer", "client", "caller", "visitor", "patient"})


def _person_name(name: str) -> bool:
    ws = words(name)
    return len(ws) == 2 and ws[1] == "name" and ws[0] in _PEOPLE


_RENDERS = frozenset({"render", "renderString", "fill", "interpolate", "compile"})
_SORTS = frozenset({"sort", "toSorted", "sortBy", "orderBy", "localeCompare"})
# Editor state an extension reads: which files are open, visible or active changes as the
# user works.
_EDITOR = re.compile(
    r"\b(activeTextEditor|visibleTextEditors|textDocuments|tabGroups|activeTab|"
    r"activeNotebookEditor|activeEditor|visibleEditors|openEditors|isAttachedToEditor)\b"
)
_SLOT = re.compile(r"\{\{?\s*[A-Za-z_][\w.]*\s*\}\}?|\$\{[A-Za-z_]\w*\}|%[A-Za-z_]\w*%|<[A-Z_]+>")
_GIT = re.compile(r"^\s*git\b")

Loader = Callable[[str, str], "Module | None"]  # (from file, specifier) -> module


class Module:
    """One file's bindings, read once: what each name is assigned (per function scope),
    functions by name, class fields, imports and exports."""

    def __init__(self, src: Source, load: Loader | None = None) -> None:
        self.src = src
        self.load = load
        self.values: dict[tuple[int, str], list[Node]] = {}
        self.functions: dict[tuple[int, str], Node] = {}
        self.imports: dict[str, tuple[str, str]] = {}  # local name -> (specifier, name)
        # Names exported under another name (`export { stamp as NOW }`: NOW -> stamp) or from
        # another file (`export { a as b } from "./x"`: b -> ("./x", a)), and the files whose
        # every export this one passes on (`export * from "./x"`, an index file's).
        self.renamed: dict[str, str] = {}
        self.reexports: dict[str, tuple[str, str]] = {}
        self.star_exports: list[str] = []
        self.sorted_later: set[tuple[int, str]] = set()
        self._evaluators: dict[int, Evaluator] = {}
        self._index()

    def evaluator(self, depth: int) -> Evaluator:
        """The evaluator of this module as an imported one (`depth` imports away from the
        linted file), shared by every file of the run that imports it: what its names carry
        and its functions return is worked out once."""
        if depth not in self._evaluators:
            self._evaluators[depth] = Evaluator(self, depth)
        return self._evaluators[depth]

    def _bind(self, scope: Node, name: str, value: Node | None) -> None:
        if value is None:
            # `let memories: string`: declared here, assigned later; the name belongs to this
            # scope, not to the module (a later `memories = ...` binds here).
            self.values.setdefault((scope.id, name), [])
            return
        v = unwrap(value)
        if v.type in FUNCTIONS:
            self.functions.setdefault((scope.id, name), v)
            return
        self.values.setdefault((scope.id, name), []).append(value)

    def _index(self) -> None:
        src = self.src
        for n in walk(src.root):
            t = n.type
            if t == "variable_declarator":
                name = n.child_by_field_name("name")
                value = n.child_by_field_name("value")
                if name is not None and name.type == "identifier":
                    self._bind(scope_of(n), src.text(name), value)
                elif name is not None and name.type == "object_pattern" and value is not None:
                    self._destructure(n, name, value)
            elif t in ("assignment_expression", "augmented_assignment_expression"):
                left = n.child_by_field_name("left")
                right = n.child_by_field_name("right")
                if left is None:
                    continue
                if left.type == "identifier":
                    self._bind(self._owner_scope(n, src.text(left)), src.text(left), right)
                elif left.type == "member_expression":
                    obj = left.child_by_field_name("object")
                    if obj is not None and obj.type == "this":
                        self._bind(
                            src.root,
                            "this." + src.text(left.child_by_field_name("property")),
                            right,
                        )
            elif t in ("function_declaration", "generator_function_declaration"):
                name = n.child_by_field_name("name")
                if name is not None:
                    self.functions.setdefault((scope_of(n).id, src.text(name)), n)
            elif t == "method_definition":
                name = n.child_by_field_name("name")
                if name is not None:
                    self.functions.setdefault((src.root.id, "this." + src.text(name)), n)
            elif t in ("public_field_definition", "field_definition"):
                name = n.child_by_field_name("name") or n.child_by_field_name("property")
                value = n.child_by_field_name("value")
                if name is not None:
                    self._bind(src.root, "this." + src.text(name), value)
            elif t == "call_expression":
                self._index_call(n)
                self._index_callback(n)
            elif t == "for_in_statement":
                # `for (const [name, value] of Object.entries(vars))`: the loop's names carry
                # what the collection carries.
                left = n.child_by_field_name("left")
                right = n.child_by_field_name("right")
                if left is not None and right is not None:
                    for local in _pattern_names(src, left):
                        self._bind(scope_of(n), local, right)
            elif t == "import_statement":
                self._index_import(n)
            elif t == "export_statement" and n.parent is not None and n.parent.parent is None:
                self._index_export(n)

    def _index_export(self, n: Node) -> None:
        spec = string_value(self.src, n.child_by_field_name("source"))
        clause = next((c for c in n.named_children if c.type == "export_clause"), None)
        if clause is None:
            if spec is not None and any(c.type == "*" for c in n.children):
                self.star_exports.append(spec)  # `export * from "./x"`
            elif spec is not None:
                for c in n.named_children:
                    if c.type == "namespace_export":  # `export * as ns from "./x"`
                        ids = [x for x in c.named_children if x.type == "identifier"]
                        if ids:
                            self.reexports[self.src.text(ids[0])] = (spec, "*")
            return
        for c in clause.named_children:
            if c.type != "export_specifier":
                continue
            name = c.child_by_field_name("name")
            alias = c.child_by_field_name("alias") or name
            if name is None or alias is None:
                continue
            if spec is not None:
                self.reexports[self.src.text(alias)] = (spec, self.src.text(name))
            elif self.src.text(alias) != self.src.text(name):
                self.renamed[self.src.text(alias)] = self.src.text(name)

    def _owner_scope(self, node: Node, name: str) -> Node:
        """The scope that declares `name`, seen from `node` (the program when none does)."""
        s: Node | None = scope_of(node)
        while s is not None:
            if (s.id, name) in self.values or (s.id, name) in self.functions:
                return s
            if s.parent is None:
                return s
            s = scope_of(s)
        return self.src.root

    def _destructure(self, decl: Node, pattern: Node, value: Node) -> None:
        # `const { a, b: c } = require("./x")` imports; `const { a } = obj` reads obj.
        v = unwrap(value)
        spec = None
        if v.type == "call_expression" and callee_name(self.src, v) == "require":
            args = arguments(v)
            spec = string_value(self.src, args[0]) if args else None
        for p in pattern.named_children:
            if p.type == "shorthand_property_identifier_pattern":
                local = remote = self.src.text(p)
            elif p.type == "pair_pattern":
                remote = key_name(self.src, p.child_by_field_name("key")) or ""
                val = p.child_by_field_name("value")
                local = self.src.text(val) if val is not None and val.type == "identifier" else ""
            else:
                continue
            if not local:
                continue
            if spec is not None:
                self.imports[local] = (spec, remote)
            else:
                self._bind(scope_of(decl), local, value)

    def _index_call(self, n: Node) -> None:
        fn = n.child_by_field_name("function")
        if fn is None or fn.type != "member_expression":
            return
        obj = fn.child_by_field_name("object")
        prop = self.src.text(fn.child_by_field_name("property"))
        if obj is None or obj.type != "identifier":
            return
        name = self.src.text(obj)
        if prop in ("push", "unshift", "concat"):
            scope = self._owner_scope(n, name)
            for a in arguments(n):
                self._bind(scope, name, a)
        elif prop in ("sort",):
            self.sorted_later.add((self._owner_scope(n, name).id, name))

    def _index_callback(self, n: Node) -> None:
        """`Object.entries(vars).forEach(([name, value]) => ...)`, `items.map((x) => ...)`: the
        callback's element parameter carries what the collection carries."""
        fn = n.child_by_field_name("function")
        if fn is None or fn.type != "member_expression":
            return
        prop = self.src.text(fn.child_by_field_name("property"))
        at = _ELEMENT_PARAM.get(prop)
        obj = fn.child_by_field_name("object")
        args = arguments(n)
        if at is None or obj is None or not args:
            return
        cb = unwrap(args[0])
        if cb.type not in ("arrow_function", "function_expression"):
            return
        params = cb.child_by_field_name("parameters")
        if params is None:
            one = cb.child_by_field_name("parameter")  # `x => ...`
            plist = [one] if one is not None else []
        else:
            plist = [p for p in params.named_children if p.type != "comment"]
        if len(plist) <= at:
            return
        for name in _pattern_names(self.src, plist[at]):
            self._bind(cb, name, obj)

    def _index_import(self, n: Node) -> None:
        source = n.child_by_field_name("source")
        spec = string_value(self.src, source)
        if spec is None:
            return
        for c in walk(n):
            if c.type == "import_specifier":
                name = c.child_by_field_name("name")
                alias = c.child_by_field_name("alias") or name
                if name is not None and alias is not None:
                    self.imports[self.src.text(alias)] = (spec, self.src.text(name))
            elif c.type == "namespace_import":
                ids = [x for x in c.named_children if x.type == "identifier"]
                if ids:
                    self.imports[self.src.text(ids[0])] = (spec, "*")
            elif c.type == "import_clause":
                for x in c.named_children:
                    if x.type == "identifier":
                        self.imports[self.src.text(x)] = (spec, "default")

    # --- lookups ---------------------------------------------------------------------------

    def lookup(self, node: Node, name: str) -> tuple[Node | None, list[Node] | None, Node | None]:
        """(scope, values, function) bound to `name` as seen from `node`."""
        s: Node | None = scope_of(node) if node.parent is not None else node
        while s is not None:
            vals = self.values.get((s.id, name))
            fn = self.functions.get((s.id, name))
            if vals is not None or fn is not None:
                return s, vals, fn
            if s.parent is None:
                break
            s = scope_of(s)
        return None, None, None

    def export(self, name: str) -> tuple[list[Node] | None, Node | None]:
        """What a top-level name of this module is bound to (`default` too)."""
        root = self.src.root
        if name == "default":
            for n in root.named_children:
                if n.type == "export_statement":
                    d = n.child_by_field_name("declaration") or n.child_by_field_name("value")
                    if d is not None and d.type in FUNCTIONS:
                        return None, d
                    if d is not None and d.type == "identifier":
                        name = self.src.text(d)
                        break
                    if d is not None:
                        return [d], None
        return self.values.get((root.id, name)), self.functions.get((root.id, name))


class Evaluator:
    """The taints of expressions of one module (and of the modules it imports)."""

    def __init__(self, module: Module, depth: int = 0, cache: dict[str, Module] | None = None):
        self.m = module
        self.src: Source = module.src
        self.depth = depth
        self._memo: dict[int, Taints] = {}
        self._busy: set[int] = set()
        self._returns: dict[int, Taints] = {}
        self._others: dict[str, Evaluator | None] = {}

    # --- the entry point -------------------------------------------------------------------

    def taints(self, node: Node | None) -> Taints:
        if node is None:
            return EMPTY
        key = node.id
        got = self._memo.get(key)
        if got is not None:
            return got
        if key in self._busy:
            return EMPTY
        self._busy.add(key)
        try:
            out = self._eval(node)
        finally:
            self._busy.discard(key)
        self._memo[key] = out
        return out

    def _union(self, nodes: Iterable[Node | None]) -> Taints:
        out: set[Taint] = set()
        for n in nodes:
            out |= self.taints(n)
        return frozenset(out)

    def _make(self, kind: str, node: Node) -> Taints:
        return frozenset({Taint(kind, self.src.pos(node)[0], _short(self.src.text(node)))})

    # --- expressions -----------------------------------------------------------------------

    def _eval(self, node: Node) -> Taints:
        t = node.type
        src = self.src
        if t in ("string", "number", "true", "false", "null", "undefined", "regex", "comment"):
            return EMPTY
        if t in FUNCTIONS or t in ("class", "class_declaration"):
            return EMPTY
        if t in (
            "parenthesized_expression",
            "await_expression",
            "as_expression",
            "satisfies_expression",
            "non_null_expression",
            "type_assertion",
            "spread_element",
            "template_substitution",
            "sequence_expression",
        ):
            kids = [c for c in node.named_children if not c.type.startswith("type")]
            if t in ("as_expression", "satisfies_expression") and kids:
                return self.taints(kids[0])  # `x as A & { b?: B }`: the value, not its type
            return self.taints(kids[-1]) if kids else EMPTY
        if t == "template_string":
            return self._union(c for c in node.named_children if c.type == "template_substitution")
        if t == "binary_expression":
            op = src.text(node.child_by_field_name("operator"))
            if op in ("+", "||", "??"):
                return self._union(
                    [node.child_by_field_name("left"), node.child_by_field_name("right")]
                )
            return EMPTY
        if t == "ternary_expression":
            return self._union(
                [node.child_by_field_name("consequence"), node.child_by_field_name("alternative")]
            )
        if t == "object" and _is_message(src, node):
            # A chat message: only its text is sent; `id`, `date` and the like are metadata.
            return self._union(
                c.child_by_field_name("value")
                for c in node.named_children
                if c.type == "pair" and key_name(src, c.child_by_field_name("key")) in _MESSAGE_TEXT
            )
        if t == "object":
            # An id or a creation time of a record (`{ id, text, createdAt: Date.now() }`)
            # names or dates it; the record's text is the rest.
            return self._union(
                c.child_by_field_name("value") if c.type == "pair" else c
                for c in node.named_children
                if not _metadata_key(src, c)
            )
        if t == "array":
            return self._union(node.named_children)
        if t == "shorthand_property_identifier":
            return self._name(node, src.text(node))
        if t == "identifier":
            return self._name(node, src.text(node))
        if t == "member_expression":
            return self._member(node)
        if t == "subscript_expression":
            return self.taints(node.child_by_field_name("object"))
        if t == "new_expression":
            return self._new(node)
        if t == "call_expression":
            return self._call(node)
        if t == "jsx_expression":
            return self._union(node.named_children)
        return EMPTY

    def _name(self, node: Node, name: str) -> Taints:
        if name in ("undefined", "NaN", "Infinity"):
            return EMPTY
        scope, vals, fn = self.m.lookup(node, name)
        if vals is not None and scope is not None:
            vals = bound_before(vals, node, scope)
        if vals:
            got = self._union(vals)
            if (
                set(words(name)) & (_SETTLED_WORDS | _BODY_CONFIG)
                or words(name)[-1:] in (["id"], ["ids"])
                or _person_name(name)
            ):
                # `const { systemPrompt, userId } = await req.json()`: a field the client sets
                # once for a conversation, not content of this request.
                got = frozenset(x for x in got if x.kind != RETRIEVED or x.what != _BODY)
            elif any(_destructured(v) for v in vals):
                # `const { format } = await req.json()`: each field of the body is a value of
                # its own, named for itself.
                got = frozenset(
                    Taint(x.kind, x.line, name, x.path, x.param)
                    if x.kind == RETRIEVED and x.what == _BODY
                    else x
                    for x in got
                )
            if scope is not None and (scope.id, name) in self.m.sorted_later:
                got = frozenset(x for x in got if x.kind not in ORDER)
            if got and any(x.kind != "param" for x in got):
                return got
            if got:
                # `memories = await store.search([ns, config.userId])`: a fetch whose only taint
                # is a parameter handed to it is still named for what it fetched.
                got = got | self._retrieved_name(node, name, vals)
                if any(_destructured(v) for v in vals) and _says_current(name):
                    # `const { currentTime } = userContext`: a field of what the caller
                    # handed in, read by its name as the parameter itself would be.
                    got = got | self._by_meaning(node, name)
                return got
        elif vals is None and fn is not None:
            return EMPTY  # a function passed as a value, not text
        elif vals is None and name in self.m.imports:
            got = self._imported(name, None)
            if got:
                return got
        fetched = self._retrieved_name(node, name, vals)
        if fetched:
            return fetched
        param = self._param(node, name)
        if param is not None:
            named = frozenset(
                Taint(x.kind, x.line, x.what, x.path, param) for x in self._by_meaning(node, name)
            )
            return frozenset({Taint("param", param, name)}) | named
        return self._by_meaning(node, name)

    def _retrieved_name(self, node: Node, name: str, vals: list[Node] | None) -> Taints:
        """`memories`, `searchResults`, `retrievedContext`: a parameter or a function's local
        named for content fetched for this request (not a module constant, not fixed text)."""
        ws = words(name)
        settled = _SETTLED_WORDS - {"tool"} if ws[-1:] == ["context"] else _SETTLED_WORDS
        if not ws or ws[-1] not in _RETRIEVED_WORDS | {"context"} or set(ws) & settled:
            return EMPTY
        if ws[-1] == "context" and not set(ws) & _FETCHED_CONTEXT:
            return EMPTY  # `context`, `fileContext`, `actionContext`: a run's state, fixed
        if scope_of(node).type == "program":
            return EMPTY
        if vals and all(string_value(self.src, unwrap(v)) is not None for v in vals):
            return EMPTY
        if ws[-1] == "memory" and not (
            vals
            and all(unwrap(v).type == "call_expression" and _awaited(v) for v in vals)
            and not all(self._fixed_key(v) for v in vals)
        ):
            # A memory read back for this turn (`await memoryService.getContext(sessionId)`);
            # not one entry by its key (`memoryRecall(chatId, "profile")`), nor a project's
            # notes handed in (`fixture.setup.memory`, a parameter).
            return EMPTY
        if vals == [] and self._param(node, name) is None:
            return EMPTY  # bound only after this use
        if name in self.m.imports:
            return EMPTY
        # The line it was fetched on where it is bound here, else the line it is read on.
        at = unwrap(vals[0]) if vals else node
        return frozenset({Taint(RETRIEVED, self.src.pos(at)[0], name)})

    def _body_field(self, got: Taints, field: str) -> Taints:
        """A field read off the request's body (`payload.system`, `body.format`): named for
        itself; one the client sets once for a conversation (its system prompt, an id) is
        not content of this request."""
        if not any(x.kind == RETRIEVED and x.what == _BODY for x in got):
            return got
        if set(words(field)) & (_SETTLED_WORDS | _BODY_CONFIG) or words(field)[-1:] in (
            ["id"],
            ["ids"],
        ):
            return frozenset(x for x in got if x.kind != RETRIEVED or x.what != _BODY)
        return frozenset(
            Taint(x.kind, x.line, field, x.path, x.param)
            if x.kind == RETRIEVED and x.what == _BODY
            else x
            for x in got
        )

    def _fixed_key(self, value: Node) -> bool:
        """A call given a literal key among its arguments (`recall(chatId, "profile")`)."""
        v = unwrap(value)
        return v.type == "call_expression" and any(
            string_value(self.src, unwrap(a)) is not None for a in arguments(v)
        )

    def _fetched(self, node: Node, ftext: str, args: list[Node]) -> Taints:
        """A call that fetches content for the current request: named for a search or a recall
        and handed the request (`memoryRecall(chatId, userPrompt)`, `search(query)`), or one
        that reads where the incoming HTTP request comes from (`geolocation(request)`)."""
        ws = set(words(ftext))
        if ws & _CLIENT_STATE and any(self.src.text(unwrap(a)) in ("request", "req") for a in args):
            return self._make(RETRIEVED, node)
        if not ws & FETCH_WORDS:
            return EMPTY
        for a in args:
            for n in walk(a):
                if n.type not in (
                    "identifier",
                    "property_identifier",
                    "shorthand_property_identifier",
                ):
                    continue
                if names_request(self.src.text(n)):
                    return self._make(RETRIEVED, node)
        return EMPTY

    def _by_meaning(self, node: Node, name: str) -> Taints:
        if node.type == "identifier" and name.isupper():
            return EMPTY  # `STRUCTURE_OF_COMMIT`: a constant, whatever it is named for
        kind = kind_of_name(name)
        if kind is None and (
            node.type == "call_expression"
            or (node.parent is not None and node.parent.type == "call_expression")
        ):
            # `getGitChangesPrompt(ctx)`, `getProjectFileTreePrompt(ctx)`: a prompt section
            # made of the repository's state (a date or time "prompt" may be a setting).
            rest = [w for w in words(name) if w not in ("prompt", "prompts", "section")]
            state = kind_of_name("_".join(rest)) if rest else None
            kind = state if state in ("vcs", "filetree") else None
        if kind is None and set(words(name)) & _VIEWING and set(words(name)) & _SHEET_PARTS:
            # `selectedRange`, `activeWorksheet`: where the user is in a document app right
            # now (an add-in's selection), which moves between requests of one chat.
            kind = "filetree"
        if kind is None and _exchange_tally(name):
            kind = "runtime"
        if kind is None:
            return EMPTY
        if kind in ("date", "time") and set(words(name)) & _EVENT_BOUNDS:
            return EMPTY  # `trip.endDate`, `dueDate`: the date of a thing, not a clock read
        return frozenset({Taint(kind, self.src.pos(node)[0], f"{name} (by its name)")})

    def _handed_in(self, obj: Node | None) -> bool:
        """`obj` is a parameter of a function that is not a callback (`(m) => m.time` over a
        list reads the list's items, which the list's own taints describe)."""
        if obj is None or obj.type != "identifier" or self._param(obj, self.src.text(obj)) is None:
            return False
        fn = scope_of(obj)
        return fn.parent is None or fn.parent.type != "arguments"

    def _param(self, node: Node, name: str) -> int | None:
        """The position of `name` among the parameters of the function enclosing `node`."""
        fn = scope_of(node)
        if fn.type not in FUNCTIONS:
            return None
        params = fn.child_by_field_name("parameters") or fn.child_by_field_name("parameter")
        if params is None:
            return None
        if params.type == "identifier":
            return 0 if self.src.text(params) == name else None
        for i, p in enumerate(params.named_children):
            pat = p.child_by_field_name("pattern") or p
            if pat.type == "identifier" and self.src.text(pat) == name:
                return i
        return None

    def _member(self, node: Node) -> Taints:
        src = self.src
        text = src.text(node)
        obj = node.child_by_field_name("object")
        prop = src.text(node.child_by_field_name("property"))
        if _EDITOR.search(prop):
            return self._make("filetree", node)
        if text in ("process.pid", "process.ppid"):
            return self._make("runtime", node)
        if (
            prop == "state"
            and obj is not None
            and obj.type == "identifier"
            and names_device(src.text(obj))
        ):
            # `entity.state`: a smart-home thing's current state, read at each request.
            return self.taints(obj) | self._make("runtime", node)
        if obj is not None and obj.type == "this":
            _, vals, _ = self.m.lookup(src.root, "this." + prop)
            got = self._union(vals or [])
            return got or self._by_meaning(node, prop)
        if obj is not None and obj.type == "identifier" and obj.text is not None:
            name = src.text(obj)
            if name in self.m.imports and self.m.imports[name][1] == "*":
                return self._imported(name, prop) or self._by_meaning(node, prop)
        if prop == "body" and obj is not None and _is_request(src, obj):
            return frozenset({Taint(RETRIEVED, src.pos(node)[0], _BODY)})  # `req.body`
        fields = self._literal_fields(obj, prop)
        if fields is None and (field := self._returned_field(obj, prop)) is not None:
            # `info.title` where `info = normalizeInfo(raw, lore)` returns `{ title:
            # raw.title, lorebook: lore }`: the field read carries that field's value only.
            return field or self._by_meaning(node, prop)
        if fields is not None:
            # `persona.name` where `persona = { id: \`p-${Date.now()}\`, name }`: the field
            # read carries its own value, not the record's other fields.
            return self._union(fields) or self._by_meaning(node, prop)
        got = self._body_field(self.taints(obj), prop)
        if (
            got
            and all(x.kind == "param" for x in got)
            and (_says_current(prop) or _labelled_current(src, node))
            and self._handed_in(obj)
        ):
            # `userContext.currentTime`: a field of what the caller handed in, read by its
            # name as the parameter itself would be.
            return got | self._by_meaning(node, prop)
        if (
            got
            and all(x.kind == "param" for x in got)
            and _workspace_context(prop)
            and self._handed_in(obj)
        ):
            # `ctx.workspaceContext`: what an editor agent gathers from the open workspace
            # (its changes, its diagnostics) for this request.
            return got | self._make("filetree", node)
        if got and all(x.kind == "param" for x in got) and _exchange_tally(prop):
            # `customer.callCount` of a record fetched with what the handler is handed: the
            # count of this person's exchanges, which the store advances after each reply.
            return got | self._by_meaning(node, prop)
        if obj is not None and obj.type == "member_expression":
            # `studio.hours.monday`: an entry of a record named for hours is a schedule's
            # text; the name tells what the record holds, not that it reads the clock.
            got = frozenset(t for t in got if not t.what.endswith("(by its name)"))
        if _clock_setting(prop):
            # `dateInfo.timezone`, `dateInfo.isoWeek`: a field of a clock reading that is the
            # clock's setting or changes once a week at most, not the moment itself.
            got = frozenset(t for t in got if t.kind not in ("date", "time"))
            return got
        return got or self._by_meaning(node, prop)

    def _returned_field(self, obj: Node | None, prop: str) -> Taints | None:
        """The taints of field `prop` of the object a function of this file returns, where
        `obj` is a local bound once to a call of it and every return of the function is an
        object literal giving that field; None where that is not so."""
        if obj is None or obj.type != "identifier":
            return None
        _, vals, _ = self.m.lookup(obj, self.src.text(obj))
        call = unwrap(vals[0]) if vals is not None and len(vals) == 1 else None
        if call is None or call.type != "call_expression":
            return None
        callee = call.child_by_field_name("function")
        if callee is None or callee.type != "identifier":
            return None
        _, _, fn = self.m.lookup(call, self.src.text(callee))
        body = fn.child_by_field_name("body") if fn is not None else None
        if fn is None or body is None:
            return None
        if body.type == "statement_block":
            returned = [
                unwrap(n.named_children[0])
                for n in walk(body)
                if n.type == "return_statement" and scope_of(n).id == fn.id and n.named_children
            ]
        else:
            returned = [unwrap(body)]
        if not returned or any(r.type != "object" for r in returned):
            return None
        values = [_field_of(self.src, r, prop) for r in returned]
        if any(v is None for v in values):
            return None
        return self._bind(self._union(values), arguments(call))

    def _bookkeeping(self, value: Node) -> list[Node | None]:
        """The identity and bookkeeping fields of the record `value` is (an object literal, or
        a local bound to one): `JSON.stringify(meta)` writes them into the text as well, so
        `{ sessionUuid: randomUUID() }` serialised into a prompt is text of the prompt."""
        value = unwrap(value)
        objs = [value]
        if value.type == "identifier":
            scope, vals, _ = self.m.lookup(value, self.src.text(value))
            objs = [unwrap(v) for v in bound_before(vals, value, scope)] if vals and scope else []
        return [
            c.child_by_field_name("value") if c.type == "pair" else c
            for o in objs
            if o.type == "object"
            for c in o.named_children
            if _metadata_key(self.src, c)
        ]

    def _literal_fields(self, obj: Node | None, prop: str) -> list[Node] | None:
        """The values of field `prop` where `obj` is a local bound (before it is read) only to
        object literals that each set it, or to a default of one (`existing ?? { ... }`, whose
        other side is read whole); None where any binding is something else."""
        if obj is None or obj.type != "identifier":
            return None
        scope, vals, _ = self.m.lookup(obj, self.src.text(obj))
        if not vals or scope is None or scope.type == "program":
            return None
        vals = bound_before(vals, obj, scope)
        out: list[Node] = []
        for v in vals or []:
            v = unwrap(v)
            parts = [v]
            op = v.child_by_field_name("operator") if v.type == "binary_expression" else None
            if op is not None and self.src.text(op) in ("??", "||"):
                # `existing ?? { startedAt: new Date(), planMode: false }`: the literal's
                # field, and whatever the other side holds (read whole)
                left, right = v.child_by_field_name("left"), v.child_by_field_name("right")
                if left is None or right is None or unwrap(right).type != "object":
                    return None
                parts = [left, unwrap(right)]
            for part in parts:
                if part.type != "object" and len(parts) > 1:
                    out.append(part)
                    continue
                field = _field_of(self.src, part, prop) if part.type == "object" else None
                if field is None:
                    return None
                out.append(field)
        return out or None

    def _new(self, node: Node) -> Taints:
        ctor = self.src.text(node.child_by_field_name("constructor"))
        args = arguments(node)
        if ctor == "Date":
            return self._make("time", node) if not args else self._union(args)
        if ctor == "Set" or ctor == "Map":
            return self._union(args)
        # `new DatabaseService(env, sessionId)`: a service made for one session or user is
        # keyed by the identity it is handed (however that id was made: `Date.now()`,
        # `Math.random()`); the rows it reads back later are not the key's text.
        return self._union(a for a in args if not self._identity(a))

    def _identity(self, arg: Node) -> bool:
        a = unwrap(arg)
        if a.type == "member_expression":
            a = a.child_by_field_name("property") or a
        return a.type in ("identifier", "property_identifier") and identity_name(self.src.text(a))

    def _call(self, node: Node) -> Taints:
        src = self.src
        fn = node.child_by_field_name("function")
        if fn is None:
            return EMPTY
        fn = unwrap(fn)
        tagged = node.child_by_field_name("arguments")
        if tagged is not None and tagged.type == "template_string":
            # A tagged template (`dedent\`...\``, `stripIndent\`...\``): the tag reshapes the
            # text (indentation, escapes); what the template interpolates is in the result.
            return self.taints(tagged)
        ftext = src.text(fn)
        name = callee_name(src, node)
        args = arguments(node)
        simple = re.sub(r"\s+", "", ftext)
        if simple == "process.cwd" and scope_of(node).type == "program":
            return EMPTY  # read once, as the module loads: fixed for the process
        if name in _PATH_TAILS and (fn.type == "identifier" or _owner_is(src, fn, "path")):
            # `basename(join(process.cwd(), name))`: the file's name (or its place under a
            # root), not the working directory the path starts from.
            return _without_cwd(self._union(args))
        if name in _READ_FILE:
            # `readFile(join(process.cwd(), "prompts", "system.md"))`: the file's text, not
            # the path that located it; a path is no listing of the tree.
            return frozenset(t for t in self._union(args) if t.kind != "filetree")
        if simple in _CLOCK_CALLS:
            return self._make(_CLOCK_CALLS[simple], node)
        if name in _RANDOM_FUNCS and (fn.type == "identifier" or simple.startswith("crypto.")):
            return self._make("random", node)
        if name in _NOW_FUNCS and not args:
            return self._make("time", node)
        if name in _SHELL_FUNCS:
            first = string_value(src, args[0]) if args else None
            if first is None and args and unwrap(args[0]).type == "template_string":
                first = src.text(unwrap(args[0]))[1:]
            if first is not None and _GIT.match(first):
                return self._make("vcs", node)
            return self._union(args)
        if name in _LISTING_FUNCS:
            return self._make("listing", node) | self._make("filetree", node)
        if simple in ("Object.keys", "Object.values", "Object.entries") and args:
            if re.sub(r"\s+", "", src.text(args[0])) == "process.env":
                return self._make("unordered", node)
            return self.taints(args[0])
        # The callee's own name and the object it is called on (`retriever.invoke`), not the
        # whole chain before it.
        owner = fn.child_by_field_name("object") if fn.type == "member_expression" else None
        callee = name + " " + (value_name(src, owner) if owner is not None else "")
        fetched = self._fetched(node, callee, args) if args else EMPTY
        if fn.type == "member_expression":
            return self._method(node, fn, name, args) | fetched
        if fn.type == "identifier":
            return self._function_call(node, name, args) | fetched
        return self._union(args) | fetched

    def _method(self, node: Node, fn: Node, name: str, args: list[Node]) -> Taints:
        src = self.src
        obj = fn.child_by_field_name("object")
        if obj is not None and obj.type == "this":
            _, _, f = self.m.lookup(src.root, "this." + name)
            if f is not None:
                return self._apply(f, args, node) or self._by_meaning(fn, name)
            return self._by_meaning(fn, name) | self._union(args)
        if obj is not None and obj.type == "identifier":
            oname = src.text(obj)
            if oname in self.m.imports and self.m.imports[oname][1] == "*":
                return self._imported(oname, name, args, node) or self._by_meaning(fn, name)
            if oname in ("git", "simpleGit") and name in ("status", "diff", "log", "branch"):
                return self._make("vcs", node)
        if (
            obj is not None
            and _date_arithmetic(src, obj, name)
            and self.m.lookup(obj, "Date")[1] is None
        ):
            # `Date.UTC(y, m - 1, d)`, `Date.parse(s)`: the moment its arguments name, read
            # from no clock (`Date.now()` is a clock call, above).
            return self._union(args)
        if name in _BODY_READS and not args and obj is not None and _is_request(src, obj):
            # `await req.json()`: the body of the incoming HTTP request, new on every request.
            return frozenset({Taint(RETRIEVED, src.pos(node)[0], _BODY)})
        if name == "bind" and obj is not None and _prepared(src, obj):
            # `db.prepare(sql).bind(start, end).all()`: the values bound to the statement's
            # placeholders choose the rows; the rows read are stored data, not those values.
            return self.taints(obj)
        recv = self.taints(obj)
        if name in ("pop", "at") and _split_call(src, obj):
            # `file.split("/").pop()`: a path's last part, the file's own name; the working
            # directory that located the file is the path's start, not in its name.
            return _without_cwd(recv)
        if name in _SORTS:
            return frozenset(x for x in recv if x.kind not in ORDER)
        if name in _DATE_METHODS or (
            name in ("split", "slice", "substring", "substr")
            and _is_iso(src, obj)
            and _date_cut(src, args)
        ):
            return frozenset(
                Taint("date", x.line, x.what, x.path, x.param) if x.kind == "time" else x
                for x in recv
            )
        if name in ("map", "filter", "forEach", "reduce", "flatMap", "find", "some", "every"):
            if name == "filter" and args and _EDITOR.search(src.text(args[0])):
                # `models.filter((m) => m.isAttachedToEditor())`: the files open right now.
                return recv | self._make("filetree", node)
            return recv
        if name in ("replace", "replaceAll") and len(args) >= 2:
            fill = unwrap(args[1])
            if fill.type in FUNCTIONS:
                # `text.replace(VARS, (m, v) => v === "datetime" ? new Date()... : m)`: what
                # the callback returns is written into the text.
                return recv | self._apply(fill, [], node)
            return recv | self.taints(args[1])
        if recv:
            # `db.getSession(sessionId)`: an identity handed to a method looks a record up;
            # the record read back is not the id's text (a text method, `replace`, `concat`,
            # is read above or below by its name).
            return recv | self._union(
                a
                for a in args
                if unwrap(a).type not in FUNCTIONS
                and (name in ("concat", "join", "format") or not self._identity(a))
            )
        named = self._by_meaning(fn, name)
        if named:
            return named
        if name == "stringify" and obj is not None and src.text(obj) == "JSON" and args:
            return self._union(args) | self._union(self._bookkeeping(args[0]))
        if name in ("join", "concat", "toString", "trim", "format", "stringify", "String"):
            return self._union(args)
        if name in _RENDERS and len(args) >= 2:
            # `PromptTemplate.render(template, { datetime, tabs })`: a template engine's
            # output is the template with the slot values written in.
            return self._union(a for a in args[1:] if unwrap(a).type not in FUNCTIONS)
        if obj is not None and src.text(obj) in ("JSON", "path", "String", "util"):
            return self._union(a for a in args if unwrap(a).type not in FUNCTIONS)
        return EMPTY

    def _function_call(self, node: Node, name: str, args: list[Node]) -> Taints:
        _, vals, f = self.m.lookup(node, name)
        if f is not None:
            return self._apply(f, args, node) or self._by_meaning(node, name)
        if vals is None and name in self.m.imports:
            got = self._imported(name, None, args, node)
            if got:
                return got
        if name in ("String", "encodeURIComponent", "JSON", "structuredClone"):
            return self._union(args)
        named = self._by_meaning(node, name)
        if named and args and all(unwrap(a).type == "string" for a in args):
            # `timestamp("created_at")`: a clock-named builder given only literals (a column
            # type, a fixed format) reads no clock.
            named = EMPTY
        # An options bag handed to a function of a package (`pgTable("t", { createdAt:
        # timestamp().defaultNow() })`) configures it; its fields are not the text returned.
        return named | self._union(
            a for a in args if unwrap(a).type not in FUNCTIONS and unwrap(a).type != "object"
        )

    def returns(self, fn: Node) -> Taints:
        """The taints a function returns, with `param` taints for its parameters."""
        got = self._returns.get(fn.id)
        if got is not None:
            return got
        self._returns[fn.id] = EMPTY  # recursion
        body = fn.child_by_field_name("body")
        out: set[Taint] = set()
        if body is not None and body.type != "statement_block":
            out |= self.taints(body)
        elif body is not None:
            for n in walk(body):
                if n.type == "return_statement" and scope_of(n).id == fn.id:
                    kids = n.named_children
                    if kids:
                        out |= self.taints(kids[0])
        self._returns[fn.id] = frozenset(out)
        return self._returns[fn.id]

    def _apply(self, fn: Node, args: list[Node], at: Node) -> Taints:
        return self._bind(self.returns(fn), args)

    def _bind(self, found: Iterable[Taint], args: list[Node]) -> Taints:
        """`found` (a function's taints) at a call handed `args`: a parameter's stands for the
        taints of the argument in its place; the rest are kept unless they came from a
        parameter that the call fills."""
        out: set[Taint] = set()
        for x in found:
            if x.kind == "param":
                if x.line < len(args):
                    out |= self.taints(args[x.line])
            elif not 0 <= x.param < len(args):
                out.add(x)
        return frozenset(out)

    # --- other modules ---------------------------------------------------------------------

    def other(self, spec: str) -> Evaluator | None:
        """The evaluator of the module a relative import `spec` names, if the loader finds it."""
        return self._other(spec)

    def _other(self, spec: str) -> Evaluator | None:
        if spec in self._others:
            return self._others[spec]
        ev = None
        if self.m.load is not None and self.depth < 4:
            mod = self.m.load(self.src.path, spec)
            if mod is not None:
                ev = mod.evaluator(self.depth + 1)
        self._others[spec] = ev
        return ev

    def exported(
        self, name: str, hops: int = 0
    ) -> tuple[Evaluator | None, list[Node] | None, Node | None]:
        """The module and binding this module exports as `name`, through renamed exports,
        re-exports (`export { a } from "./x"`, an imported name exported again) and the
        files an `export *` passes on (an index file), a few files deep."""
        name = self.m.renamed.get(name, name)
        vals, fn = self.m.export(name)
        if vals is not None or fn is not None or hops >= 4:
            return self, vals, fn
        hop = self.m.reexports.get(name) or self.m.imports.get(name)
        if hop is not None and hop[1] != "*":
            other = self._other(hop[0]) if project_module(hop[0]) else None
            return other.exported(hop[1], hops + 1) if other is not None else (None, None, None)
        for spec in self.m.star_exports:
            other = self._other(spec) if project_module(spec) else None
            if other is not None:
                found = other.exported(name, hops + 1)
                if found[1] is not None or found[2] is not None:
                    return found
        return self, None, None

    def _imported(
        self, local: str, member: str | None, args: list[Node] | None = None, at: Node | None = None
    ) -> Taints:
        spec, remote = self.m.imports[local]
        if not project_module(spec):
            return EMPTY
        ev = self._other(spec)
        if ev is None:
            return EMPTY
        name = member if remote == "*" and member is not None else remote
        ev, vals, fn = ev.exported(name)
        if ev is None:
            return EMPTY
        out: set[Taint] = set()
        given: set[Taint] = set()  # what this file's arguments carry: made here, not there
        if fn is not None:
            for x in ev.returns(fn):
                if x.kind == "param":
                    if args is not None and x.line < len(args):
                        given |= self.taints(args[x.line])
                elif args is None or not 0 <= x.param < len(args):
                    out.add(x)
            if args is None:
                out = set()  # a function value, not called
        elif vals is not None:
            out |= ev._union(vals)
        path = ev.src.path
        return frozenset(Taint(x.kind, x.line, x.what, x.path or path) for x in out) | given


_LOOPS = frozenset({"for_statement", "for_in_statement", "while_statement", "do_statement"})


# The callback parameter that is the collection's element, by the array method called.
_ELEMENT_PARAM = {"forEach": 0, "map": 0, "flatMap": 0, "filter": 0, "find": 0, "reduce": 1}


def _pattern_names(src: Source, node: Node) -> list[str]:
    """The names a binding pattern declares: `x`, `[name, value]`, `{ a, b: c }`, and those of
    a parameter (`x: T`, `x = 1`) or a declaration (`const x`); not the names its defaults
    read."""
    if node.type in ("identifier", "shorthand_property_identifier_pattern"):
        return [src.text(node)]
    if node.type in ("assignment_pattern", "object_assignment_pattern"):
        left = node.child_by_field_name("left")
        return _pattern_names(src, left) if left is not None else []
    if node.type in ("required_parameter", "optional_parameter", "pair_pattern"):
        inner = node.child_by_field_name("pattern") or node.child_by_field_name("value")
        return _pattern_names(src, inner) if inner is not None else []
    out: list[str] = []
    for c in node.named_children:
        if c.type not in ("type_annotation", "comment"):
            out += _pattern_names(src, c)
    return out


def bound_before(vals: list[Node], use: Node, scope: Node) -> list[Node]:
    """The values of a function's local name that can reach `use`: those bound before it. A
    value bound later in the same function is reached only by a loop around both; names of
    the module, read by functions that run later, keep every value."""
    if scope.parent is None:
        return vals
    p = use.parent
    while p is not None and p.id != scope.id:
        if p.type in _LOOPS:
            return vals
        p = p.parent
    return [v for v in vals if v.start_byte < use.start_byte]


def _short(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= 60 else text[:57] + "..."


# The functions of a path that give its end: its file's name, its suffix, its place under a root.
_PATH_TAILS = frozenset({"basename", "extname", "relative"})


def _without_cwd(got: Taints) -> Taints:
    """`got` less the working directory's reads (`process.cwd()`)."""
    return frozenset(t for t in got if not t.what.startswith("process.cwd()"))


def _prepared(src: Source, obj: Node) -> bool:
    """`obj` is a call `db.prepare(sql)`: a prepared SQL statement."""
    obj = unwrap(obj)
    return obj.type == "call_expression" and callee_name(src, obj) == "prepare"


def _split_call(src: Source, obj: Node | None) -> bool:
    """`obj` is a call `x.split(...)`."""
    if obj is None or unwrap(obj).type != "call_expression":
        return False
    fn = unwrap(obj).child_by_field_name("function")
    return (
        fn is not None
        and fn.type == "member_expression"
        and (src.text(fn.child_by_field_name("property")) == "split")
    )


def _owner_is(src: Source, fn: Node, name: str) -> bool:
    """`fn` is a member `name.something` (`path.basename`)."""
    owner = fn.child_by_field_name("object") if fn.type == "member_expression" else None
    return owner is not None and src.text(owner) == name


def _date_arithmetic(src: Source, obj: Node | None, name: str) -> bool:
    """`Date.UTC(...)`, `Date.parse(...)`: the global Date's functions of their arguments."""
    return (
        obj is not None
        and obj.type == "identifier"
        and src.text(obj) == "Date"
        and (name in ("UTC", "parse"))
    )


def _is_iso(src: Source, node: Node | None) -> bool:
    return node is not None and "toISOString" in src.text(node)


def _date_cut(src: Source, args: list[Node]) -> bool:
    """`split("T")` or `slice(0, 10)`: the date part of an ISO timestamp."""
    if not args:
        return False
    first = string_value(src, args[0])
    if first == "T":
        return True
    return len(args) >= 2 and src.text(args[0]) == "0" and src.text(args[1]) == "10"


def is_slot(text: str) -> bool:
    """A template slot: `{{CURRENT_DATE}}`, `{date}`, `${today}`, `%DATE%`, `<DATE>`."""
    return bool(_SLOT.search(text))


def _metadata_key(src: Source, item: Node) -> bool:
    """An object's identity or bookkeeping entry (a pair or a shorthand): its value names,
    dates or measures the record and is text only where that field itself is read."""
    if item.type == "pair":
        key = key_name(src, item.child_by_field_name("key")) or ""
    elif item.type == "shorthand_property_identifier":
        key = src.text(item)
    else:
        return False
    return metadata_field(key)


def _field_of(src: Source, obj: Node, prop: str) -> Node | None:
    """The value `obj`, an object literal, gives its field `prop` (a pair or a shorthand);
    None where it has no such field or a spread may supply it."""
    found: Node | None = None
    for c in obj.named_children:
        if c.type == "spread_element":
            return None
        if c.type == "pair" and key_name(src, c.child_by_field_name("key")) == prop:
            found = c.child_by_field_name("value")
        elif c.type == "shorthand_property_identifier" and src.text(c) == prop:
            found = c
    return found


def _is_message(src: Source, node: Node) -> bool:
    """An object literal with a `role` key: a chat message."""
    return any(
        c.type == "pair" and key_name(src, c.child_by_field_name("key")) == "role"
        for c in node.named_children
    )


def _is_request(src: Source, obj: Node) -> bool:
    """`req`, `request`, `c.req` (Hono): the incoming HTTP request of a handler."""
    name = src.text(obj).split(".")[-1]
    return name in ("req", "request")


# A field of a handed-in object is read by its name only where the name says it is the
# present moment (`currentTime`, `now`, `today`): a record's `businessHours`, `dueDate` or
# `timestamp` names what the record holds, not a clock read for this request.
_PRESENT = frozenset({"current", "now", "today"})


# The last word of a clock reading's field that is its setting or a coarse part of it.
_CLOCK_SETTINGS = frozenset({"timezone", "zone", "tz", "locale", "offset", "format"})
_COARSE = frozenset({"week", "month", "year", "quarter"})
_FINE = frozenset({"day", "weekday", "date", "time", "hour", "minute", "second", "now"})


def _exchange_tally(name: str) -> bool:
    """`callCount`, `interactionCount`, `totalVisits`: how many exchanges a person has had."""
    ws = set(words(name))
    return bool(ws & _EXCHANGES) and bool(ws & _TALLIES)


def _clock_setting(name: str) -> bool:
    """`timezone`, `isoWeek`, `monthName`: a field of a date that is fixed for the process
    or for a week at least. Not `dayOfWeek` (changes daily) nor `currentTime`."""
    ws = words(name)
    if not ws or set(ws) & _FINE:
        return False
    return ws[-1] in _CLOCK_SETTINGS or bool(set(ws) & _COARSE)


def _says_current(name: str) -> bool:
    return bool(set(words(name)) & _PRESENT)


def _workspace_context(name: str) -> bool:
    """`workspaceContext`: the workspace's context gathered for a request. Not
    `workspaceState`, VS Code's stored key-value memento."""
    ws = words(name)
    return ws[-2:] == ["workspace", "context"]


def _labelled_current(src: Source, node: Node) -> bool:
    """``Current ISO timestamp: ${context.isoTimestamp}``: a field written into the text under
    a label that says it is the present moment (the text's own line before the value)."""
    sub = node.parent
    if sub is None or sub.type != "template_substitution" or sub.parent is None:
        return False
    before = ""
    for c in sub.parent.children:
        if c.id == sub.id:
            break
        before = src.text(c) if c.type == "string_fragment" else ""
    line = before.rsplit("\n", 1)[-1]
    return bool(set(words(line)) & _PRESENT)


def _destructured(value: Node) -> bool:
    """Whether `value` is bound to a name by a destructuring pattern (`const { a } = v`)."""
    p = value.parent
    return (
        p is not None
        and p.type == "variable_declarator"
        and ((n := p.child_by_field_name("name")) is not None and n.type == "object_pattern")
    )


def _awaited(value: Node) -> bool:
    """`await f(...)`, as bound: the value is read when the code runs, per call."""
    v = value
    while v.type in ("parenthesized_expression", "as_expression", "non_null_expression"):
        if not v.named_children:
            return False
        v = v.named_children[0]
    return v.type == "await_expression"
