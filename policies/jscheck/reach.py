"""The requests a TypeScript/JavaScript value reaches (`policies/reach.py` says why it
matters): each request of a function (an options object with `messages`, `prompt` or `input`
beside a `model` or a `system`) is classified as a conversation's or a one-shot request, and a
finding inside a function is followed to the requests of that function or, where it sends
nothing itself and is not exported, of its callers in the file. A finding whose value reaches
one-shot requests only, a test's assertion, a serialiser's record or an HTTP route handler
that asks no model is dropped. Pure: a parsed file and findings in, findings out.
"""

# pure: imports no I/O (tests/test_layout.py checks it)

from __future__ import annotations

import re
from collections.abc import Callable

from tree_sitter import Node

from ..findings import Finding
from ..meaning import HISTORY_WORDS, words
from ..reach import (
    CONVERSATION,
    ONE_SHOT,
    Site,
    decided_by_reach,
    is_test_name,
    keep,
    one_shot_only,
    records_only,
    sink_line,
)
from .nowhere import answers_client as nowhere_answers
from .nowhere import exported_name, kept_in, module_bindings, parameters, project_names
from .platform import on_platform, platform_handler, platform_values, project_imports
from .syntax import (
    FUNCTIONS,
    Source,
    arguments,
    callee_name,
    declared_value,
    function_name,
    key_name,
    string_value,
    unwrap,
    walk,
)
from .values import Module

_DEPTH = 2
_FAR = 4  # callers followed by the reach gate (`reaches_nothing`)
_REQUEST_KEYS = frozenset({"messages", "prompt", "input", "contents"})
_CHAINED = frozenset(
    {"previous_response_id", "previousResponseId", "conversation", "conversationId", "thread"}
)
_CACHE_MARKS = frozenset(
    {"cache_control", "cacheControl", "prompt_cache_key", "promptCacheKey", "providerOptions"}
)
_USER_TEXT = frozenset({"user", "userPrompt", "userMessage", "user_prompt", "user_message"})
_ONE_SHOT_ROLES = frozenset({"system", "developer", "user"})
# Calls that may ask a model in a way the site test does not read (`agent.run(q)`,
# `chat.sendMessage(text)`, `streamChat(...)`): by the words of the callee's name.
_ASKING = frozenset(
    {
        "chat",
        "completion",
        "completions",
        "complete",
        "generate",
        "stream",
        "ask",
        "llm",
        "agent",
        "gpt",
        "claude",
        "openai",
        "anthropic",
        "gemini",
        "invoke",
        "run",
        "send",
        "respond",
        "reply",
        "query",
        "prompt",
        "model",
        "call",
    }
)
# Calls that leave the process: a local helper making one may ask a model through it.
_OUTSIDE = frozenset(
    {"fetch", "axios", "request", "post", "got", "ky", "exec", "execSync", "execFile", "spawn"}
    | {"spawnSync", "execa", "send", "emit", "postMessage", "sendMessage", "invoke"}
)
# Settings only a realtime (voice) session takes: its `instructions` are set when the session
# starts and kept for the whole connection, as the labels judge (a session fixed once).
_REALTIME_KEYS = frozenset(
    {
        "voice",
        "modalities",
        "output_modalities",
        "input_audio_transcription",
        "input_audio_format",
        "output_audio_format",
        "turn_detection",
        "audio",
    }
)
# What answers a turn of a realtime session: the events (raw) and the client calls that add
# the user's item or ask for the response.
_TURN_EVENTS = frozenset({"response.create", "conversation.item.create"})
_TURN_CALLS = frozenset({"createResponse", "sendUserMessageContent", "appendInputAudio"})
# First words of a callee that builds a prompt's text (`mergeSystemPrompt(...)`,
# `buildSpeechSystemPrompt(...)`): named for a prompt, it asks no model.
_BUILDS = frozenset(
    {"build", "merge", "get", "make", "create", "compose", "format", "render", "assemble"}
    | {"combine", "load", "join", "append", "with", "add", "inject"}
)
_BUILT = frozenset(
    {"prompt", "prompts", "instructions", "message", "messages", "context", "model", "config"}
)
# A query of a database (`pool.query("SELECT ...", [id])`), not a question to a model.
_SQL = re.compile(r"\s*(select|insert|update|delete|with|create|upsert)\b", re.IGNORECASE)
# A router's methods that register a handler for a path (Express, Hono, Fastify, Koa).
_ROUTE_METHODS = frozenset({"get", "post", "put", "patch", "delete", "all", "route"})
# The handlers a web framework calls for one HTTP request (Next.js, Remix, SvelteKit).
_HANDLERS = frozenset({"GET", "POST", "PUT", "PATCH", "DELETE", "action", "loader"})
_LOOPS = frozenset({"for_statement", "for_in_statement", "while_statement", "do_statement"})
# Calls that run a callback again and again: an event's listener, a timer.
_LISTENS = frozenset({"on", "once", "addEventListener", "addListener", "setInterval", "subscribe"})
# What writes an HTTP handler's answer to the response it is handed (`res.json(rows)`).
_ANSWERS = frozenset({"json", "send", "render", "end", "redirect"})
# Test callbacks (`it("...", () => ...)`, `test(...)`, `describe(...)`).
_TEST_CALLS = frozenset({"it", "test", "describe", "beforeEach", "beforeAll"})


# (file, exported name) -> the project's other files that import it, with the local name.
Importers = Callable[[str, str], list[tuple[Source, str]]]


def drop_unreached(
    src: Source,
    found: list[Finding],
    importers: Importers | None = None,
    module: Module | None = None,
) -> list[Finding]:
    if not any(decided_by_reach(f.code) or f.code in _SHAPES for f in found):
        return found
    if is_test_file(src.path):
        # a test's or a mock's code: what it builds goes to an assertion or stands in for a
        # service, in no user's conversation
        return [f for f in found if not (decided_by_reach(f.code) or f.code in _SHAPES)]
    index = _Index(src, importers, module)
    unsent = {
        i
        for i, f in enumerate(found)
        if (decided_by_reach(f.code) and index.unsent(f.line, sink_line(f)))
        or (
            f.code in _SHAPES
            and (
                index.in_test_at(f.line) or index.answers_client(f.line) or index.runs_once(f.line)
            )
        )
        or ((decided_by_reach(f.code) or f.code == "PL303") and index.reaches_nothing(f.line))
    }
    return keep(found, unsent)


# The history's own shapes (a window, a side request): not decided by the requests a value
# reaches, but code that runs only as a test's body (`it("caps the history", ...)`) asks no
# model of a user's conversation: an assertion reads what it builds.
_SHAPES = frozenset({"PL303", "PL305"})

# Folders and name parts that mark a file as a test's or a mock's by the JavaScript test
# runners' conventions (Jest, Vitest, Mocha, Bun): `__tests__/chat.ts`, `chat.test.ts`,
# `chat.spec.tsx`, `__mocks__/openai.ts`, `openai.mock.ts`, `pubnub-mock.ts`.
_TEST_FOLDERS = frozenset({"__tests__", "__mocks__"})
_TEST_PARTS = frozenset({"test", "tests", "spec", "mock", "mocks"})


def is_test_file(path: str) -> bool:
    """Whether `path` is a test's or a mock's file by the test runners' conventions: in a
    `__tests__` or `__mocks__` folder, a dotted part `test`, `spec` or `mock` before the
    suffix (`chat.test.ts`), or a name ending in the word `mock` (`pubnub-mock.ts`). Other
    folder names are not read (a project may sit in a folder named `test`), nor a name that
    only starts with a test word (`testPrep.ts` may be the product's own feature)."""
    parts = path.replace("\\", "/").split("/")
    if _TEST_FOLDERS & set(parts[:-1]):
        return True
    dotted = parts[-1].split(".")
    if len(dotted) >= 3 and _TEST_PARTS & {d.lower() for d in dotted[1:-1]}:
        return True
    last = words(dotted[0])[-1:]
    return last in (["mock"], ["mocks"])


class _Index:
    def __init__(
        self, src: Source, importers: Importers | None = None, module: Module | None = None
    ) -> None:
        self.src = src
        self.importers = importers
        self.module = module  # its imports resolved, for the reach gate (one file away)
        self._there: dict[str, _Index] = {}
        self._hops = 0  # files away from the linted one
        self.functions = [n for n in walk(src.root) if n.type in FUNCTIONS]
        self._sites: dict[int, list[Site]] = {}
        self._away: dict[int, list[Site]] = {}
        self._callees: dict[int, frozenset[str]] = {}
        self._working: set[int] = set()  # functions whose requests are being worked out
        self._platform: frozenset[str] | None = None
        self._project: frozenset[str] | None = None
        self._named: frozenset[str] | None = None  # bound to the project's modules
        self._top: frozenset[str] | None = None  # bound at the module's top level
        self._silence: dict[int, bool] = {}
        self._hushing: set[int] = set()  # functions whose silence is being worked out

    def around(self, line: int) -> Node | None:
        held = [fn for fn in self.functions if fn.start_point[0] + 1 <= line <= fn.end_point[0] + 1]
        return max(held, key=lambda fn: fn.start_byte) if held else None

    def around_node(self, node: Node) -> Node | None:
        p = node.parent
        while p is not None and p.type not in FUNCTIONS:
            p = p.parent
        return p

    def unsent(self, line: int, sink: int | None) -> bool:
        fn = self.around(line)
        if fn is not None and self._in_test(fn):
            # a test's body (`test("...", () => ...)` at module level): checked before the
            # climb out of callbacks below, which would leave it at module level
            return True
        while fn is not None and _callback(fn):
            if self._route(fn) and self.sites(fn):
                break  # an HTTP route's handler: the requests it makes are its own
            if self._answers_platform(fn):
                break  # a chat platform's event handler: called per event, apart from the rest
            up = self.around_node(fn)  # a callback runs as part of the function it is handed in
            if up is None and self.sites(fn):
                # handed to a call at module level (`Deno.serve(async (req) => ...)`, an
                # event's listener): nothing encloses it, so its own requests decide
                break
            fn = up
        if fn is None:
            return False  # module level: read wherever the module is imported
        if self._in_test(fn):
            return True
        into = self.around(sink) if sink is not None else fn
        if (
            into is not None
            and records_only(function_name(self.src, into))
            and not self.sites(into)
        ):
            return True  # a serialiser's copy of a prompt built and sent elsewhere
        if sink is not None and self._one_shot_literal_at(fn, sink):
            return True  # the prompt is written in a one-shot request's own literal
        return one_shot_only(self.reached(fn, 0, set()))

    def _one_shot_literal_at(self, fn: Node, line: int) -> bool:
        """Whether `line` lies in the message list or system text written inside a one-shot
        request's options (`create({ model, messages: [{ role: "system", content: ... }] })`,
        not in a loop): what is written there reaches that request alone, with no conversation
        after it, whatever other requests the function also makes."""
        for n in self._own(fn):
            if n.type != "object":
                continue
            keys = _keys(self.src, n)
            if keys is None or not (keys.keys() & {"messages", "system"}):
                continue
            if not keys.keys() & {"model"} or self._kind(keys, fn) != ONE_SHOT:
                continue
            if self._looped(Site(_line(n), ONE_SHOT, ""), fn).kind != ONE_SHOT:
                continue
            for k in ("messages", "system"):
                v = keys.get(k)
                if v is not None and v.start_point[0] + 1 <= line <= v.end_point[0] + 1:
                    return True
        return False

    def reaches_nothing(self, line: int) -> bool:
        """Whether the code at `line` reaches no model request at all, as far as the project
        shows: its function (a callback counts as part of the function it is handed to)
        makes no request, reaches no network or process, calls nothing of the project's
        other modules and no local function that does, keeps nothing another function may
        send, and every caller is such a function too (in this file; for an exported
        function, in the files that import it; a web framework's route handler or a
        callback handed to a package at module level has none). A window or a value
        that only such code holds is rendered, counted, logged or answered to an HTTP
        client. A method (its callers are reached through objects), a function handed on
        as a value, or an exported one no file of the project imports is not followed:
        kept."""
        fn = self.around(line)
        top = self._climb(fn) if fn is not None else None
        return top is not None and self._nowhere(top, 0, set())

    def _climb(self, fn: Node) -> Node | None:
        """The function a callback runs as part of; the callback itself where it is handed
        to a package's call at module level (`app.get("/rows", (req, res) => ...)`); None
        where it is handed at module level to the project's own function (which may send
        what it returns)."""
        while _callback(fn):
            up = self.around_node(fn)
            if up is None:
                call = fn.parent.parent if fn.parent is not None else None
                if call is None or call.type != "call_expression" or not _dropped(call):
                    return None  # its result is kept (`const prompts = chunks.map(...)`)
                root = _root_name(self.src, call)
                if root in self._named_project() or self._local(callee_name(self.src, call)):
                    return None
                if root not in self._bound():
                    return None  # a global the file does not show (`schedule(...)`)
                return fn
            fn = up
        return fn

    def _local(self, name: str) -> list[Node]:
        """The functions (not methods) this file defines under `name`."""
        return [
            f
            for f in self.functions
            if f.type != "method_definition" and name and function_name(self.src, f) == name
        ]

    def _bound(self) -> frozenset[str]:
        if self._top is None:
            self._top = module_bindings(self.src)
        return self._top

    def _named_project(self) -> frozenset[str]:
        if self._named is None:
            self._named = project_names(self.src)
        return self._named

    def _nowhere(self, fn: Node, depth: int, seen: set[int]) -> bool:
        if fn.id in seen:
            return True  # a recursion: decided by the rest
        seen.add(fn.id)
        if self._in_test(fn):
            return True  # a test's assertion reads it
        if not self._silent(fn):
            return False
        for kept in kept_in(self.src, fn, self._own(fn)):
            if kept == "this" or exported_name(self.src, kept) or not self._file_silent():
                return False  # another function (or file) may send what it keeps
        if _callback(fn):
            return True  # handed to a package at module level: the package calls it
        if fn.type == "method_definition" or any(n.type == "class_body" for n in _ancestors(fn, 3)):
            return False
        name = function_name(self.src, fn)
        if not name:
            return False
        if _exported(fn):
            if name in _HANDLERS:
                return True  # a route handler: the framework calls it, its answer a client's
            return self._nowhere_elsewhere(name, depth)
        uses = [
            n
            for n in walk(self.src.root)
            if n.type in ("identifier", "shorthand_property_identifier")
            and self.src.text(n) == name
            and not _declares(n, fn)
        ]
        if not uses or depth >= _FAR:
            return False
        shared = [u for u in uses if _commonjs_export(self.src, u)]
        if shared and not self._nowhere_elsewhere(name, depth):
            return False  # `module.exports = { name }`: the files that require it decide
        for use in uses:
            if use in shared:
                continue
            if not _called(use) and not self._mapped(use):
                return False  # handed on as a value: where it runs is not seen
            caller = self.around_node(use)
            if caller is None:
                call = use.parent if _called(use) else use.parent.parent  # type: ignore[union-attr]
                if call is None or not _dropped(call):
                    return False
                if not _called(use) and _root_name(self.src, call) not in self._bound():
                    return False  # handed to a global the file does not show
                continue
            up = self._climb(caller)
            if up is None or not self._nowhere(up, depth + 1, seen):
                return False
        return True

    def _mapped(self, use: Node) -> bool:
        """A function handed to a package's call (`entries.map(formatEntry)`,
        `rows.forEach(print)`): it runs there, for the function that hands it; not one
        handed to the project's own function or to a local one (which may send its
        result)."""
        args = use.parent
        call = args.parent if args is not None and args.type == "arguments" else None
        if call is None or call.type != "call_expression":
            return False
        return _root_name(self.src, call) not in self._named_project() and not self._local(
            callee_name(self.src, call)
        )

    def _nowhere_elsewhere(self, name: str, depth: int) -> bool:
        """An exported function's callers in the project's other files (one file away)."""
        if self.importers is None or depth >= _FAR:
            return False
        found = self.importers(self.src.path, name)
        if not found:
            return False  # no file of the project imports it: its callers are not seen
        for other, local in found:
            if is_test_file(other.path):
                continue  # a test calls it: its value goes to an assertion
            if not local:
                return False
            load = self.module.load if self.module is not None else None
            there = _Index(other, None, Module(other, load) if load is not None else None)
            there._hops = self._hops + 1
            for use in _uses_of(other, local):
                caller = there.around_node(use) if _called(use) else None
                up = there._climb(caller) if caller is not None else None
                if up is None or not there._nowhere(up, depth + 1, set()):
                    return False
        return True

    def _file_silent(self) -> bool:
        return all(self._silent(f) for f in self.functions)

    def _silent(self, fn: Node) -> bool:
        """No request, no network or process, nothing handed to the project's other modules
        or to a function handed in, and every local function it calls silent too."""
        if fn.id in self._hushing:
            return True  # a recursion: decided by the rest
        if fn.id not in self._silence:
            self._hushing.add(fn.id)
            try:
                self._silence[fn.id] = self._find_silent(fn)
            finally:
                self._hushing.discard(fn.id)
        return self._silence[fn.id]

    def _silent_import(self, call: Node) -> bool:
        """A call of a function imported from the project's module (`collectRows(...)`,
        `store.listRuns(...)` of `import * as store`) that is silent in its own file, its
        own calls of other modules not followed (one file away)."""
        if self.module is None or self.module.load is None:
            return False
        root = _root_name(self.src, call)
        callee = callee_name(self.src, call)
        spec, remote = self.module.imports.get(root, ("", ""))
        member = ""
        if remote == "*":
            remote = callee  # `store.listRuns(...)`
        elif root != callee:
            member = callee  # `Logger.error(...)`: a static method of an imported class
        other = self.module.load(self.src.path, spec) if spec else None
        if other is None or not remote:
            return False
        _, target = other.export(remote)
        if target is None and member:
            # a static method (`Logger.error`), or a method of an instance the module
            # exports (`export const db = new Database()`: `db.setSetting(...)`)
            vals, _ = other.export(remote)
            made = [unwrap(v) for v in vals or [] if unwrap(v).type == "new_expression"]
            cls = _root_name_new(other.src, made[0]) if made else remote
            target = _class_method(other.src, cls, member)
        elif member:
            return False  # a function's property, not followed
        if target is None:
            return False
        path = other.src.path
        if path not in self._there:
            # its own imports followed once more (two files away), no further
            self._there[path] = _Index(other.src, None, other if self._hops < 1 else None)
            self._there[path]._hops = self._hops + 1
        return self._there[path]._silent(target)

    def _find_silent(self, fn: Node) -> bool:
        named = self._named_project()
        nodes = self._own(fn)
        for site in self.sites(fn):
            # a call known only by its asking name (`writeSystemPrompt(text)`) that is the
            # project's function, silent in its own file, asks nothing
            asked = [
                n
                for n in nodes
                if n.type == "call_expression"
                and _line(n) == site.line
                and f"`{callee_name(self.src, n)}`" in site.reason
            ]
            if not asked or not all(
                _root_name(self.src, n) in named and self._silent_import(n) for n in asked
            ):
                return False
        handed = set().union(
            *(parameters(self.src, n) for n in [fn, *nodes] if n.type in FUNCTIONS)
        )
        for n in nodes:
            if n.type == "object" and self._reaches_out(n):
                # request options handed to a call (not to an HTTP answer); one returned or
                # kept goes where its callers or its holder take it, followed apart
                if _handed(n) and not _answer_argument(self.src, n):
                    return False
            elif n.type == "call_expression":
                if nowhere_answers(self.src, n):
                    continue
                if self._reaches_out(n):
                    return False
                if _root_name(self.src, n) in named and not self._silent_import(n):
                    return False
                f = unwrap(n.child_by_field_name("function"))  # type: ignore[arg-type]
                if f.type == "identifier":
                    callee = self.src.text(f)
                    targets = self._local(callee)
                    if not targets and callee in handed:
                        return False  # a callback handed in: what it does is not seen
                    if not all(self._silent(t) for t in targets):
                        return False
                elif f.type == "member_expression" and _this_call(f):
                    callee = callee_name(self.src, n)
                    targets = [
                        t
                        for t in self.functions
                        if t.type == "method_definition" and function_name(self.src, t) == callee
                    ]
                    if not targets or not all(self._silent(t) for t in targets):
                        return False
                elif f.type == "member_expression" and _handed_object(self.src, n, handed):
                    return False  # `agent.processMessage(prompt)`: an object handed in
                elif (
                    f.type == "member_expression"
                    and callee_name(self.src, n) not in _PLAIN
                    and set(_chain_words(self.src, f)) & _ASKING
                    and _root_name(self.src, n) not in named
                ):
                    return False  # `openai.chat.completions.create(options)`: a model client's
            elif n.type == "new_expression":
                if _root_name_new(self.src, n) in named:
                    return False
            elif n.type in ("jsx_opening_element", "jsx_self_closing_element"):
                tag = n.child_by_field_name("name")
                root = self.src.text(tag).split(".")[0] if tag is not None else ""
                if root in named or self._local(root):
                    return False  # the project's component: what it does with its props
        return True

    def in_test_at(self, line: int) -> bool:
        """Whether `line` lies in a test: a function named for testing, or a callback handed
        to `it`, `test`, `describe` or a hook of theirs."""
        fn = self.around(line)
        return fn is not None and self._in_test(fn)

    def runs_once(self, line: int) -> bool:
        """Whether `line` lies in a script's one run: a function of this module, not exported
        nor a method, with no loop and no listener, called once and only from module level
        (`main().catch(...)`). It sends its requests once, so a window it keeps or a side
        request it makes never moves between requests of a conversation."""
        fn = self.around(line)
        if fn is None or _callback(fn) or _exported(fn) or fn.type == "method_definition":
            return False
        name = function_name(self.src, fn)
        if not name:
            return False
        for n in self._own(fn):
            if n.type in _LOOPS:
                return False
            if n.type == "call_expression" and callee_name(self.src, n) in _LISTENS:
                return False
        uses = [
            n
            for n in walk(self.src.root)
            if n.type == "identifier" and self.src.text(n) == name and not _declares(n, fn)
        ]
        return len(uses) == 1 and _called(uses[0]) and self.around_node(uses[0]) is None

    def answers_client(self, line: int) -> bool:
        """Whether `line` lies in an HTTP handler that asks no model: a function that writes
        its answer to a response object it is handed (`res.json(rows)`, `reply.send(...)`)
        and makes no request of its own nor calls anything that may ask one. What it reads
        (a page of stored conversations for a dashboard) goes to a client, not to a prompt."""
        fn = self.around(line)
        while fn is not None and _callback(fn) and not self._route(fn):
            if self._platform_handler(fn):
                # a chat platform's event handler: its message (`message.channel.send(...)`)
                # is no HTTP response, and what it hands the project's modules may ask
                return self._quiet(fn)
            up = self.around_node(fn)
            if up is None:
                break
            fn = up
        if fn is None or self.sites(fn):
            return False
        if self._platform_handler(fn):
            return self._quiet(fn)
        if self._serves_platform(fn):
            return True
        params = fn.child_by_field_name("parameters")
        names = {
            self.src.text(p.child_by_field_name("pattern") or p)
            for p in (params.named_children if params is not None else [])
        }
        single = fn.child_by_field_name("parameter")  # `res => res.json(rows)`
        if single is not None:
            names.add(self.src.text(single))
        for n in self._own(fn):
            if n.type != "call_expression" or callee_name(self.src, n) not in _ANSWERS:
                continue
            f = unwrap(n.child_by_field_name("function"))  # type: ignore[arg-type]
            root = f
            while root.type in ("member_expression", "call_expression"):
                inner = root.child_by_field_name(
                    "object" if root.type == "member_expression" else "function"
                )
                if inner is None:
                    break
                root = unwrap(inner)
            if root.type == "identifier" and self.src.text(root) in names:
                return True
        return False

    def _route(self, fn: Node) -> bool:
        """A callback that handles one HTTP request: handed (directly or through a wrapper,
        `asyncHandler(async (req, res) => ...)`) to `router.post("/token", ...)`,
        `app.get(...)`: the framework calls it per request, apart from its neighbours."""
        n: Node | None = fn.parent
        for _ in range(4):
            if n is None:
                return False
            if n.type == "call_expression" and callee_name(self.src, n) in _ROUTE_METHODS:
                args = arguments(n)
                path = string_value(self.src, unwrap(args[0])) if args else None
                return path is not None and path.startswith("/")
            n = n.parent
        return False

    def _in_test(self, fn: Node) -> bool:
        n: Node | None = fn
        while n is not None:
            if n.type in FUNCTIONS and is_test_name(function_name(self.src, n)):
                return True
            if (
                n.type == "arguments"
                and n.parent is not None
                and callee_name(self.src, n.parent) in _TEST_CALLS
            ):
                return True
            n = n.parent
        return False

    def reached(self, fn: Node, depth: int, seen: set[int]) -> list[Site]:
        seen.add(fn.id)
        own = self.sites(fn)
        if own:
            return own
        name = function_name(self.src, fn)
        if self._answers_platform(fn):
            # A chat platform's handler that asks no model (`client.on("messageCreate", ...)`,
            # `execute(interaction: CommandInteraction)`): the platform calls it for one
            # event, and what it builds goes back to the platform's user.
            return [Site(fn.start_point[0] + 1, ONE_SHOT, "a platform's handler that asks nothing")]
        if _exported(fn):
            if name in _HANDLERS:
                # A route handler that asks no model: the framework calls it for one HTTP
                # request, and what it builds goes to its response or a queue.
                return [Site(fn.start_point[0] + 1, ONE_SHOT, "a route handler that sends nothing")]
            return self._elsewhere(fn, name) or [
                Site(fn.start_point[0] + 1, CONVERSATION, "exported")
            ]
        callers = [c for c in self.functions if c.id not in seen and name and self._calls(c, name)]
        if not callers or depth >= _DEPTH:
            return [Site(fn.start_point[0] + 1, CONVERSATION, "not followed")]
        out: list[Site] = []
        for c in callers:
            out += self.reached(c, depth + 1, seen)
        return out

    def _elsewhere(self, fn: Node, name: str) -> list[Site]:
        """The requests an exported function (not a method) reaches through its callers in the
        project's other files (`prompts.ts` imported by `chat.service.ts`), one file away;
        empty where no other file is read, none calls it, or one uses it in a way not followed
        (a namespace import, a re-export, the function handed on as a value): the finding is
        then kept. Worked out once a function, whatever its findings."""
        if fn.id not in self._away:
            self._away[fn.id] = self._find_elsewhere(fn, name)
        return self._away[fn.id]

    def _find_elsewhere(self, fn: Node, name: str) -> list[Site]:
        if self.importers is None or not name or fn.parent is None:
            return []
        if any(n.type in ("class_body", "method_definition") for n in _ancestors(fn, 3)):
            return []
        out: list[Site] = []
        for other, local in self.importers(self.src.path, name):
            if not local:
                return []
            there = _Index(other)
            uses = _uses_of(other, local)
            if any(not _called(n) or there.around_node(n) is None for n in uses):
                return []  # handed on as a value, or called at module level
            for c in [c for c in there.functions if there._calls(c, local)]:
                out += there.reached(c, 1, set())
        return out

    def _calls(self, fn: Node, name: str) -> bool:
        """Whether `fn` itself calls `name`: what it calls is worked out once a function."""
        if fn.id not in self._callees:
            self._callees[fn.id] = frozenset(
                callee_name(self.src, n) for n in self._own(fn) if n.type == "call_expression"
            )
        return name in self._callees[fn.id]

    def _own(self, fn: Node) -> list[Node]:
        """The nodes of `fn`'s body and of the callbacks it hands to calls (they run as part
        of it: `prisma.$transaction(async (tx) => ...)`), not those of functions it names."""
        out: list[Node] = []
        todo = list(fn.children)
        while todo:
            n = todo.pop()
            out.append(n)
            todo.extend(c for c in n.children if c.type not in FUNCTIONS or _callback(c))
        return out

    def sites(self, fn: Node) -> list[Site]:
        if fn.id not in self._sites:
            self._sites[fn.id] = [self._looped(s, fn) for s in self._find_sites(fn)]
        return self._sites[fn.id]

    def _looped(self, site: Site, fn: Node) -> Site:
        """A one-shot request made inside a loop of `fn` is sent again on the next pass with
        the same prefix (a request per item of a list): the next pass reads its cache, so it
        counts as a conversation's request."""
        if site.kind != ONE_SHOT:
            return site
        for n in self._own(fn):
            if n.type in _LOOPS and n.start_point[0] + 1 < site.line <= n.end_point[0] + 1:
                return Site(site.line, CONVERSATION, f"{site.reason}, in a loop")
        return site

    def _find_sites(self, fn: Node) -> list[Site]:
        out: list[Site] = []
        for n in self._own(fn):
            if n.type == "object":
                keys = _keys(self.src, n)
                if keys is None:
                    if self._request_like(n):
                        out.append(Site(_line(n), CONVERSATION, "options spread in"))
                    continue
                asks = keys.keys() & (_REQUEST_KEYS | _USER_TEXT)
                if not asks and "instructions" in keys and keys.keys() & _REALTIME_KEYS:
                    if self._updated_per_turn(n, fn):
                        out.append(Site(_line(n), CONVERSATION, "a live session's update"))
                    else:
                        out.append(Site(_line(n), ONE_SHOT, "a realtime session's start"))
                    continue
                if not (asks and keys.keys() & {"model", "system"}):
                    continue
                out.append(Site(_line(n), self._kind(keys, fn), "request options"))
            elif n.type == "call_expression":
                callee = callee_name(self.src, n)
                if (
                    _sql(self.src, n)
                    or _builds_prompt(callee)
                    or (_names_prompt(callee) and not self._hands_history(n))
                ):
                    continue
                if set(words(callee)[:1]) & _PREDICATE:
                    continue  # `isLLMAvailable()`: a yes or no about the model, not a request
                if not set(words(callee)) & _ASKING or any(
                    unwrap(a).type == "object"
                    and (_keys(self.src, unwrap(a)) or {}).keys() & _REQUEST_KEYS
                    for a in arguments(n)
                ):
                    continue
                if self._to_platform(n):
                    # `interaction.reply(answer)`, `bot.sendMessage(chatId, text)`: a message
                    # shown to a chat platform's user, named like a request but asking nothing
                    continue
                handed = self._handed(n, fn)
                if handed == _RECORD or self._asks_nothing(n):
                    continue
                if handed == ONE_SHOT:
                    # `this.invokeModel(model, [{ role: 'system', ... }, { role: 'user', ... }])`,
                    # `callLLM(systemPrompt, user)`: what it is handed holds no history
                    out.append(Site(_line(n), ONE_SHOT, "a fresh system prompt and user text"))
                else:
                    out.append(Site(_line(n), CONVERSATION, f"`{callee}` not read"))
        return out

    def _answers_platform(self, fn: Node) -> bool:
        """A chat platform's event handler that makes no request, reaches no network or
        process and hands nothing to the project's own modules (which may ask a model)."""
        return self._platform_handler(fn) and self._quiet(fn)

    def _platform_handler(self, fn: Node) -> bool:
        return platform_handler(self.src, fn, self._platform_names())

    def _platform_names(self) -> frozenset[str]:
        """What the file binds to a chat platform: worked out once, on first need."""
        if self._platform is None:
            self._platform = platform_values(self.src)
        return self._platform

    def _serves_platform(self, fn: Node) -> bool:
        """A helper of this file, not exported, that asks nothing and is called only by chat
        platform handlers that ask nothing (`handleDeleteMessages({ channels })` called by a
        command's `execute(interaction)`)."""
        name = function_name(self.src, fn)
        if not name or _exported(fn) or not self._quiet(fn):
            return False
        callers = [c for c in self.functions if c.id != fn.id and self._calls(c, name)]
        return bool(callers) and all(self._answers_platform(c) for c in callers)

    def _quiet(self, fn: Node) -> bool:
        """No request, no network or process, nothing handed to the project's own modules."""
        if self.sites(fn):
            return False
        if self._project is None:
            self._project = project_imports(self.src)
        for n in self._own(fn):
            if self._reaches_out(n):
                return False
            if n.type == "call_expression" and _root_name(self.src, n) in self._project:
                return False
        return True

    def _to_platform(self, call: Node) -> bool:
        """A call on a chat platform's value (its client, an event's interaction, message or
        context)."""
        return on_platform(self.src, call, self._platform_names())

    def _handed(self, call: Node, fn: Node) -> str:
        """What a call known only by its asking name is handed, as the kind of request it
        makes: CONVERSATION where any argument carries a history (a spread, a list that is
        not a fresh pair, a name for a conversation, an object holding one); ONE_SHOT where it
        is handed a fresh message list (`[{ role: "system" }, { role: "user" }]`, or a local
        declared so and never grown) or a system prompt's text with the other arguments
        holding no history (`callActionLLM(systemPrompt, user, options)`); _RECORD where its
        arguments are records with nothing to ask (`tracker.trackCall({ purpose, model })`).
        Anything else (one text handed to an object that may keep the chat: `chat.send(q)`)
        is a conversation."""
        args = [unwrap(a) for a in arguments(call)]
        if any(self._holds_history(a, fn) for a in args):
            return CONVERSATION
        if any(self._fresh_list(a, fn) for a in args):
            return ONE_SHOT
        if args and all(a.type == "object" and self._record(a) for a in args):
            return _RECORD
        texts = [a for a in args if a.type in ("identifier", "member_expression")]
        if any(set(words(_last_name(self.src, a))) & {"system", "instructions"} for a in texts):
            return ONE_SHOT
        return CONVERSATION

    def _holds_history(self, arg: Node, fn: Node) -> bool:
        if arg.type == "spread_element":
            return True
        if arg.type == "array":
            return not self._fresh_pair(arg)
        if arg.type == "object":
            for p in arg.named_children:
                # `{ ...modelConfig, max_tokens }`: settings, unless named for a chat
                if (
                    p.type == "spread_element"
                    and p.named_children
                    and _history_named(_last_name(self.src, unwrap(p.named_children[0])))
                ):
                    return True
                if p.type == "shorthand_property_identifier" and _history_named(self.src.text(p)):
                    return True
                if p.type == "pair":
                    key = key_name(self.src, p.child_by_field_name("key")) or ""
                    value = p.child_by_field_name("value")
                    if _history_named(key) or (
                        value is not None and self._holds_history(unwrap(value), fn)
                    ):
                        return True
            return False
        if arg.type in ("identifier", "member_expression"):
            if self._fresh_list(arg, fn):
                return False  # `const messages = [system, user]`: named so, built fresh
            if _history_named(_last_name(self.src, arg)):
                return True
            if arg.type == "identifier":
                return self._local_list(arg, fn) and not self._fresh_list(arg, fn)
        return False

    def _local_list(self, ident: Node, fn: Node) -> bool:
        """Whether a local of `fn` is declared as a list (an array literal)."""
        name = self.src.text(ident)
        return any(
            n.type == "variable_declarator"
            and self.src.text(n.child_by_field_name("name")) == name
            and (v := n.child_by_field_name("value")) is not None
            and unwrap(v).type == "array"
            for n in self._own(fn)
        )

    def _fresh_list(self, arg: Node, fn: Node) -> bool:
        """A fresh pair, literal or a local declared as one and never grown or reassigned."""
        if arg.type == "array":
            return self._fresh_pair(arg)
        return (
            arg.type == "identifier"
            and self._local_list(arg, fn)
            and self._local_kind(self.src.text(arg), fn) == ONE_SHOT
        )

    def _record(self, obj: Node) -> bool:
        """An object with nothing a model could be asked with: no message, prompt, text or
        system prompt among its keys (a tracker's or a logger's record)."""
        keys = _keys(self.src, obj)
        return keys is not None and not any(
            set(words(k)) & _ASKED_WITH or k in _REQUEST_KEYS | _USER_TEXT for k in keys
        )

    def _asks_nothing(self, call: Node) -> bool:
        """A call of a function this file defines (`generateFollowUpQuestions(content)`,
        `this.parseReply(text)`) whose every definition here makes no request, calls nothing
        named for asking a model and reaches no network or process: its name is no request,
        as its body shows. A function being worked out (a recursion) is taken to ask."""
        fn = call.child_by_field_name("function")
        fn = unwrap(fn) if fn is not None else None
        if fn is None:
            return False
        if fn.type == "identifier":
            method = False
        elif (
            fn.type == "member_expression"
            and unwrap(
                fn.child_by_field_name("object")  # type: ignore[arg-type]
            ).type
            == "this"
        ):
            method = True
        else:
            return False  # another object's method: its body is not here
        name = callee_name(self.src, call)
        targets = [
            f
            for f in self.functions
            if function_name(self.src, f) == name and (f.type == "method_definition") == method
        ]
        if not targets:
            return False
        for target in targets:
            if target.id in self._working:
                return False
            self._working.add(target.id)
            try:
                if self.sites(target) or any(self._reaches_out(n) for n in self._own(target)):
                    return False
            finally:
                self._working.discard(target.id)
        return True

    def _reaches_out(self, n: Node) -> bool:
        """A request's options (`{ messages }`, `{ prompt }`) or a call that leaves the process
        (`fetch`, `axios.post`, `spawn`): what a model may be asked through."""
        if n.type == "object":
            return bool((_keys(self.src, n) or {}).keys() & _REQUEST_KEYS) or self._request_like(n)
        return (
            n.type == "call_expression"
            and callee_name(self.src, n) in _OUTSIDE
            and not self._to_platform(n)  # `channel.send(text)`: to the platform's user
        )

    def _updated_per_turn(self, session: Node, fn: Node) -> bool:
        """A realtime session's settings changed where a turn is answered: a `session.update`
        event (or `client.updateSession(...)`) sent by a function that also asks for the
        response or adds the user's item. Its instructions change inside the live session,
        whose every later response reads them: not a start fixed once."""
        up = session.parent.parent if session.parent is not None else None
        if up is not None and up.type == "object":  # `{ type: "session.update", session }`
            kind = (_keys(self.src, up) or {}).get("type")
            update = kind is not None and string_value(self.src, unwrap(kind)) == "session.update"
        else:  # `client.updateSession({ instructions, voice })`
            update = (
                up is not None
                and up.type == "call_expression"
                and "update" in words(callee_name(self.src, up))
            )
        if not update:
            return False
        return any(
            (n.type == "string" and string_value(self.src, n) in _TURN_EVENTS)
            or (n.type == "call_expression" and callee_name(self.src, n) in _TURN_CALLS)
            for n in self._own(fn)
        )

    def _hands_history(self, call: Node) -> bool:
        """A call handed a conversation (`processPrompt(system, history)`, `...messages`): a
        name for a prompt does not say it only builds text when it is given the history."""
        for a in arguments(call):
            a = unwrap(a)
            if a.type == "spread_element":
                return True
            name = a.child_by_field_name("property") if a.type == "member_expression" else a
            if name is not None and name.type in ("identifier", "property_identifier"):
                ws = set(words(self.src.text(name)))
                if ws & HISTORY_WORDS and "system" not in ws:
                    return True
        return False

    def _fresh_pair(self, arg: Node) -> bool:
        return fresh_pair(self.src, arg)

    def _request_like(self, obj: Node) -> bool:
        return any(
            key_name(self.src, p.child_by_field_name("key")) in _REQUEST_KEYS
            for p in obj.named_children
            if p.type == "pair"
        )

    def _kind(self, keys: dict[str, Node | None], fn: Node) -> str:
        if keys.keys() & (_CHAINED | _CACHE_MARKS):
            return CONVERSATION
        if "messages" not in keys and keys.keys() & _USER_TEXT and "system" in keys:
            return ONE_SHOT  # `{ system, user }`: a helper's fresh pair of texts
        sent = None
        for k in ("messages", "input", "contents"):
            if k in keys:
                sent = keys[k]
                if sent is None:  # `{ messages }` shorthand: the local of that name
                    return self._local_kind(k, fn)
                break
        if sent is None:
            return ONE_SHOT if "prompt" in keys else CONVERSATION
        return self._value_kind(unwrap(sent), fn)

    def _value_kind(self, sent: Node, fn: Node) -> str:
        if string_value(self.src, sent) is not None or sent.type == "template_string":
            return ONE_SHOT
        if sent.type == "array":
            items = [unwrap(c) for c in sent.named_children if c.type != "comment"]
            ok = items and all(_role(self.src, i) in _ONE_SHOT_ROLES for i in items)
            return ONE_SHOT if ok else CONVERSATION
        if sent.type == "identifier":
            return self._local_kind(self.src.text(sent), fn)
        return CONVERSATION

    def _local_kind(self, name: str, fn: Node) -> str:
        values: list[Node] = []
        for n in self._own(fn):
            if n.type not in ("identifier", "shorthand_property_identifier"):
                continue
            if self.src.text(n) != name:
                continue
            p = n.parent
            if p is None:
                continue
            if p.type == "variable_declarator" and p.child_by_field_name("name") == n:
                value = p.child_by_field_name("value")
                if value is None:
                    continue
                values.append(unwrap(value))
            elif p.type in ("assignment_expression", "augmented_assignment_expression"):
                if p.child_by_field_name("left") == n:
                    return CONVERSATION  # reassigned
            elif p.type == "spread_element":
                return CONVERSATION
            elif p.type == "member_expression" and p.child_by_field_name("object") == n:
                prop = self.src.text(p.child_by_field_name("property"))
                if prop in ("push", "unshift", "splice", "concat"):
                    return CONVERSATION
        if not values:
            return CONVERSATION
        kinds = {self._value_kind(v, fn) for v in values}
        return ONE_SHOT if kinds == {ONE_SHOT} else CONVERSATION


# The kind of a call handed only records (a tracker's, a logger's): no request at all.
_RECORD = "record"
# Words of a key that a model could be asked with: a record holding none asks nothing.
_ASKED_WITH = frozenset(
    {"message", "messages", "prompt", "text", "content", "query", "question", "system", "input"}
    | {"instructions", "history", "conversation", "chat", "contents", "user"}
)
# Last words of a name that says it is about a conversation, not the conversation itself.
_ABOUT = frozenset({"id", "ids", "name", "count", "length", "title", "type", "key", "url"})


# First words of a predicate's name (`isLLMAvailable`, `hasModel`, `canStream`): it answers
# yes or no about the model or its setup and sends it nothing.
_PREDICATE = frozenset({"is", "has", "can", "should", "supports"})


def _history_named(name: str) -> bool:
    """A name for a conversation (`history`, `chatMessages`), not one about it (`sessionId`)."""
    ws = words(name)
    return bool(ws) and bool(set(ws) & HISTORY_WORDS) and ws[-1] not in _ABOUT


def _last_name(src: Source, node: Node) -> str:
    """`this.state.systemPrompt` -> `systemPrompt`; an identifier's own name."""
    if node.type == "member_expression":
        prop = node.child_by_field_name("property")
        return src.text(prop) if prop is not None else ""
    return src.text(node)


def fresh_pair(src: Source, arg: Node) -> bool:
    """A literal list of system, developer and user messages, each a literal object or one of
    LangChain.js's forms (`["human", text]`, `new HumanMessage(text)`)."""
    if arg.type != "array":
        return False
    items = [unwrap(c) for c in arg.named_children if c.type != "comment"]
    return bool(items) and all(_role(src, i) in _ONE_SHOT_ROLES for i in items)


def _sql(src: Source, call: Node) -> bool:
    """A call handed SQL as its first argument: a database query."""
    args = arguments(call)
    first = unwrap(args[0]) if args else None
    text = string_value(src, first) if first is not None else None
    if text is None and first is not None and first.type == "template_string":
        text = src.text(first)[1:]
    return text is not None and bool(_SQL.match(text))


def _builds_prompt(callee: str) -> bool:
    """A callee named for building a prompt's text (`buildSystemPrompt`), not for asking."""
    ws = words(callee)
    return len(ws) > 1 and ws[0] in _BUILDS and ws[-1] in _BUILT


def _names_prompt(callee: str) -> bool:
    """`AnswerSystemPrompt(docs)`: a name for a prompt with no word of asking besides it."""
    ws = words(callee)
    return ws[-1:] in (["prompt"], ["prompts"]) and not set(ws[:-1]) & (_ASKING - {"model"})


def _keys(src: Source, obj: Node) -> dict[str, Node | None] | None:
    """An object literal's keys and values; None where it spreads another object in."""
    out: dict[str, Node | None] = {}
    for p in obj.named_children:
        if p.type == "pair":
            k = key_name(src, p.child_by_field_name("key"))
            if k is not None:
                out[k] = p.child_by_field_name("value")
        elif p.type == "shorthand_property_identifier":
            out[src.text(p)] = None
        elif p.type == "spread_element":
            return None
    return out


# LangChain.js's message forms, by the role each stands for: a `["human", text]` pair, a
# `new HumanMessage(text)` (a one-shot list is written in them as often as in role objects).
_LANGCHAIN_ROLES = {
    "system": "system",
    "human": "user",
    "user": "user",
    "ai": "assistant",
    "assistant": "assistant",
    "SystemMessage": "system",
    "HumanMessage": "user",
    "AIMessage": "assistant",
}


def _role(src: Source, item: Node) -> str | None:
    if item.type == "array":  # `["system", text]`: a role and its text
        parts = [c for c in item.named_children if c.type != "comment"]
        first = string_value(src, parts[0]) if len(parts) == 2 else None
        return _LANGCHAIN_ROLES.get(first) if first in ("system", "human", "user", "ai") else None
    if item.type == "new_expression":  # `new SystemMessage(text)`
        made = item.child_by_field_name("constructor")
        name = src.text(made) if made is not None else ""
        return _LANGCHAIN_ROLES.get(name) if name.endswith("Message") else None
    if item.type != "object":
        return None
    keys = _keys(src, item)
    if keys is None:
        return None
    role = keys.get("role")
    while role is not None and role.type in ("as_expression", "satisfies_expression"):
        role = role.named_children[0] if role.named_children else None
    return string_value(src, role) if role is not None else None


def _exported(fn: Node) -> bool:
    # A method counts too: its class may be used anywhere.
    return any(
        n.type in ("export_statement", "class_body", "method_definition") for n in _ancestors(fn, 3)
    )


def _root_name(src: Source, call: Node) -> str:
    """The first name of what a call calls: `ai` in `ai.answer(q)`, `answer` in `answer(q)`."""
    fn = call.child_by_field_name("function")
    while fn is not None and unwrap(fn).type == "member_expression":
        fn = unwrap(fn).child_by_field_name("object")
    return src.text(unwrap(fn)) if fn is not None else ""


def _ancestors(fn: Node, n: int) -> list[Node]:
    out: list[Node] = []
    p = fn.parent
    while p is not None and len(out) < n:
        out.append(p)
        p = p.parent
    return out


def _this_call(f: Node) -> bool:
    obj = f.child_by_field_name("object")
    return obj is not None and unwrap(obj).type == "this"


def _root_name_new(src: Source, new: Node) -> str:
    ctor = new.child_by_field_name("constructor")
    while ctor is not None and unwrap(ctor).type == "member_expression":
        ctor = unwrap(ctor).child_by_field_name("object")
    return src.text(unwrap(ctor)) if ctor is not None else ""


def _class_method(src: Source, cls: str, name: str) -> Node | None:
    """The method `name` of the module's class `cls` (`export class Logger { static error()
    }`)."""
    for c in src.root.named_children:
        c = c.child_by_field_name("declaration") or c if c.type == "export_statement" else c
        if c.type not in ("class_declaration", "abstract_class_declaration"):
            continue
        if src.text(c.child_by_field_name("name")) != cls:
            continue
        for n in walk(c):
            if n.type == "method_definition" and function_name(src, n) == name:
                return n
    return None


def _commonjs_export(src: Source, use: Node) -> bool:
    """A name exported the CommonJS way (`module.exports = { name }`, `exports.name = name`)."""
    n: Node | None = use.parent
    while n is not None and n.type not in ("assignment_expression", "statement_block"):
        n = n.parent
    return (
        n is not None
        and n.type == "assignment_expression"
        and src.text(n.child_by_field_name("left")).startswith(("module.exports", "exports."))
    )


def _dropped(call: Node) -> bool:
    """Whether a call throws its result away (`main();`, `app.get("/", handler);`,
    `main().catch(console.error)`, `await main()`): nothing there can send it."""
    n = call.parent
    while n is not None and n.type in ("await_expression", "member_expression", "call_expression"):
        n = n.parent
    return n is not None and n.type == "expression_statement"


# Methods of lists, strings and maps: called on an object handed in, they ask nothing.
_PLAIN = frozenset(
    {"push", "unshift", "splice", "slice", "map", "filter", "join", "concat", "includes"}
    | {"indexOf", "get", "has", "set", "add", "delete", "find", "findIndex", "some", "every"}
    | {"reduce", "forEach", "split", "replace", "replaceAll", "startsWith", "endsWith", "trim"}
    | {"sort", "reverse", "flat", "flatMap", "at", "toString", "padStart", "padEnd", "match"}
    | {"test", "localeCompare", "toFixed", "substring", "toLowerCase", "toUpperCase", "keys"}
    | {"values", "entries", "fill", "pop", "shift", "lastIndexOf", "charAt", "repeat"}
)


def _chain_words(src: Source, f: Node) -> list[str]:
    """The words of the names along a callee's member chain (`openai.chat.completions.create`
    -> openai, chat, completions, create), not those of the arguments on the way."""
    out: list[str] = []
    n: Node | None = f
    while n is not None:
        n = unwrap(n)
        if n.type == "member_expression":
            out += words(src.text(n.child_by_field_name("property")))
            n = n.child_by_field_name("object")
        elif n.type == "call_expression":
            n = n.child_by_field_name("function")
        else:
            if n.type in ("identifier", "this"):
                out += words(src.text(n))
            break
    return out


def _handed_object(src: Source, call: Node, handed: set[str]) -> bool:
    """A method call on an object handed in (a parameter, or a field of `this` other than
    its methods) with a value among its arguments (`agent.processMessage(prompt)`,
    `this.store.save(rows)`): what that object does is not seen here. Plain list, string
    and map methods (`messages.slice(-20)`) are not such calls."""
    if callee_name(src, call) in _PLAIN:
        return False
    f = unwrap(call.child_by_field_name("function"))  # type: ignore[arg-type]
    obj = f.child_by_field_name("object")
    if obj is None:
        return False
    obj = unwrap(obj)
    if obj.type == "member_expression":  # `this.store.save(...)`
        inner = obj.child_by_field_name("object")
        by_field = inner is not None and unwrap(inner).type == "this"
    else:
        by_field = False
    root = obj
    while root.type in ("member_expression", "subscript_expression", "call_expression"):
        inner = root.child_by_field_name("function" if root.type == "call_expression" else "object")
        if inner is None:
            break
        root = unwrap(inner)
    if not by_field and not (root.type == "identifier" and src.text(root) in handed):
        return False
    return any(
        unwrap(a).type not in ("string", "number", "true", "false", "null", "arrow_function")
        and unwrap(a).type not in FUNCTIONS
        for a in arguments(call)
    )


def _handed(obj: Node) -> bool:
    """Whether an object is an argument of a call, directly or inside a list or object."""
    n = obj.parent
    while n is not None and n.type in ("pair", "object", "array", "parenthesized_expression"):
        n = n.parent
    return n is not None and n.type == "arguments"


def _answer_argument(src: Source, obj: Node) -> bool:
    """An object handed to an HTTP answer (`res.json({ messages: rows })`)."""
    n = obj.parent
    while n is not None and n.type in ("arguments", "parenthesized_expression"):
        n = n.parent
    return n is not None and n.type == "call_expression" and nowhere_answers(src, n)


def _callback(fn: Node) -> bool:
    """An anonymous function handed to a call (`items.map((m) => ...)`, `tx => ...`)."""
    return fn.type in ("arrow_function", "function_expression", "function") and (
        fn.parent is not None and fn.parent.type == "arguments"
    )


def _uses_of(other: Source, local: str) -> list[Node]:
    """Where a file names what it imported as `local`, its import itself left out."""
    return [
        n
        for n in walk(other.root)
        if n.type in ("identifier", "shorthand_property_identifier")
        and other.text(n) == local
        and not _imported_as(n)
    ]


def _called(ident: Node) -> bool:
    """Whether a name is the callee of a call (`AnswerSystemPrompt(rows)`)."""
    p = ident.parent
    return (
        p is not None and p.type == "call_expression" and p.child_by_field_name("function") == ident
    )


def _imported_as(ident: Node) -> bool:
    """Whether a name is the one an import statement binds (`import { P } from "./p"`)."""
    return any(n.type == "import_statement" for n in _ancestors(ident, 4))


def _line(n: Node) -> int:
    return n.start_point[0] + 1


def text_handed_in(src: Source, content: Node, conversation_named: Callable[[str], bool]) -> bool:
    """Whether each value named for a conversation in a side request's message text is one
    string handed in: a parameter declared `string` (`transcript: string`, a lesson's or a
    finished call's transcript) or a local made from one (`transcript.substring(0, 2000)`).
    Such a request reads no message list of this file's conversation: it is one-shot work on
    a text. A message list, or a name whose origin is not seen, is a conversation."""
    named: list[Node] = []
    for x in walk(content):
        if x.type != "identifier":
            continue
        if conversation_named(src.text(x)):
            named.append(x)
            continue
        value = declared_value(src, x)  # `sample`, made from the transcript
        if value is not None:
            named += [
                y for y in walk(value) if y.type == "identifier" and conversation_named(src.text(y))
            ]
    return bool(named) and all(_string_parameter(src, x, conversation_named, 0) for x in named)


def _string_parameter(
    src: Source, ident: Node, conversation_named: Callable[[str], bool], depth: int
) -> bool:
    name = src.text(ident)
    fn = ident.parent
    while fn is not None and fn.type not in FUNCTIONS:
        fn = fn.parent
    if fn is None:
        return False
    params = fn.child_by_field_name("parameters")
    for p in params.named_children if params is not None else []:
        pattern = p.child_by_field_name("pattern")
        if pattern is not None and src.text(pattern) == name:
            kind = p.child_by_field_name("type")
            return kind is not None and src.text(kind).lstrip(": ").strip() == "string"
    if depth >= 2:
        return False
    value = declared_value(src, ident)
    if value is None:
        return False
    inner = [x for x in walk(value) if x.type == "identifier" and conversation_named(src.text(x))]
    return bool(inner) and all(
        _string_parameter(src, x, conversation_named, depth + 1) for x in inner
    )


# Calls that keep a window's items (in their order, or all of them turned round: rows read
# newest first are `reverse`d into the history's order).
_KEEP_ORDER = frozenset({"map", "filter", "reverse"})


def rows_sent(src: Source, read: Node) -> bool:
    """Whether the rows a store read returns (`await Message.find(q).sort(...).limit(n)`) are
    bound to a local that is sent after a system prompt (spread, pushed item by item,
    concatenated or beside it), however the collection is named."""
    holder = read.parent
    while holder is not None and holder.type in ("await_expression", "parenthesized_expression"):
        holder = holder.parent
    if holder is None or holder.type != "variable_declarator":
        return False
    fn = holder.parent
    while fn is not None and fn.type not in FUNCTIONS:
        fn = fn.parent
    name = src.text(holder.child_by_field_name("name"))
    return fn is not None and _name_sent(src, fn, name)


def window_sent(
    src: Source, cut: Node, depth: int = 0, aside: Callable[[Node], bool] | None = None
) -> bool:
    """Whether what `cut` (a `.slice(-n)` of any list) keeps reaches a request as its history:
    through an order-keeping chain (`.map`, `.filter`) it is bound to a name that is spread
    after a system message (`[{ role: 'system', ... }, ...history]`, or pushed with a spread
    into a list that starts with one: `apiMessages.push(...history)`). The list's own name does
    not matter: where the cut goes decides it. A cut a function of this file returns
    (`const lastTurns = (h) => h.slice(-8)`) goes where its calls go, two functions deep, but
    for the calls `aside` says feed a side request (a title, a summary)."""
    n = cut
    while (
        n.parent is not None
        and n.parent.type == "member_expression"
        and n.parent.parent is not None
        and n.parent.parent.type == "call_expression"
        and callee_name(src, n.parent.parent) in _KEEP_ORDER
    ):
        n = n.parent.parent
    holder = n.parent
    while holder is not None and holder.type in ("as_expression", "satisfies_expression"):
        holder = holder.parent
    if holder is not None and holder.type == "spread_element":
        return _after_system(src, holder)
    if holder is not None and depth < 2 and _returned_by(holder, n):
        return any(
            window_sent(src, call, depth + 1, aside)
            for call in _calls_of(src, holder)
            if aside is None or not aside(call)
        )
    if holder is not None and holder.type == "assignment_expression":
        # `this.kept = this.items.slice(-12)`: an attribute, read in any method of the class.
        left = holder.child_by_field_name("left")
        if left is None or left.type != "member_expression":
            return False
        if unwrap(left.child_by_field_name("object")).type != "this":  # type: ignore[arg-type]
            return False
        return _name_sent(src, src.root, src.text(left))
    if holder is None or holder.type != "variable_declarator":
        return False
    name = src.text(holder.child_by_field_name("name"))
    fn = holder.parent
    while fn is not None and fn.type not in FUNCTIONS:
        fn = fn.parent
    return fn is not None and _name_sent(src, fn, name)


def _name_sent(src: Source, scope: Node, name: str) -> bool:
    """Whether the list a local or an attribute `name` holds is sent after a system prompt
    somewhere in `scope`: spread after a system message, pushed item by item onto a list that
    starts with one, concatenated onto one (`[system].concat(kept)`), or sent as the messages
    of a request that carries its system prompt beside them (`{ system, messages: kept }`)."""
    for x in walk(scope):
        if x.type == "spread_element" and x.named_children:
            sent = src.text(_kept_order_root(src, x.named_children[0])) == name
            sent = sent and _after_system(src, x)
        elif x.type == "for_in_statement":
            sent = _pushed_after_system(src, x, name)
        elif x.type in ("identifier", "member_expression") and src.text(x) == name:
            sent = _concatenated_after_system(src, x) or _beside_system(src, x)
        else:
            sent = False
        if sent:
            return True
    return False


def _concatenated_after_system(src: Source, use: Node) -> bool:
    """`[{ role: "system", content }].concat(kept)`: the list appended after a system head."""
    args = use.parent
    call = args.parent if args is not None and args.type == "arguments" else None
    if call is None or callee_name(src, call) != "concat":
        return False
    fn = call.child_by_field_name("function")
    head = fn.child_by_field_name("object") if fn is not None else None
    if head is None:
        return False
    head = unwrap(head)
    if head.type == "identifier":
        value = declared_value(src, head)
        head = unwrap(value) if value is not None else head
    return head.type == "array" and _after_system_head(src, head)


_SYSTEM_KEYS = frozenset({"system", "systemInstruction", "instructions"})


def _beside_system(src: Source, use: Node) -> bool:
    """`{ system: sys, messages: kept }`: the list is a request's messages, its system prompt
    given beside it (Anthropic, the AI SDK): the list follows that prompt in the prefix."""
    pair = use.parent
    if pair is None or pair.type != "pair" or pair.child_by_field_name("value") != use:
        return False
    if key_name(src, pair.child_by_field_name("key")) != "messages" or pair.parent is None:
        return False
    keys = _keys(src, pair.parent)
    return keys is not None and bool(keys.keys() & _SYSTEM_KEYS)


def _kept_order_root(src: Source, node: Node) -> Node:
    """`recent.map(toModel)` -> `recent`: the list an order-keeping chain starts from."""
    node = unwrap(node)
    while node.type == "call_expression" and callee_name(src, node) in _KEEP_ORDER:
        fn = node.child_by_field_name("function")
        obj = fn.child_by_field_name("object") if fn is not None else None
        if obj is None:
            break
        node = unwrap(obj)
    return node


def _pushed_after_system(src: Source, loop: Node, name: str) -> bool:
    """`for (const m of recent) messages.push({ role: m.role, content: m.content })` where
    `messages` starts with a system message: each item of the list `name` is appended, in
    order, after the system prompt, the same as a spread of it."""
    right = loop.child_by_field_name("right")
    body = loop.child_by_field_name("body")
    if right is None or body is None or src.text(_kept_order_root(src, right)) != name:
        return False
    for c in walk(body):
        if c.type != "call_expression" or callee_name(src, c) != "push":
            continue
        fn = c.child_by_field_name("function")
        target = fn.child_by_field_name("object") if fn is not None else None
        if target is None or target.type != "identifier":
            continue
        value = declared_value(src, target)
        if value is not None and unwrap(value).type == "array" and _after_system_head(src, value):
            return True
    return False


def _returned_by(holder: Node, value: Node) -> bool:
    """Whether `value`, whose parent is `holder`, is what a function returns: `return value`,
    or the body of an arrow function (`(h) => value`)."""
    if holder.type == "return_statement":
        return True
    return holder.type == "arrow_function" and holder.child_by_field_name("body") == value


def _calls_of(src: Source, holder: Node) -> list[Node]:
    """The calls, in this file, of the named function whose return `holder` is: by its own
    name (`trim(history)`) or, for a method, through `this` (`this.trim(history)`)."""
    fn: Node | None = holder if holder.type in FUNCTIONS else holder.parent
    while fn is not None and fn.type not in FUNCTIONS:
        fn = fn.parent
    if fn is None:
        return []
    name = function_name(src, fn)
    if not name:
        return []
    method = fn.type == "method_definition"
    out: list[Node] = []
    for c in walk(src.root):
        if c.type != "call_expression" or callee_name(src, c) != name:
            continue
        f = unwrap(c.child_by_field_name("function"))  # type: ignore[arg-type]
        if method and f.type == "member_expression":
            if unwrap(f.child_by_field_name("object")).type == "this":  # type: ignore[arg-type]
                out.append(c)
        elif not method and f.type == "identifier":
            out.append(c)
    return out


def _after_system(src: Source, spread: Node) -> bool:
    """A spread into a message list whose first item is a system message: in an array literal,
    or in the arguments of a `push` onto a local declared so."""
    p = spread.parent
    if p is None:
        return False
    if p.type == "array":
        first = next((c for c in p.named_children if c.type != "comment"), None)
        return first is not None and _system_item(src, first)
    if p.type != "arguments" or p.parent is None or callee_name(src, p.parent) != "push":
        return False
    fn = p.parent.child_by_field_name("function")
    target = fn.child_by_field_name("object") if fn is not None else None
    if target is None or target.type != "identifier":
        return False
    value = declared_value(src, target)
    if value is None or unwrap(value).type != "array":
        return False
    if unwrap(value).named_children:
        return _after_system_head(src, value)
    return _first_push_system(src, target)


def _first_push_system(src: Source, target: Node) -> bool:
    """`const prompt = []; prompt.push(systemPrompt); ... prompt.push(...recent)`: a list
    declared empty whose first push, in the function, is the system message (a message
    object with the system role, or a value named for the system message)."""
    fn = target.parent
    while fn is not None and fn.type not in FUNCTIONS:
        fn = fn.parent
    name = src.text(target)
    for c in walk(fn) if fn is not None else []:
        if c.type != "call_expression" or callee_name(src, c) != "push":
            continue
        f = c.child_by_field_name("function")
        obj = f.child_by_field_name("object") if f is not None else None
        if obj is None or src.text(obj) != name:
            continue
        args = c.child_by_field_name("arguments")
        first = args.named_children[0] if args is not None and args.named_children else None
        if first is None:
            return False
        first = unwrap(first)
        named = set(words(src.text(first))) if first.type == "identifier" else set()
        return _system_item(src, first) or (
            "system" in named and bool(named & {"prompt", "message", "msg"})
        )
    return False


def _after_system_head(src: Source, array: Node) -> bool:
    items = [c for c in unwrap(array).named_children if c.type != "comment"]
    return bool(items) and _system_item(src, items[0])


def _system_item(src: Source, item: Node) -> bool:
    """A message list's item that is a system message: an object literal with the system
    role, or a local declared as one (`const system = { role: "system", content }` then
    `[system, ...recent]`)."""
    item = unwrap(item)
    if item.type == "identifier":
        value = declared_value(src, item)
        item = unwrap(value) if value is not None else item
    return item.type == "object" and _role(src, item) == "system"


def _declares(ident: Node, fn: Node) -> bool:
    """Whether `ident` is the name `fn` is declared under (`function main`, `const main =`)."""
    p = ident.parent
    if p is None:
        return False
    if p.id == fn.id:
        return True
    return p.type == "variable_declarator" and p.child_by_field_name("value") == fn
