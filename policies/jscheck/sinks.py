"""Where a TypeScript/JavaScript value becomes the cached prefix, and the findings of volatile
values (PL101-PL106) and outside orders (PL201, PL203) that reach one.

Sinks: a variable, property, class field or function named like a system prompt (`SYSTEM_PROMPT`,
`systemPrompt:`, `this.instructions =`, `function buildSystemPrompt()`'s return values); the
`system` / `instructions` field of a request (Anthropic and OpenAI SDKs, the Vercel AI SDK's
`generateText`/`streamText`, OpenAI Agents' `new Agent({ instructions })`); a message with role
`system` or `developer`; LangChain.js `new SystemMessage(x)`, `["system", x]` pairs of
`ChatPromptTemplate.fromMessages` and `SystemMessagePromptTemplate.fromTemplate(x)`; a template
slot filled by `.replace("{{CURRENT_DATE}}", value)`; and, for orders only, a `tools` list.
A finding stands where the value enters the prompt (the `${...}` or the `+` operand, followed
into local template literals and joined arrays) and names the line that makes the value and
the line of the sink.
"""

# pure: imports no I/O (tests/test_layout.py checks it)

from __future__ import annotations

import re
from collections.abc import Callable

from tree_sitter import Node

from ..choice import picked_model
from ..findings import Finding, flow
from ..meaning import HISTORY_WORDS, identity_name, kind_of_name, words
from .records import is_record, record_literal
from .slots import filled_here, never_filled
from .structure import MEASURE
from .syntax import (
    FUNCTIONS,
    Source,
    arguments,
    callee_name,
    key_name,
    scope_of,
    string_value,
    unwrap,
    walk,
)
from .values import (
    CODE_OF,
    ORDER,
    RETRIEVED,
    VOLATILE,
    Evaluator,
    Taint,
    bound_before,
    is_slot,
)

_PREFIX_WORDS = frozenset({"system", "instructions", "instruction", "preamble", "persona"})
_PROMPT_WORDS = frozenset({"prompt", "prompts"})
# What a builder named for the system prompt returns is that text (`buildRagSystemPrompt`,
# `getSystemInstructions`), not a list of messages (`messagesWithSystem`).
_BUILT_TEXT = frozenset({"prompt", "instructions", "instruction", "preamble", "persona"})
_USER_WORDS = frozenset(
    {
        "user",
        "human",  # `humanPrompt`: the text of LangChain's `HumanMessage`, the user's turn
        "query",
        "question",
        "turn",
        "reminder",
        "message",
        "input",
        "observation",
        "result",
        "env",
        "environment",
        "details",
        "context",
        "summary",
        "title",
        "log",
        "error",
        "pending",
        "queued",
        "queue",
        "on",
        "handle",
        "handler",
    }
)
_TOOLS_WORDS = frozenset({"tools", "functions"})
# Calls named for sending a request (`aiGenerate(prompt)`, `llm(prompt)`, `loop.run(prompt)`),
# not for transforming a text (`appendGuard(prompt)`).
_SENDS = frozenset(
    {"generate", "complete", "completion", "chat", "ask", "llm", "invoke", "run", "stream"}
    | {"send", "query", "call", "execute"}
)
# What a name ending in one of these says of "system": the machine and its state.
_MACHINE = frozenset(
    {"time", "date", "clock", "info", "status", "health", "metrics", "stats", "load"}
    | {"uptime", "usage", "resources", "monitor", "check", "report", "logs", "log"}
)
_LOCATIONS = frozenset({"path", "paths", "dir", "directory", "folder", "filename", "url", "uri"})
_MEASURES = frozenset(
    {"tokens", "token", "count", "fingerprint", "length", "size", "id", "ids", "budget"}
    # What is measured or set about a prompt (`systemPromptAttention`, a calibration's verdict
    # on how well a model heeds it; `systemPromptVersion`, `instructionsEnabled`).
    | {"attention", "adherence", "compliance", "score", "scores", "accuracy", "ratio", "rate"}
    | {"version", "hash", "enabled", "chars", "limit"}
)
# Names of a kept conversation, whose first message was written (and reported) earlier.
_KEPT_LISTS = frozenset({"messages", "history", "conversation", "transcript", "msgs"})
# Names of the current request: written into the prefix, they change it every request (PL304).
_REQUEST = frozenset({"query", "question"})
_CURRENT = frozenset({"user", "current", "latest", "incoming", "new"})
_REQUEST_PARTS = frozenset({"message", "input", "request", "prompt", "text"})
# What was retrieved for the current request (`${context}`, `${searchResults}`, `memories`):
# found anew for each question, so the prefix changes with it.
_RETRIEVED = frozenset({"context", "results", "memories", "documents", "chunks", "passages"})
# ...unless named for what the user set once (`profileContext`, `systemContext`).
_SETTLED = frozenset({"profile", "persona", "system", "settings", "instructions"})
_SYSTEM_ROLES = frozenset({"system", "developer"})
# Names of a running summary of the conversation (`summary`, `conversationSummary`); not a
# summary of a document, a repository or a tool (`repoSummary`, `toolSummary`).
_SUMMARY_OF = frozenset(
    {"summary", "conversation", "chat", "history", "session", "thread", "running", "rolling"}
    | {"current", "previous", "prior", "memory", "dialog", "dialogue"}
)
# Names of a mode the user picks per request: the prompt or the tools chosen by it change.
# A phase or stage of a flow (`checkoutStage`, `phase`) moves within one conversation.
# Names of the conversation's own messages written as text (`messageHistory`,
# `recentMessages`, `formattedHistory`), and of their newest part.
_NEWEST = frozenset({"recent", "last", "latest", "newest"})
_RECENT_OF = _KEPT_LISTS | _NEWEST | {"message", "chat", "formatted", "thread", "previous"}


# What was fetched from the web for this request (`webContent`, `pageText`, `urlContent`,
# `scrapedMarkdown`): named for where it came from and for being its text.
_PAGE_SOURCES = frozenset({"web", "url", "page", "scraped", "fetched", "crawled", "article"})
_PAGE_TEXT = frozenset({"content", "contents", "text", "html", "markdown", "body"})


def _fetched_page(ws: set[str], last: str) -> bool:
    return last in _PAGE_TEXT and bool(ws & _PAGE_SOURCES)


def _conversation_name(name: str) -> bool:
    """`messages`, `threadMessages`, `history`: a name for the conversation's messages (not
    those of one role, `systemMessages`)."""
    ws = words(name)
    return bool(ws) and ws[-1] in _KEPT_LISTS and not set(ws) & _ROLES


_ROLES = frozenset({"system", "developer", "user", "assistant", "tool", "human", "ai"})


def _newest_window(src: Source, value: Node) -> bool:
    """A value that holds the newest messages: `formatRecentMessagesForPrompt(10)` (a call
    named for them) or `history.slice(-10)...` (a slice from the end)."""
    for n in walk(value):
        if n.type != "call_expression":
            continue
        name = callee_name(src, n)
        if set(words(name)) & _NEWEST and set(words(name)) & (_KEPT_LISTS | {"message"}):
            return True
        args = arguments(n)
        if name == "slice" and args and src.text(unwrap(args[0])).startswith("-"):
            return True
    return False


# Calls that write a row to a database table or collection.
_ROW_WRITES = frozenset({"insert", "insertOne", "insertMany", "upsert", "insert_one"})
# A listing's taints, and the array methods that run a callback once per element.
_LISTED = ORDER | {"filetree"}
_PER_ELEMENT = frozenset({"map", "forEach", "flatMap"})
_LOGS = frozenset({"log", "debug", "info", "warn", "error", "print", "trace"})
_MODE_WORDS = frozenset({"mode", "group", "focus", "phase", "stage"})
# Words of a call that keeps what it is handed as a record (`writeAuditLog`, `recordUsage`,
# `persistRun`, `serializeChat`): its prompt-named fields describe a request, they are not one.
_RECORDING = frozenset({"audit", "log", "persist", "record", "serialize", "serialise", "dump"})
_LC_SYSTEM = frozenset({"SystemMessage", "SystemMessagePromptTemplate", "SystemChatMessage"})
_JSX = frozenset({"jsx_element", "jsx_fragment"})
_COMPOSE = frozenset({"template_string", "binary_expression", "array", *_JSX})


def _before_fallback(src: Source, v: Node) -> Node:
    """`PROMPTS[mode] || PROMPTS.normal` -> `PROMPTS[mode]`: the choice, ahead of its default."""
    while v.type == "binary_expression":
        op = v.child_by_field_name("operator")
        left = v.child_by_field_name("left")
        if op is None or src.text(op) not in ("||", "??") or left is None:
            break
        v = unwrap(left)
    return v


# What an image model is asked for (`imagePrompt`): one text for one picture, with no
# conversation after it and no prompt cache to break.
_PICTURES = frozenset({"image", "images", "picture", "img", "illustration"})
# What a rendered record of prompts is written as (`promptsMarkdownContent`): a page for a
# reader that shows the prompts sent, not one request's prefix.
_RENDERED = frozenset({"markdown", "md", "html"})


def _not_a_chat_prompt(ws: set[str]) -> bool:
    """Words of a name for a text that is no chat request's prefix: an image model's prompt,
    or several prompts rendered as a document (not named for a system prompt)."""
    if ws & _PREFIX_WORDS:
        return False
    return bool(ws & _PICTURES) or ("prompts" in ws and bool(ws & _RENDERED))


def prefix_name(name: str) -> bool | None:
    """True: names a prompt prefix; False: a user turn; None: says nothing."""
    ws = set(words(name))
    if words(name)[-1:] and words(name)[-1] in _MEASURES:
        return None  # `systemMessageTokens`, `system_fingerprint`: a count or an id, not text
    if words(name)[-1:] and words(name)[-1] in _LOCATIONS:
        return None  # `promptPath`, `systemPromptUrl`: where the text is kept, not the text
    if words(name)[-1:] and words(name)[-1] in _MACHINE and not ws & (_PROMPT_WORDS | {"message"}):
        return None  # `system_time`, `systemInfo`, `systemHealth`: the machine, not a prompt
    if _not_a_chat_prompt(ws):
        return None
    if "reminder" in ws:
        return False  # a system reminder travels in the user's turn
    if "user" in ws and ws & {"instruction", "instructions"} and "system" not in ws:
        return False  # `userInstruction`: the task the user gave, their turn's text
    if ws & _PREFIX_WORDS:
        return True  # `systemMessage`, `contextSystemPrompt`: named for the system prompt
    if ws & _USER_WORDS:
        return False
    if ws & _PROMPT_WORDS:
        return True
    return None


# Where a list's contents are read without the list going anywhere: a condition, a
# comparison, a template's slot, a statement of its own.
_READ_PLACES = frozenset(
    {"parenthesized_expression", "unary_expression", "template_substitution"}
    | {"expression_statement"}
)


def tools_name(name: str) -> bool:
    ws = words(name)
    return bool(ws) and ws[-1] in _TOOLS_WORDS


# Methods that build an object once (an agent for a conversation, a session): a mode or the
# user's settings read there are fixed for the object's life, not chosen per request.
_FACTORIES = frozenset({"create", "build", "init", "initialize", "make", "new", "open", "start"})


def built_once(node: Node) -> bool:
    """Whether `node` is inside a class's constructor or a static factory method
    (`static async create(config)`): what is chosen there is chosen once per object."""
    cur: Node | None = node
    while cur is not None:
        if cur.type == "method_definition":
            name_node = cur.child_by_field_name("name")
            name = name_node.text.decode() if name_node is not None and name_node.text else ""
            static = any(c.type == "static" for c in cur.children)
            first = words(name)[:1]
            return name == "constructor" or (static and bool(first) and first[0] in _FACTORIES)
        cur = cur.parent
    return False


# JSX a component renders: markup for a page (a chat bubble named `renderSystemMessage`), no
# text sent to a model.
_MARKUP = _JSX | {"jsx_self_closing_element"}


def _jsx(node: Node) -> bool:
    return unwrap(node).type in _MARKUP


class SinkCheck:
    def __init__(self, src: Source, ev: Evaluator) -> None:
        self.src = src
        self.ev = ev
        self.out: list[Finding] = []
        self._seen: set[tuple[int, str]] = set()
        self._as_system: dict[str, bool] = {}  # builder sink -> placed in a system position
        self._fetches: set[tuple[int, str, str]] = set()
        self._values_seen: set[tuple[str, int, str, str, int]] = set()
        self._request_sinks: set[int] = set()  # sinks with a PL304 for per-request content
        # The sink being checked is the system prompt of a one-off request (a test run only
        # when a finding it would quiet comes up, then kept).
        self._one_off_test: Callable[[], bool] | None = None
        self._one_off_known: bool | None = None

    def _in_one_off(self) -> bool:
        if self._one_off_test is None:
            return False
        if self._one_off_known is None:
            self._one_off_known = self._one_off_test()
        return self._one_off_known

    def _sink_of_one_off(self, test: Callable[[], bool], check: Callable[[], None]) -> None:
        """Run `check` (a sink's reports) knowing that `test` says whether the sink is the
        system prompt of a one-off request, whose dates and question are quieted."""
        saved = self._one_off_test, self._one_off_known
        self._one_off_test, self._one_off_known = test, None
        try:
            check()
        finally:
            self._one_off_test, self._one_off_known = saved

    def _report(
        self, node: Node, code: str, message: str, extra: dict[str, object] | None = None
    ) -> None:
        """One finding at `node` for `code`, never two for the same node and code; `extra`:
        the value's origin and sink (`findings.flow`) where it names a value."""
        key = (node.id, code)
        if key in self._seen:
            return
        self._seen.add(key)
        if code in ("PL302", "PL304") and built_once(node):
            return
        found = self.src.finding(node, code, message)
        self.out.append(found if extra is None else found.with_(extra=extra))

    def _mode_word(self, nodes: list[Node]) -> Node | None:
        """The first identifier under `nodes` named for a mode the user picks per request
        (`chatMode`, `focusMode`, `group`)."""
        for node in nodes:
            for n in walk(node):
                text = self.src.text(n)
                if (
                    n.type in ("identifier", "property_identifier")
                    and not text[:1].isupper()  # a class (`AgentToolGroup`), not a choice
                    and set(words(text)) & _MODE_WORDS
                    and not _pair_key(n)  # `{ approvalMode: "interrupt" }`: a fixed setting
                ):
                    return n
                if n.type == "identifier" and self._picked_here(n):
                    return n
        return None

    def _picked_here(self, n: Node) -> bool:
        """`subAgentType` where `const subAgentType = selectSubAgent(flowPosition, tracker)`
        inside a function: a choice made by a call named for picking (`select`, `route`,
        `classify`), made again on every call of the function, so on every request."""
        scope, vals, _ = self.ev.m.lookup(n, self.src.text(n))
        if scope is None or scope.type == "program" or not vals:
            return False
        for v in vals:
            v = unwrap(v)
            if v.type == "await_expression" and v.named_children:
                v = unwrap(v.named_children[0])
            if v.type != "call_expression" or not arguments(v):
                return False
            if words(callee_name(self.src, v))[:1] not in (
                ["select"],
                ["pick"],
                ["choose"],
                ["route"],
                ["classify"],
            ):
                return False
        return True

    def _picked_model(self, nodes: list[Node]) -> Node | None:
        """The first identifier under `nodes` named for the model the request picks
        (`selectedChatModel === "chat-model-reasoning" ? [] : tools`)."""
        for node in nodes:
            for n in walk(node):
                if n.type in ("identifier", "property_identifier") and picked_model(
                    self.src.text(n)
                ):
                    return n
        return None

    def _mode_arg(self, call: Node) -> Node | None:
        """An argument of `call` that is a mode, or an option of it named or valued so."""
        for a in arguments(call):
            a = unwrap(a)
            items = [a]
            if a.type == "object":
                items = []
                for p in a.named_children:
                    if p.type == "pair":
                        items += [p.child_by_field_name("key"), p.child_by_field_name("value")]  # type: ignore[list-item]
                    elif p.type == "shorthand_property_identifier":
                        items.append(p)
            for x in items:
                if x is None:
                    continue
                x = unwrap(x)
                if x.type in ("identifier", "property_identifier", "shorthand_property_identifier"):
                    name = self.src.text(x)
                elif x.type == "member_expression":
                    name = self.src.text(x.child_by_field_name("property"))
                else:
                    continue
                if set(words(name)) & _MODE_WORDS:
                    return x
        return None

    def _current_message(self, call: Node) -> Node | None:
        """An argument naming the current request (`lastMessage`, `query`, `userInput`)."""
        for a in arguments(call):
            for n in walk(a):
                if n.type not in ("identifier", "property_identifier"):
                    continue
                ws = set(words(self.src.text(n)))
                if ws & _REQUEST or (ws & (_CURRENT | {"last"}) and ws & _REQUEST_PARTS):
                    return n
        return None

    # --- finding the sinks -----------------------------------------------------------------

    def run(self) -> list[Finding]:
        src = self.src
        for n in walk(src.root):
            t = n.type
            if t == "variable_declarator":
                decl = n.child_by_field_name("name")
                if decl is not None and decl.type == "identifier":
                    self._named(src.text(decl), n.child_by_field_name("value"), n)
            elif t in ("assignment_expression", "augmented_assignment_expression"):
                left = n.child_by_field_name("left")
                if left is not None and left.type == "member_expression":
                    name = src.text(left.child_by_field_name("property"))
                else:
                    name = src.text(left) if left is not None else ""
                self._named(name, n.child_by_field_name("right"), n)
            elif t in ("public_field_definition", "field_definition"):
                name_node = n.child_by_field_name("name") or n.child_by_field_name("property")
                self._named(src.text(name_node), n.child_by_field_name("value"), n)
            elif t in ("function_declaration", "method_definition"):
                name_node = n.child_by_field_name("name")
                if name_node is not None and prefix_name(src.text(name_node)):
                    self._returns(n, src.text(name_node))
            elif t == "object":
                self._object(n)
            elif t == "array":
                self._pair_message(n)
            elif t in ("new_expression", "call_expression"):
                self._call(n)
            elif t == "jsx_element":
                self._jsx_system(n)
            elif t == "switch_statement":
                self._mode_switch(n)
        return self.out

    def _only_user_prompt(self, name: str, at: Node) -> bool:
        """`const prompt = ...` read only as the `prompt` of a call (`generateText({ system,
        prompt })`): the AI SDK sends it as the one user message of a request with no history,
        so what it holds is read once for that request and no later request starts with it."""
        if set(words(name)) & (_PREFIX_WORDS | _SYSTEM_ROLES):
            return False
        declared = at.child_by_field_name("name") if at.type == "variable_declarator" else None
        if declared is None:
            return False
        uses = [
            n
            for n in walk(scope_of(at))
            if n.type in ("identifier", "shorthand_property_identifier")
            and self.src.text(n) == name
            and n.id != declared.id
        ]
        if not uses:
            return False
        for u in uses:
            if (
                u.parent is not None
                and u.parent.type == "member_expression"
                and self.src.text(u.parent.child_by_field_name("property")) == "length"
            ):
                continue  # `prompt.length` logged: a count, not a place the text is sent
            if u.type == "shorthand_property_identifier":
                if name != "prompt" or u.parent is None or u.parent.type != "object":
                    return False
                continue
            if self._one_text_request(u):
                continue
            pair = u.parent
            if not (
                pair is not None
                and pair.type == "pair"
                and key_name(self.src, pair.child_by_field_name("key")) in ("prompt", "content")
                and pair.child_by_field_name("value") is not None
                and pair.child_by_field_name("value").id == u.id  # type: ignore[union-attr]
            ):
                return False
            key = key_name(self.src, pair.child_by_field_name("key"))
            if key == "content" and _role(self.src, pair.parent) != "user":
                return False  # `{ role: 'user', content: prompt }`: the user's own turn
        return True

    def _only_read(self, name: str, at: Node) -> bool:
        """`const allowedTools = modes.getAllowedTools(mode)` in a function that only reads
        what the list holds (`allowedTools.length`, `.includes("*")`, `.slice(0, 5).join(", ")`
        written into a status line, `.map((t) => t.name)` logged): the list itself is never
        handed on (no argument, property, return, spread or assignment takes it), so it is no
        request's tool list. A local handed on anywhere, or never used, is read as before."""
        declared = at.child_by_field_name("name") if at.type == "variable_declarator" else None
        scope = scope_of(at)
        if declared is None or declared.type != "identifier" or scope.type == "program":
            return False
        uses = [
            n
            for n in walk(scope)
            if n.type in ("identifier", "shorthand_property_identifier")
            and self.src.text(n) == name
            and n.id != declared.id
        ]
        return bool(uses) and all(self._read_in_place(u) for u in uses)

    def _read_in_place(self, use: Node) -> bool:
        """A use that reads a list's contents where it stands: the object of a member read
        (`xs.length`, `xs.map(f)`) whose chain ends in a condition, a comparison, a template's
        slot, a statement of its own or a logging call, never handed on whole."""
        p = use.parent
        if p is None or p.type != "member_expression" or p.child_by_field_name("object") != use:
            return False
        top = p
        while top.parent is not None and (
            (
                top.parent.type == "member_expression"
                and top.parent.child_by_field_name("object") == top
            )
            or (
                top.parent.type == "call_expression"
                and top.parent.child_by_field_name("function") == top
            )
        ):
            top = top.parent
        up = top.parent
        if up is None:
            return False
        if up.type == "arguments":
            call = up.parent
            return call is not None and bool(set(words(callee_name(self.src, call))) & _LOGS)
        if up.type == "ternary_expression":
            return up.child_by_field_name("condition") == top  # a branch is handed on
        if up.type == "binary_expression":
            op = up.child_by_field_name("operator")
            return op is not None and op.type not in ("||", "??", "&&")  # these pass it on
        return up.type in _READ_PLACES

    def _sent_after_history(self, name: str, at: Node) -> bool:
        """`const similarFilesPrompt = ...` read only as the content of a message that is not
        a system one and is pushed onto the list sent (`messages.push({ role: "function",
        content: similarFilesPrompt })`), and otherwise only measured or logged: it follows the
        history, so whatever it holds changes no earlier byte of the prefix."""
        declared = at.child_by_field_name("name") if at.type == "variable_declarator" else None
        if declared is None:
            return False
        uses = [
            n
            for n in walk(scope_of(at))
            if n.type == "identifier" and self.src.text(n) == name and n.id != declared.id
        ]
        pushed = False
        for u in uses:
            args = u.parent
            call = args.parent if args is not None and args.type == "arguments" else None
            if call is not None and set(words(callee_name(self.src, call))) & MEASURE:
                continue  # `countTokens(similarFilesPrompt)`, `log(...)`: read, not sent
            pair = u.parent
            if pair is None or pair.type != "pair" or pair.child_by_field_name("value") != u:
                return False
            if key_name(self.src, pair.child_by_field_name("key")) != "content":
                return False
            obj = pair.parent
            role = _role(self.src, obj)
            if role is None or role in _SYSTEM_ROLES:
                return False
            args = obj.parent if obj is not None else None
            call = args.parent if args is not None and args.type == "arguments" else None
            if call is None or callee_name(self.src, call) != "push":
                return False
            pushed = True
        return pushed

    def _one_text_request(self, use: Node) -> bool:
        """`aiGenerate(prompt)`, `llm(prompt, input)`: the text handed as the first argument
        of a call that is not named for a system prompt nor builds an object: a request made
        of one text, with no system prompt or history of its own to cache ahead of it."""
        args = use.parent
        call = args.parent if args is not None else None
        if args is None or call is None or args.type != "arguments":
            return False
        if call.type != "call_expression" or not args.named_children:
            return False
        if unwrap(args.named_children[0]).id != use.id:
            return False
        ws = set(words(callee_name(self.src, call)))
        return bool(ws & _SENDS) and not ws & (_PREFIX_WORDS | _SYSTEM_ROLES | _PROMPT_WORDS)

    def _placed_as_system(self, sink: str) -> bool:
        """A builder's sink (`` `notePrompt()` ``) whose call this file places in a system
        position: a system message's content (`{ role: 'system', content: notePrompt(q) }`),
        or the value of a key or a local named for the prefix (`system: notePrompt(q)`)."""
        if not sink.endswith("()`"):
            return False
        if sink not in self._as_system:
            self._as_system[sink] = self._find_as_system(sink.strip("`")[:-2])
        return self._as_system[sink]

    def _find_as_system(self, name: str) -> bool:
        for c in walk(self.src.root):
            if c.type != "call_expression" or callee_name(self.src, c) != name:
                continue
            p = c.parent
            while p is not None and p.type in ("await_expression", "parenthesized_expression"):
                p = p.parent
            if p is None:
                continue
            if p.type == "pair":
                key = key_name(self.src, p.child_by_field_name("key")) or ""
                if key == "content" and _role(self.src, p.parent) in _SYSTEM_ROLES:
                    return True
                if set(words(key)) & (_PREFIX_WORDS | _SYSTEM_ROLES):
                    return True
            elif p.type == "variable_declarator":
                local = self.src.text(p.child_by_field_name("name"))
                if set(words(local)) & (_PREFIX_WORDS | _SYSTEM_ROLES):
                    return True
        return False

    def _only_user_builder(self, name: str) -> bool:
        """`const finalPrompt = (input) => ...` whose every call is a user message's content,
        directly or through a local read only so (`const userPrompt = finalPrompt(x)` then `{
        role: 'user', content: userPrompt }`): it builds the request's own turn, no prefix."""
        if set(words(name)) & (_PREFIX_WORDS | _SYSTEM_ROLES):
            return False
        calls = [
            n
            for n in walk(self.src.root)
            if n.type == "call_expression" and callee_name(self.src, n) == name
        ]
        if not calls:
            return False
        for c in calls:
            p = c.parent
            while p is not None and p.type in ("await_expression", "parenthesized_expression"):
                p = p.parent
            if p is not None and p.type == "variable_declarator":
                local = self.src.text(p.child_by_field_name("name"))
                # `const prompt = buildTaskPrompt(...)` sent only as `prompt` (beside a
                # `systemPrompt`): the user's turn; a local named for the system prompt is not.
                if not self._only_user_prompt(local, p) or set(words(local)) & (
                    _PREFIX_WORDS | _SYSTEM_ROLES
                ):
                    return False
            elif not (
                p is not None
                and p.type == "pair"
                and key_name(self.src, p.child_by_field_name("key")) == "content"
                and _role(self.src, p.parent) == "user"
            ):
                return False
        return True

    def _one_off_system(self, name: str, at: Node) -> bool:
        """A system prompt read only as the system message of a request with no history:
        `messages: [{ role: 'system', content: systemPrompt }, { role: 'user', content: q }]`
        (or `system: systemPrompt` beside user messages only). No earlier request of a
        conversation shares its prefix, so a date in it breaks no cache (a clock reading still
        changes every repeat of the same request)."""
        uses = [
            n
            for n in walk(scope_of(at))
            if n.type in ("identifier", "shorthand_property_identifier")
            and self.src.text(n) == name
            and not _bound_here(n)
        ]
        if not uses:
            return False
        for u in uses:
            u = _filled(self.src, u)
            pair = u.parent
            if u.type == "shorthand_property_identifier":
                if name not in _ONE_OFF_KEYS or not self._one_off_body(pair):
                    return False
                continue
            if pair is None or pair.type != "pair":
                return False
            key = key_name(self.src, pair.child_by_field_name("key"))
            if key == "content" and _role(self.src, pair.parent) == "system":
                if not self._one_off_message(pair.parent):
                    return False
            elif key not in _ONE_OFF_KEYS or not self._one_off_body(pair.parent):
                return False
        return True

    def _one_off_body(self, obj: Node | None) -> bool:
        """A request's options whose messages are literal user messages only (`{ system,
        messages: [{ role: 'user', content: q }] }`), or that send one `prompt` and no
        messages (the AI SDK's `generateText({ system, prompt })`): no history follows the
        system prompt."""
        if obj is None or obj.type != "object":
            return False
        keys: dict[str | None, Node | None] = {}
        for p in obj.named_children:
            if p.type == "pair":
                keys[key_name(self.src, p.child_by_field_name("key"))] = p.child_by_field_name(
                    "value"
                )
            elif p.type == "shorthand_property_identifier":
                keys[self.src.text(p)] = None
            elif p.type == "spread_element":
                return False  # `{ ...options, system }`: the messages may come with it
        if "messages" in keys:
            msgs = keys["messages"]
            return (
                msgs is not None
                and unwrap(msgs).type == "array"
                and _only_users(self.src, unwrap(msgs), 0)
            )
        return "prompt" in keys

    def _appended(self, obj: Node) -> bool:
        """A system message pushed onto the end of a list that already holds messages:
        `conversation.messages.push({ role: "system", ... })` (a stored conversation, a field
        or a parameter: what it held comes first), or a local of this function that a literal
        with items, a spread or an earlier push filled before. It follows the history; sent
        again as it was, it moves no byte before it. A push onto a local still empty (`const m
        = []; m.push(system); m.push(...history)`) is the list's head."""
        args = obj.parent
        call = args.parent if args is not None and args.type == "arguments" else None
        if call is None or call.type != "call_expression" or callee_name(self.src, call) != "push":
            return False
        fn = call.child_by_field_name("function")
        target = fn.child_by_field_name("object") if fn is not None else None
        if target is None:
            return False
        target = unwrap(target)
        if target.type == "member_expression":
            return unwrap(target.child_by_field_name("object")).type != "this"  # type: ignore[arg-type]
        if target.type != "identifier":
            return False
        name = self.src.text(target)
        scope, _, _ = self.ev.m.lookup(target, name)
        if scope is None or scope.type == "program":
            return False
        declared = [
            unwrap(d.child_by_field_name("value"))  # type: ignore[arg-type]
            for d in walk(scope)
            if d.type == "variable_declarator"
            and self.src.text(d.child_by_field_name("name")) == name
            and d.child_by_field_name("value") is not None
        ]
        if not declared:
            return True  # a parameter: the caller's list, with what it already holds
        filled = any(
            v.type != "array" or any(c.type != "comment" for c in v.named_children)
            for v in declared
        )
        earlier = any(
            n.type == "call_expression"
            and n.end_byte <= call.start_byte
            and callee_name(self.src, n) in ("push", "unshift", "concat")
            and self.src.text(n.child_by_field_name("function")).startswith(f"{name}.")
            for n in walk(scope)
        )
        return filled or earlier

    def _one_off_message(self, obj: Node | None) -> bool:
        """A system message first in a literal list of it and user messages only, sent as it
        is (`messages: [...]`, a call's argument, or a local the function never grows nor
        spreads into another list): a request with no history."""
        arr = obj.parent if obj is not None else None
        if arr is None or arr.type != "array" or not _only_users(self.src, arr, 1):
            return False
        items = [c for c in arr.named_children if c.type != "comment"]
        if unwrap(items[0]).id != obj.id:  # type: ignore[union-attr]
            return False
        holder = arr.parent
        if holder is None:
            return False
        if holder.type == "pair":
            return key_name(self.src, holder.child_by_field_name("key")) in ("messages", "input")
        if holder.type == "arguments":
            return True
        if holder.type in ("return_statement", "arrow_function"):
            return self._returned_as_is(holder)
        if holder.type != "variable_declarator":
            return False
        name_node = holder.child_by_field_name("name")
        if name_node is None or name_node.type != "identifier":
            return False
        name = self.src.text(name_node)
        for n in walk(scope_of(holder)):
            if n.type not in ("identifier", "shorthand_property_identifier"):
                continue
            if n.id == name_node.id or self.src.text(n) != name:
                continue
            p = n.parent
            if p is None or p.type in ("spread_element", "assignment_expression"):
                return False  # spread into a longer list, or replaced
            prop = p.child_by_field_name("property") if p.type == "member_expression" else None
            if prop is not None and self.src.text(prop) != "length":
                return False  # `messages.push(...)`: it grows into a history
        return True

    def _returned_as_is(self, at: Node) -> bool:
        """The list a builder returns (`return [system, user]`) is sent as it is: no call of
        the builder in this file spreads it into a longer list or grows it."""
        fn = scope_of(at) if at.type == "return_statement" else at
        name_node = fn.child_by_field_name("name")
        if name_node is None and fn.parent is not None and fn.parent.type == "variable_declarator":
            name_node = fn.parent.child_by_field_name("name")
        if name_node is None:
            return False
        name = self.src.text(name_node)
        for n in walk(self.src.root):
            if n.type != "call_expression" or callee_name(self.src, n) != name:
                continue
            p = n.parent
            while p is not None and p.type in ("await_expression", "parenthesized_expression"):
                p = p.parent
            if p is None or p.type == "spread_element":
                return False
            if p.type == "member_expression":
                return False  # `build(...).concat(history)`, `.push(...)`
        return True

    def _jsx_system(self, element: Node) -> None:
        """`<SystemMessage>...</SystemMessage>` (AI.JSX): the element's text is the system
        message."""
        opening = element.child_by_field_name("open_tag") or (
            element.named_children[0] if element.named_children else None
        )
        tag = opening.child_by_field_name("name") if opening is not None else None
        if tag is not None and self.src.text(tag).rsplit(".", 1)[-1] in _LC_SYSTEM:
            self.text_sink(element, f"`<{self.src.text(tag)}>`", element)

    def _clock_slots(self, value: Node, name: str) -> None:
        """`SYSTEM_PROMPT = "... System Time: {time}"`: a slot named for the clock in a system
        prompt's own text is there to be filled with it when a request is built."""
        if value.type not in ("string", "template_string"):
            return
        parts = [
            c
            for c in value.children
            if c.type in ("string_fragment", "template_chars", "escape_sequence")
        ] or [value]
        for part in parts:
            for m in _SLOT_IN_TEXT.finditer(self.src.text(part)):
                kind = kind_of_name(m.group(1))
                if kind not in ("time", "date"):
                    continue
                if never_filled(self.src, value) or not filled_here(self.src, value, m.group(1)):
                    return  # walks the whole module: only once a clock slot is found
                line = self.src.pos(value)[0] + self.src.text(value)[
                    : self.src.text(value).find(m.group(0))
                ].count("\n")
                self._add(
                    value,
                    Taint(kind, line, f"the slot {m.group(0)}, filled when a request is built"),
                    f"`{name}`",
                    self.src.pos(value)[0],
                )
                return

    def _retrieved_slots(self, value: Node, name: str) -> None:
        """PL304: `MEMORY_PROMPT = "{{base}}\n<memory>{{memoryJson}}</memory>"`: a slot of a
        prompt template named for what is recalled or retrieved (memories, search results, a
        retrieved context) is filled anew for each request. A template with a slot for the
        question itself (`{question}`, `{input}`) is the user's turn, unless it is named for
        the system prompt. A plain `{context}` (or `{patientContext}`: any context but a
        settled one) counts where the same template has a slot for the conversation after it
        (`Context: {context} ... History: {history}`): the RAG form, whose context is filled
        per request ahead of the history the template carries. A template is a string or an
        array of lines joined into one (`[BASE, 'Context:', '{context}'].join('\\n')`); the
        finding stands on the slot's line."""
        parts = _template_parts(value)
        if not parts:
            return
        slots = [
            (part, m, _slot_words(m.group(1)))
            for part in parts
            for m in _SLOT_IN_TEXT.finditer(self.src.text(part))
        ]
        system = bool(set(words(name)) & _PREFIX_WORDS)
        if not system and any(ws[-1:] and ws[-1] in _QUESTION_SLOTS for _, _, ws in slots):
            return
        history_at = next(
            (i for i, (_, _, ws) in enumerate(slots) if ws[-1:] and ws[-1] in HISTORY_WORDS),
            None,
        )
        history = "" if history_at is None else slots[history_at][1].group(0)
        for i, (part, m, ws) in enumerate(slots):
            if not ws or set(ws) & _SETTLED:
                continue
            last = ws[-1]
            ahead = last == "context" and history_at is not None and i < history_at
            if not (
                last in _RECALLED
                or (last == "context" and set(ws) & _FETCHED_CONTEXT)
                or (last in _RETRIEVED and last != "context")
                or ahead
            ):
                continue
            if self._in_one_off():
                return  # filled into the system message of a request with no history
            self._report(
                part,
                "PL304",
                f"the slot {m.group(0)} of `{name}` is filled with what was recalled or "
                "retrieved for the request, ahead of the conversation history: the prefix "
                "changes there whenever it does and the whole history is sent again uncached; "
                "put it in the newest user message"
                if not ahead or set(ws) & _FETCHED_CONTEXT
                else f"the slot {m.group(0)} of `{name}` is filled for each request, ahead of "
                f"the slot {history} that carries the conversation: the "
                "text before the history changes whenever it does and the whole history is "
                "sent again uncached; put it in the newest user message",
            )  # one finding per line of a joined template, one for a whole string

    def _mode_switch(self, switch: Node) -> None:
        """PL302: `switch (searchMode) { case "quick": systemPrompt = A; tools = [...] }`: the
        prompt or the tool list assigned per case of a mode (morphic's researcher)."""
        value = switch.child_by_field_name("value")
        n = self._mode_word([value]) if value is not None else None
        body = switch.child_by_field_name("body")
        if n is None or body is None:
            return
        done: set[str] = set()
        for a in walk(body):
            if a.type != "assignment_expression":
                continue
            left = a.child_by_field_name("left")
            name = self.src.text(left) if left is not None and left.type == "identifier" else ""
            tools = bool(set(words(name)) & _TOOLS_WORDS)  # `activeToolsList` too
            if not name or name in done or not (prefix_name(name) or tools):
                continue
            done.add(name)
            what = (
                "tool definitions, the first part of the prefix,"
                if tools
                else ("start of the prompt")
            )
            self._report(
                a,
                "PL302",
                f"`{name}` is set per case of `{self.src.text(n)}`: switching modes changes the "
                f"{what} and every request after the switch misses the cache; keep one prompt "
                "and tool list and state the mode in the newest user turn",
            )

    def _named(self, name: str, value: Node | None, at: Node, one_off: bool | None = None) -> None:
        if value is None or not name:
            return
        v = unwrap(value)
        if prefix_name(name):
            if v.type in FUNCTIONS and self._only_user_builder(name):
                return
            if v.type in FUNCTIONS:
                self._returns(v, name)
            elif self._only_user_prompt(name, at) or self._sent_after_history(name, at):
                return
            else:
                self._clock_slots(v, name)
                if one_off is None:
                    test = lambda: self._one_off_system(name, at)  # noqa: E731
                else:
                    test = lambda: one_off  # noqa: E731
                self._sink_of_one_off(test, lambda: self._retrieved_slots(v, name))
                self._sink_of_one_off(test, lambda: self.text_sink(value, f"`{name}`", at))
                self._sink_of_one_off(test, lambda: self._mode_prompt(value, name))
        elif tools_name(name) and v.type not in FUNCTIONS and not self._only_read(name, at):
            self.order_sink(value, f"`{name}`", at)
            self._mode_tools(value, name)

    def _returns(self, fn: Node, name: str) -> None:
        body = fn.child_by_field_name("body")
        if body is None:
            return
        if body.type != "statement_block":
            if not _jsx(body):
                self.text_sink(body, f"`{name}()`", fn)
            return
        for r in walk(body):
            if r.type == "return_statement" and r.named_children and not _jsx(r.named_children[0]):
                # Only this function's own returns (not those of callbacks inside it).
                p = r.parent
                while p is not None and p.id != fn.id and p.type not in FUNCTIONS:
                    p = p.parent
                if (
                    p is not None
                    and p.id == fn.id
                    and not is_record(self.src, r.named_children[0], fn)
                ):
                    self.text_sink(r.named_children[0], f"`{name}()`", fn)

    def _object(self, obj: Node) -> None:
        src = self.src
        pairs = {
            key_name(src, p.child_by_field_name("key")): p.child_by_field_name("value")
            for p in obj.named_children
            if p.type == "pair"
        }
        role = string_value(src, pairs.get("role"))
        if role is not None:
            content = pairs.get("content")
            if (
                role in _SYSTEM_ROLES
                and content is not None
                and not self._appended(obj)
                and not _emitted(src, obj)
            ):
                self._sink_of_one_off(
                    lambda: self._one_off_message(obj),
                    lambda: self.text_sink(content, f"a {role} message", obj),
                )
            return
        call = obj.parent.parent if obj.parent is not None else None
        called = (
            callee_name(src, call) if call is not None and call.type == "call_expression" else ""
        )
        if called in _LOGS:
            # `log("/chat tokens", { contextSystem: SYSTEM_MESSAGE_TOKENS })`: figures handed
            # to a log line; its prompt-named fields are read by a person, never sent.
            return
        if called in _ROW_WRITES or set(words(called)) & _RECORDING or record_literal(src, obj):
            # `db.from("ai_interactions").insert({ request_prompt: system + user })`,
            # `writeAuditLog({ systemAction: result })`, `{ id: genId(), revisedPrompt, createdAt
            # }`: a row logged, audited or stored; its prompt-named fields are a record of a
            # request, not one.
            return
        for key, value in pairs.items():
            if key is None or value is None:
                continue
            if key in _ONE_OFF_KEYS and _not_a_request(src, pairs):
                # `return { id, challengeCode, method, instructions: [...] }`: a record handed
                # to a client (its `instructions` are for a person), no model's options.
                continue
            if prefix_name(key) and _record(src, value):
                # `telemetry: { system: { uptime, cpu: process.cpuUsage() } }`: a record of
                # the machine's figures under a key named `system`, not a prompt's text.
                continue
            if key in ("prompt", "prompts"):
                # `prompt:` is the user's turn in the Vercel AI SDK (`generateText`,
                # `streamText`) and most completion APIs.
                continue
            if key in ("content", "text") and called in _LC_SYSTEM:
                self.text_sink(value, f"`{called}`", obj)
            elif key in _ONE_OFF_KEYS:
                self._named(key, value, obj, self._one_off_body(obj))
            else:
                self._named(key, value, obj)
        for p in obj.named_children:
            if p.type == "shorthand_property_identifier":
                name = src.text(p)
                if name in ("prompt", "prompts"):
                    continue  # `{ system, prompt }`: the user's turn, as `prompt:` above
                if prefix_name(name):
                    self.text_sink(p, f"`{name}`", obj)
                elif tools_name(name):
                    self.order_sink(p, f"`{name}`", obj)
            elif p.type == "method_definition":
                pass  # handled as a method

    def _pair_message(self, arr: Node) -> None:
        # LangChain.js `["system", text]` in `ChatPromptTemplate.fromMessages([...])`.
        items = arr.named_children
        if len(items) == 2 and string_value(self.src, items[0]) in _SYSTEM_ROLES:
            parent = arr.parent
            if parent is not None and parent.type == "array":
                self.text_sink(items[1], "a system message", arr)

    def _call(self, call: Node) -> None:
        src = self.src
        name = callee_name(src, call)
        args = arguments(call)
        if name in _LC_SYSTEM or (
            name in ("fromTemplate",) and "System" in src.text(call.child_by_field_name("function"))
        ):
            if args and unwrap(args[0]).type != "object":
                self.text_sink(args[0], f"`{name}`", call)
        elif (
            prefix_name(name)
            and args
            and unwrap(args[0]).type == "object"
            and not self._only_user_builder(name)
        ):
            # `chat_systemMessage({ openedURIs, directoryStr })`: what a prompt builder is
            # handed becomes its text (unless all it builds is the request's user turn). A
            # field that names the record (`{ id, name, ... }` of a new prompt's draft) is its
            # key, not text of it.
            for p in unwrap(args[0]).named_children:
                if _identity_pair(src, p):
                    continue
                if p.type == "pair" and p.child_by_field_name("value") is not None:
                    self.text_sink(p.child_by_field_name("value"), f"`{name}()`", call)  # type: ignore[arg-type]
                elif p.type == "shorthand_property_identifier":
                    self.text_sink(p, f"`{name}()`", call)
        elif (
            args
            and set(words(name)) & _PREFIX_WORDS
            and words(name)[-1] in _BUILT_TEXT
            and prefix_name(name)
            and not self._defined_here(call)
            and not self._only_user_builder(name)
        ):
            # `this.ragService.buildRAGSystemPrompt(context, base)`: a system prompt built in
            # another module from what it is handed here; its positional arguments are its text.
            for a in args:
                if unwrap(a).type not in FUNCTIONS and unwrap(a).type != "object":
                    self.text_sink(a, f"`{name}()`", call)
        elif name in ("replace", "replaceAll") and len(args) >= 2:
            slot = string_value(src, args[0])
            fill = unwrap(args[1])
            if slot is None and unwrap(args[0]).type == "regex":
                # `content.replace(/{{time}}/gi, () => moment().format("LT"))`: a macro
                # filler; what the callback returns fills the slot on every substitution.
                pattern = unwrap(args[0]).child_by_field_name("pattern")
                slot = src.text(pattern) if pattern is not None else None
                if slot is not None and _SLOT_NAME.fullmatch(slot) and fill.type in FUNCTIONS:
                    for taint in sorted(self.ev.returns(fill), key=_order_key):
                        if taint.kind in VOLATILE:
                            self._add(fill, taint, f"the template slot {slot}", src.pos(call)[0])
                return
            if slot is not None and is_slot(slot):
                if _translated(src, call) or self._translated_local(call):
                    return  # `t("doneDesc").replace("{steps}", n)`: a UI string, no prompt
                if prefix_name(_chain_root(src, call)):
                    # `system.replace("{search_results}", results)`: a slot of the system
                    # prompt, where the current request and what was fetched for it count too.
                    self._sink_of_one_off(
                        lambda: self._fills_one_off(call),
                        lambda: self.text_sink(args[1], f"the system prompt's slot {slot}", call),
                    )
                else:
                    self.text_sink(args[1], f"the template slot {slot}", call, volatile_only=True)

    def _fills_one_off(self, call: Node) -> bool:
        """A `.replace` chain whose filled text is the content of a system message of a
        request with no history (`[{ role: "system", content: T.replace(...) }, user]`)."""
        top = _filled(self.src, call)
        pair = top.parent
        if pair is None or pair.type != "pair" or pair.child_by_field_name("value") != top:
            return False
        if key_name(self.src, pair.child_by_field_name("key")) != "content":
            return False
        return _role(self.src, pair.parent) in _SYSTEM_ROLES and self._one_off_message(pair.parent)

    def _translated_local(self, call: Node) -> bool:
        """`const msg = t("dev.preview_msg")` then `msg.replace("{{time}}", now)`: the chain
        starts from a local bound only to translated UI strings."""
        n = call
        while n.type == "call_expression":
            fn = unwrap(n.child_by_field_name("function"))  # type: ignore[arg-type]
            obj = fn.child_by_field_name("object") if fn.type == "member_expression" else None
            if obj is None:
                return False
            n = unwrap(obj)
        if n.type != "identifier":
            return False
        _, vals, _ = self.ev.m.lookup(n, self.src.text(n))
        return bool(vals) and all(
            unwrap(v).type == "call_expression" and _translated(self.src, unwrap(v))
            for v in vals or []
        )

    # --- reporting -------------------------------------------------------------------------

    def _leaves(self, node: Node, seen: set[int]) -> list[Node]:
        """Where values enter a text: template holes and `+` operands, followed into local
        compositions (a template literal or array bound to a name, `.join`)."""
        n = unwrap(node)
        if n.id in seen:
            return []
        seen.add(n.id)
        src = self.src
        t = n.type
        if t == "template_string":
            out: list[Node] = []
            for c in n.named_children:
                if c.type == "template_substitution" and c.named_children:
                    inner = unwrap(c.named_children[0])
                    if inner.type in ("identifier", "call_expression", "template_string"):
                        sub = self._leaves(inner, seen)
                        out += [c] if sub == [inner] else sub
                    else:
                        out.append(c)
            return out
        if t == "binary_expression" and src.text(n.child_by_field_name("operator")) == "+":
            return self._leaves_of(
                [n.child_by_field_name("left"), n.child_by_field_name("right")], seen
            )
        if t == "ternary_expression":
            return self._leaves_of(
                [n.child_by_field_name("consequence"), n.child_by_field_name("alternative")], seen
            )
        if t == "array":
            return self._leaves_of(n.named_children, seen)
        if t in _JSX:
            # `<SystemMessage>Current time: {new Date().toLocaleString()}</SystemMessage>`:
            # the text of a JSX element is its `{...}` holes and its nested elements.
            return self._leaves_of(
                [
                    c.named_children[0] if c.type == "jsx_expression" else c
                    for c in n.named_children
                    if (c.type == "jsx_expression" and c.named_children) or c.type in _JSX
                ],
                seen,
            )
        if t == "identifier":
            scope, vals, _ = self.ev.m.lookup(n, src.text(n))
            if vals and scope is not None:
                vals = bound_before(vals, n, scope)
            if vals and any(unwrap(v).type in _COMPOSE or _is_join(src, v) for v in vals):
                return self._leaves_of(vals, seen)
            return [n]
        if t == "call_expression" and _is_join(src, n):
            fn = unwrap(n.child_by_field_name("function"))  # type: ignore[arg-type]
            name = callee_name(src, n)
            out = self._leaves(fn.child_by_field_name("object"), seen)  # type: ignore[arg-type]
            if name in ("replace", "replaceAll"):
                args = arguments(n)
                fill = unwrap(args[1]) if len(args) > 1 else None
                if fill is not None and fill.type in FUNCTIONS:
                    # `text.replace(VARS, (m, v) => v === "datetime" ? new Date()... : m)`:
                    # what the callback returns is written into the text.
                    out += self._leaves_of(_returned(fill), seen)
                elif fill is not None:
                    out += self._leaves(fill, seen)
            elif name == "concat":
                out += self._leaves_of(arguments(n), seen)
            return out
        return [n]

    def _leaves_of(self, nodes: list[Node | None] | list[Node], seen: set[int]) -> list[Node]:
        out: list[Node] = []
        for x in nodes:
            if x is not None:
                out += self._leaves(x, seen)
        return out

    def text_sink(self, value: Node, sink: str, at: Node, volatile_only: bool = False) -> None:
        sink_line = self.src.pos(at)[0]
        if not volatile_only and self._newest_speaker(unwrap(value), sink, sink_line):
            return
        if unwrap(value).type == "identifier" and identity_name(self.src.text(unwrap(value))):
            return  # `return id` from `createPersona()`: the record's key, no prompt text
        if not volatile_only and unwrap(value).type == "identifier":
            # `.replace("{search_results}", search_results)`: the name as written here, before
            # it is followed into the texts it is built from.
            self._per_request(unwrap(value), sink, sink_line)
        for leaf in self._leaves(value, set()):
            inner = leaf
            if leaf.type == "template_substitution" and leaf.named_children:
                inner = unwrap(leaf.named_children[0])
            if self._kept_head(inner):
                continue
            if (
                inner.type == "call_expression"
                and prefix_name(callee_name(self.src, inner))
                and self._builder_here(inner)
            ):
                # A prompt builder's own return values are a sink where it is defined:
                # reported there once, not again at each call.
                continue
            if inner.type == "identifier" and words(self.src.text(inner))[-1:] in (
                ["id"],
                ["ids"],
            ):
                continue  # an id (`return id`) names a record; it is no prompt text
            if not volatile_only:
                self._per_request(leaf, sink, sink_line)
                self._summary(leaf, sink, sink_line)
                self._recent(leaf, sink, sink_line)
                self._history_count(leaf, sink, sink_line)
                if set(words(sink)) & (_PREFIX_WORDS | _SYSTEM_ROLES):
                    self._mode_piece(leaf, sink, sink_line)
                if set(words(sink)) & (_PREFIX_WORDS | _SYSTEM_ROLES):
                    self._fetched(leaf, sink, sink_line)
            if self._is_named_sink(inner):
                # `system: systemPrompt`: the value was reported where `systemPrompt` is bound,
                # a sink of its own; one finding per value, not one per hop.
                continue
            one = self._one_item(at)
            for taint in sorted(self.ev.taints(leaf), key=_order_key):
                if taint.kind in _LISTED and (taint.kind, taint.line, taint.path) in one:
                    continue
                if taint.kind in VOLATILE or (taint.kind in ORDER and not volatile_only):
                    self._add(leaf, taint, sink, sink_line)

    def _one_item(self, at: Node) -> set[tuple[str, int, str]]:
        """`entries.map((fileName) => { const systemPrompt = read(join(dir, fileName)) ...
        })`: a sink bound inside a callback run once per element of a listing holds one
        element's value (a file's own text, its name), which carries neither the listing's
        order nor what else the folder holds. The listing's own taints (as the collection
        carries them), to leave out there; a listing read any other way is still reported."""
        if at.type in ("assignment_expression", "augmented_assignment_expression"):
            return set()  # `systemPrompt += f`: a text outside the callback gathers them all
        cb = scope_of(at) if at.parent is not None else None
        args = cb.parent if cb is not None else None
        call = args.parent if args is not None and args.type == "arguments" else None
        if cb is None or cb.type not in FUNCTIONS or call is None:
            return set()
        fn = call.child_by_field_name("function")
        if fn is None or fn.type != "member_expression":
            return set()
        if self.src.text(fn.child_by_field_name("property")) not in _PER_ELEMENT:
            return set()
        obj = fn.child_by_field_name("object")
        if obj is None:
            return set()
        return {(t.kind, t.line, t.path) for t in self.ev.taints(obj) if t.kind in _LISTED}

    def _kept_head(self, node: Node) -> bool:
        """`this.messages[0]` (or a field of it): the first message of the kept history, read
        back as it was sent. Kept byte for byte (a compaction keeping the system message), it
        changes nothing; what it holds was reported where it was first written."""
        while node.type == "member_expression":
            node = unwrap(node.child_by_field_name("object"))  # type: ignore[arg-type]
        if node.type != "subscript_expression":
            return False
        index = node.child_by_field_name("index")
        if index is None or self.src.text(unwrap(index)) != "0":
            return False
        listed = unwrap(node.child_by_field_name("object"))  # type: ignore[arg-type]
        if listed.type == "member_expression":
            name = self.src.text(listed.child_by_field_name("property"))
        elif listed.type == "identifier":
            name = self.src.text(listed)
        else:
            return False
        return bool(set(words(name)) & _KEPT_LISTS)

    def _builder_here(self, call: Node) -> bool:
        """Whether the prompt builder `call` calls is defined in this file (its returns are
        checked there); one from another file is judged here, by its value or its name."""
        fn = unwrap(call.child_by_field_name("function"))  # type: ignore[arg-type]
        if fn.type == "identifier":
            _, _, f = self.ev.m.lookup(fn, self.src.text(fn))
            return f is not None
        if fn.type == "member_expression":
            obj = fn.child_by_field_name("object")
            if obj is not None and obj.type == "this":
                prop = self.src.text(fn.child_by_field_name("property"))
                _, _, f = self.ev.m.lookup(self.src.root, "this." + prop)
                return f is not None
        return True

    def _defined_here(self, call: Node) -> bool:
        """Whether the function `call` calls is defined in this file (a function, or a method
        of `this`), where its own returns are checked. A `new` expression (its callee is a
        `constructor` field) builds an object of a class: no builder's returns to check."""
        callee = call.child_by_field_name("function")
        if callee is None:
            return False
        fn = unwrap(callee)
        if fn.type == "member_expression":
            obj = fn.child_by_field_name("object")
            if obj is None or obj.type != "this":
                return False
        return self._builder_here(call)

    def _is_named_sink(self, node: Node) -> bool:
        """`systemPrompt`, `PROMPTS[mode]`, `this.systemPrompt`: a value read from a name that is
        itself a prompt sink bound in this file."""
        n = unwrap(node)
        while (
            n.type in ("subscript_expression", "member_expression")
            and n.child_by_field_name("object") is not None
        ):
            obj = unwrap(n.child_by_field_name("object"))  # type: ignore[arg-type]
            if n.type == "member_expression" and obj.type == "this":
                name = "this." + self.src.text(n.child_by_field_name("property"))
                _, vals, _ = self.ev.m.lookup(self.src.root, name)
                return bool(vals) and bool(prefix_name(name[5:]))
            n = obj
        if n.type != "identifier":
            return False
        name = self.src.text(n)
        _, vals, _ = self.ev.m.lookup(n, name)
        return bool(vals) and bool(prefix_name(name))

    def _mode_tools(self, value: Node, name: str) -> None:
        """PL302: a tool list picked by a mode (`mode === "plan" ? readOnly : all`,
        `TOOLS[mode]`, `.filter((t) => t.modes.includes(mode))`)."""
        v = _before_fallback(self.src, unwrap(value))
        nodes = [v]
        if v.type == "identifier":
            _, vals, _ = self.ev.m.lookup(v, self.src.text(v))
            nodes += [unwrap(x) for x in vals or []]
        chain: list[Node] = []
        for x in nodes:
            # `(await toolIndex.search(query, 5)).map((r) => r.tool)`: the search under the
            # `.map` picks the tools, so each call of the chain is read.
            while x.type == "call_expression":
                chain.append(x)
                fn = unwrap(x.child_by_field_name("function"))  # type: ignore[arg-type]
                if fn.type != "member_expression":
                    break
                x = unwrap(fn.child_by_field_name("object"))  # type: ignore[arg-type]
        for x in chain:
            if x.type == "call_expression":
                cur = self._current_message(x)
                if cur is not None:
                    self._report(
                        value,
                        "PL302",
                        f"`{name}` is chosen from `{self.src.text(cur)}`, the current request: "
                        "the tool definitions, the first part of the prefix, change with every "
                        "request and every cache level misses; send one tool list",
                    )
                    return
        n = self._mode_word(nodes) or self._picked_model(nodes)
        if n is not None:
            self._report(
                value,
                "PL302",
                f"`{name}` is chosen by `{self.src.text(n)}`: switching modes changes the tool "
                "definitions, the first part of the prefix, and every cache level misses; send "
                "one tool list and restrict tools by instruction",
            )

    def _mode_prompt(self, value: Node, name: str) -> None:
        """PL302: a system prompt picked by a mode (`chatMode === "build" ? a : b`)."""
        v = _before_fallback(self.src, unwrap(value))
        if v.type == "ternary_expression":
            cond = v.child_by_field_name("condition")
        elif v.type == "subscript_expression":
            cond = v.child_by_field_name("index")  # `PROMPTS[group]`
        elif v.type == "call_expression":
            # `getWriterPrompt(ctx, config.mode)`, `resolveSystemPrompt({ cwd, mode })`: the
            # mode handed to the builder itself, not one buried in another call's options.
            cond = None
            n = self._mode_arg(v)
        else:
            return
        if cond is not None:
            n = self._mode_word([cond])
        if n is not None and not self._in_one_off():
            self._report(
                n if v.type == "call_expression" else value,
                "PL302",
                f"`{name}` is chosen by `{self.src.text(n)}`: switching modes changes the start "
                "of the prompt, and every request after the switch misses the cache; keep one "
                "prompt and state the mode in the newest user turn",
            )

    def _per_request(self, leaf: Node, sink: str, sink_line: int) -> None:
        """PL304: the current request (`${query}`, `userMessage`) written into the prefix."""
        inner = unwrap(leaf.named_children[0]) if leaf.type == "template_substitution" else leaf
        if inner.type == "member_expression":
            name = self.src.text(inner.child_by_field_name("property"))
        elif inner.type in ("identifier", "shorthand_property_identifier"):
            name = self.src.text(inner)
        else:
            return
        ws = set(words(name))
        last = words(name)[-1:]
        # What was retrieved counts in a system prompt, not in a `prompt` that may be the
        # user's turn of a one-off request.
        retrieved = (
            bool(last)
            and not ws & _SETTLED
            and bool(set(words(sink)) & (_PREFIX_WORDS | _SYSTEM_ROLES))
            and (
                (last[0] in _RETRIEVED and self._varies(inner))
                # `state.webContent`: what was fetched from the web, a field of this request
                or (_fetched_page(ws, last[0]) and self._field_varies(inner))
            )
            and not self._read_without_request(inner)
        )
        if not (ws & _REQUEST or (ws & _CURRENT and ws & _REQUEST_PARTS) or retrieved):
            return
        request = ws & _REQUEST or (ws & _CURRENT and ws & _REQUEST_PARTS)
        if (
            request
            and not retrieved
            and not set(words(sink)) & (_PREFIX_WORDS | _SYSTEM_ROLES)
            and not self._placed_as_system(sink)
        ):
            # A prompt not named for the prefix (`buildCoachPrompt(level, userMessage)`) that
            # holds the question is the request's own text, the user's turn of a one-shot
            # call, until a system position shows it is ahead of a history.
            return
        if request and (name.isupper() or ws & _SYSTEM_ROLES) and not retrieved:
            # `CURRENT_REQUEST_REMINDER`: a constant's fixed text; `newSystemPrompt`: a system
            # prompt, reported by what it holds, not the request by its name.
            return
        if self._in_one_off():
            return  # the question, or what was fetched for it, in a request with no history
        what = "the current request" if request else "retrieved for this request"
        self._request_sinks.add(sink_line)
        self._report(
            leaf,
            "PL304",
            f"`{name}` ({what}) is written into {sink} (line {sink_line}), ahead "
            "of the conversation history: the prefix changes there on every request and the "
            "whole history is sent again uncached; put it in the newest user message",
        )

    def _mode_piece(self, leaf: Node, sink: str, sink_line: int) -> None:
        """PL302: a section of a system prompt looked up by a mode (`${MODE_NOTES[replyMode]
        || MODE_NOTES.inform}`): the prompt's text changes from there whenever the mode does."""
        if leaf.type != "template_substitution" or not leaf.named_children:
            return
        v = _before_fallback(self.src, unwrap(leaf.named_children[0]))
        if v.type != "subscript_expression":
            return
        n = self._mode_word([v.child_by_field_name("index")])  # type: ignore[list-item]
        if n is None or self._in_one_off():
            return
        self._report(
            leaf,
            "PL302",
            f"the section `{self.src.text(v)}` of {sink} (line {sink_line}) is chosen by "
            f"`{self.src.text(n)}`: switching modes changes the prompt from there, and every "
            "request after the switch misses the cache; keep one prompt and state the mode in "
            "the newest user turn",
        )

    def _summary(self, leaf: Node, sink: str, sink_line: int) -> None:
        """PL303: a summary of the conversation (`${props.summary}`, `conversationSummary`)
        written into a system prompt: every new summary rewrites the prefix from there on, so
        the request after it misses the cache for the whole history."""
        inner = unwrap(leaf.named_children[0]) if leaf.type == "template_substitution" else leaf
        if inner.type == "member_expression":
            name = self.src.text(inner.child_by_field_name("property"))
            root = inner
            while root.type == "member_expression":
                root = unwrap(root.child_by_field_name("object"))  # type: ignore[arg-type]
            varies = scope_of(inner).type != "program" and root.type in ("identifier", "this")
        elif inner.type in ("identifier", "shorthand_property_identifier"):
            name = self.src.text(inner)
            varies = self._varies(inner)
        else:
            return
        ws = words(name)
        if not (ws and ws[-1] == "summary" and set(ws) <= _SUMMARY_OF and varies):
            return
        if name.isupper():
            return  # `prompts.SUMMARY`: a constant, the summariser's own instructions
        if not set(words(sink)) & (_PREFIX_WORDS | _SYSTEM_ROLES | _PROMPT_WORDS):
            return
        self._report(
            leaf,
            "PL303",
            f"`{name}` (a summary of the conversation) is written into {sink} (line "
            f"{sink_line}): each new summary changes the prompt's start, and the request after "
            "it misses the cache for the whole history; put the summary after the system "
            "prompt, as the first message it replaces, and refresh it rarely",
        )

    def _recent(self, leaf: Node, sink: str, sink_line: int) -> None:
        """PL303: the conversation's newest messages written into a system prompt
        (`${messageHistory}` bound to `formatRecentMessagesForPrompt(10)`, `recentMessages`
        from `history.slice(-10)`): a window that moves with every exchange, so the system
        prompt itself differs on every message."""
        inner = unwrap(leaf.named_children[0]) if leaf.type == "template_substitution" else leaf
        if inner.type == "ternary_expression":
            # `${messageHistory ? `\n${messageHistory}\n` : ""}`: the text when it is there.
            inner = unwrap(inner.child_by_field_name("condition"))  # type: ignore[arg-type]
        if inner.type not in ("identifier", "shorthand_property_identifier"):
            return
        name = self.src.text(inner)
        ws = words(name)
        if not (ws and ws[-1] in _KEPT_LISTS and set(ws) <= _RECENT_OF) or name.isupper():
            return
        if not set(words(sink)) & (_PREFIX_WORDS | _SYSTEM_ROLES) or not self._varies(inner):
            return
        _, vals, _ = self.ev.m.lookup(inner, name)
        # The window is said by the name (`recentMessages`) or by what it is bound to: a call
        # named for the newest messages, or a slice from the end.
        windowed = bool(set(ws) & _NEWEST) or any(_newest_window(self.src, v) for v in vals or [])
        if not windowed:
            return
        self._report(
            leaf,
            "PL303",
            f"`{name}` (the newest messages of the conversation) is written into {sink} (line "
            f"{sink_line}): the window moves with every exchange, so the prompt's start changes "
            "and every request misses the cache for the whole history; send the messages as "
            "the history after the system prompt instead",
        )

    def _history_count(self, leaf: Node, sink: str, sink_line: int) -> None:
        """PL304: how many messages the conversation has (`${thread.messages.length}`) written
        into a system prompt: the count grows with every turn, so the prefix changes at that
        point on every request."""
        inner = unwrap(leaf.named_children[0]) if leaf.type == "template_substitution" else leaf
        if inner.type != "member_expression":
            return
        if self.src.text(inner.child_by_field_name("property")) != "length":
            return
        obj = unwrap(inner.child_by_field_name("object"))  # type: ignore[arg-type]
        named = obj.child_by_field_name("property") if obj.type == "member_expression" else obj
        if named is None or not _conversation_name(self.src.text(named)):
            return
        if not set(words(sink)) & (_PREFIX_WORDS | _SYSTEM_ROLES) or not self._field_varies(obj):
            return
        if self._in_one_off():
            return
        self._report(
            leaf,
            "PL304",
            f"the conversation's length (`{self.src.text(inner)}`) is written into {sink} (line "
            f"{sink_line}), ahead of the history: it grows every turn, so the prefix changes "
            "there on every request and the whole history is sent again uncached; state it in "
            "the newest message, or leave it out",
        )

    def _newest_speaker(self, value: Node, sink: str, sink_line: int) -> bool:
        """PL304: a value taken from the newest message of the conversation (`currentUserId`
        set from `message.user` in a loop over the thread's messages from the end) handed to a
        system prompt: whoever wrote last decides the prompt, so it changes between requests
        of one conversation. True when reported."""
        if value.type != "identifier" or not set(words(sink)) & (_PREFIX_WORDS | _SYSTEM_ROLES):
            return False
        scope, vals, _ = self.ev.m.lookup(value, self.src.text(value))
        if scope is None or scope.type == "program" or not vals:
            return False
        if not any(self._of_history_item(unwrap(v)) for v in vals):
            return False
        if self._in_one_off():
            return False
        self._report(
            value,
            "PL304",
            f"`{self.src.text(value)}` is taken from a message of the conversation and written "
            f"into {sink} (line {sink_line}): it follows whoever wrote last, so the prefix "
            "changes between requests of one conversation and the whole history is sent "
            "again uncached; state it in the newest user message",
        )
        return True

    def _of_history_item(self, v: Node) -> bool:
        """`message.user` where `message = thread.messages[i]` or `for (const message of
        history)`: a field of one message of the conversation."""
        if v.type != "member_expression":
            return False
        root = unwrap(v.child_by_field_name("object"))  # type: ignore[arg-type]
        if root.type != "identifier":
            return False
        _, vals, _ = self.ev.m.lookup(root, self.src.text(root))
        for r in vals or []:
            r = unwrap(r)
            if r.type == "subscript_expression":
                listed = unwrap(r.child_by_field_name("object"))  # type: ignore[arg-type]
            else:
                listed = r  # a for-of loop's list, if the lookup gives it
            named = (
                listed.child_by_field_name("property")
                if listed.type == "member_expression"
                else listed
            )
            if named is not None and _conversation_name(self.src.text(named)):
                return True
        return False

    def _fetched(self, leaf: Node, sink: str, sink_line: int) -> None:
        """PL304: what a search or a recall fetched for this request, followed through the
        values it is written into, reaching a system prompt; reported once per fetch."""
        inner = unwrap(leaf)
        if inner.type == "object" and not any(
            key_name(self.src, p.child_by_field_name("key")) in ("content", "text")
            for p in inner.named_children
            if p.type == "pair"
        ):
            return  # a record returned beside the prompt (`{ prompt, sources }`), not its text
        for taint in sorted(self.ev.taints(leaf), key=_order_key):
            if taint.kind != RETRIEVED:
                continue
            key = (taint.line, taint.what, taint.path)
            # One finding a sink, what was fetched or the request itself; but each option of
            # a prompt builder's call (`buildWriterSystemPrompt({ format, additionalMaterial
            # })`) is an input of its own, reported once each.
            option = (
                sink.endswith("()`")
                and (leaf.id, "PL304") not in self._seen
                and self._option_of_call(leaf)
            )
            if key in self._fetches or (sink_line in self._request_sinks and not option):
                return
            self._fetches.add(key)
            self._request_sinks.add(sink_line)
            where = f"line {taint.line}" + (f" of {taint.path}" if taint.path else "")
            self._report(
                leaf,
                "PL304",
                f"`{taint.what}` (retrieved for this request, {where}) is written into {sink} "
                f"(line {sink_line}), ahead of the conversation history: the prefix changes "
                "there on every request and the whole history is sent again uncached; put it "
                "in the newest user message",
            )

    def _option_of_call(self, leaf: Node) -> bool:
        """`leaf` is a whole option of an object handed to a call (`{ additionalMaterial }`,
        `{ format: normalizedFormat }`)."""
        p = leaf.parent
        if leaf.type == "shorthand_property_identifier":
            obj = p
        elif p is not None and p.type == "pair" and p.child_by_field_name("value") == leaf:
            obj = p.parent
        else:
            return False
        return (
            obj is not None
            and obj.type == "object"
            and obj.parent is not None
            and obj.parent.type == "arguments"
        )

    def _read_without_request(self, node: Node) -> bool:
        """`integrationContext = buildIntegrationContext()`: every value of the name is a call
        of a module's function handed nothing, so nothing of this request picks what it finds
        (settings read again, not a retrieval for the question). A method of a held object
        (`memoryHolder.formatForPrompt()`) reads what the conversation wrote into it."""
        if node.type != "identifier" or set(words(self.src.text(node))) & _RECALLED:
            return False
        _, vals, _ = self.ev.m.lookup(node, self.src.text(node))
        if not vals:
            return False
        for v in vals:
            v = unwrap(v)
            if v.type == "await_expression" and v.named_children:
                v = unwrap(v.named_children[0])
            if v.type != "call_expression" or any(self._of_request(a) for a in arguments(v)):
                return False
            fn = v.child_by_field_name("function")
            if fn is None or unwrap(fn).type != "identifier":
                return False
        return True

    def _of_request(self, arg: Node) -> bool:
        """Whether an argument may carry something of this request: anything it is made of
        (the request's body, a parameter, a clock), or a name for the request itself. A
        client handle and the signed-in user's id or email carry nothing of it
        (`fetchPetContext(supabase, user.email)`: the user's stored records)."""
        if self.ev.taints(arg):
            return True
        return any(
            n.type in ("identifier", "property_identifier")
            and bool(set(words(self.src.text(n))) & _REQUEST)
            for n in walk(arg)
        )

    def _field_varies(self, node: Node) -> bool:
        """`state.webContent`, `thread.messages`: a field of a name that varies (below)."""
        root = unwrap(node)
        while root.type == "member_expression":
            root = unwrap(root.child_by_field_name("object"))  # type: ignore[arg-type]
        return root.type == "identifier" and self._varies(root)

    def _varies(self, node: Node) -> bool:
        """A parameter of a function, or a name bound inside one to something other than
        literal text (`hasImages ? '...' : ''` is one of two fixed texts): made per call, not a
        module constant loaded once."""
        if node.type not in ("identifier", "shorthand_property_identifier"):
            return False
        scope, vals, _ = self.ev.m.lookup(node, self.src.text(node))
        if vals is not None and scope is not None:
            return (
                scope.type != "program"
                and not all(self._literal(v) for v in vals)
                and not all(self._from_constants(v, 3) for v in vals)
            )
        return scope_of(node).type != "program"

    def _from_constants(self, value: Node, depth: int) -> bool:
        """Whether `value` is built only of literals, the module's constants and imports, and
        locals built so in turn (`categoriesContext = USE ? "..." + categoryList : ""` with
        `categoryList` joined from an imported JSON file): the same text on every call. A
        parameter, a call's result bound elsewhere or a name not bound here is not."""
        if depth == 0:
            return False
        own = {
            self.src.text(x)
            for f in walk(value)
            if f.type in FUNCTIONS
            for p in (f.child_by_field_name("parameters"), f.child_by_field_name("parameter"))
            if p is not None
            for x in walk(p)
            if x.type == "identifier"
        }
        for n in walk(value):
            if n.type not in ("identifier", "shorthand_property_identifier"):
                continue
            name = self.src.text(n)
            if name in ("undefined", "true", "false", "null"):
                continue
            if name in own:
                continue  # a parameter of a callback inside the value (`(c) => c.id`)
            scope, vals, fn = self.ev.m.lookup(n, name)
            if scope is None:
                if name in self.ev.m.imports:
                    continue
                return False
            if fn is not None or not vals:
                return False
            if not all(self._from_constants(v, depth - 1) for v in vals):
                return False
        return True

    def _literal(self, node: Node) -> bool:
        node = unwrap(node)
        if node.type == "ternary_expression":
            return all(
                self._literal(x)
                for x in (
                    node.child_by_field_name("consequence"),
                    node.child_by_field_name("alternative"),
                )
                if x is not None
            )
        return string_value(self.src, node) is not None

    def order_sink(self, value: Node, sink: str, at: Node) -> None:
        sink_line = self.src.pos(at)[0]
        for taint in sorted(self.ev.taints(value), key=_order_key):
            if taint.kind in ORDER:
                self._add(unwrap(value), taint, sink, sink_line, tools=True)

    def _add(
        self, leaf: Node, taint: Taint, sink: str, sink_line: int, tools: bool = False
    ) -> None:
        code = CODE_OF[taint.kind]
        kind = taint.kind
        if kind == "filetree" and "memory" in words(self.src.text(leaf)):
            # `memoryDirectory`: the listing of the agent's own memory store, which its memory
            # tool changes during the conversation: state written ahead of the history
            code, kind = "PL304", "memory listing"
        if (leaf.id, code) in self._seen:
            return
        if code in _ONE_OFF and self._in_one_off():
            return
        if (
            taint.what.endswith("(by its name)")
            and sink.endswith("()`")
            and not set(words(sink)) & (_PREFIX_WORDS | _SYSTEM_ROLES | HISTORY_WORDS)
            and not self._placed_as_system(sink)
        ):
            # A value known by its name only (`date`, `sha` handed in) written into a builder
            # of a task's prompt (`buildDailyPlanPrompt(level, date)`) that neither its name
            # (for a system prompt or a chat's) nor its callers here place in the prefix: no
            # clock is seen and no repeated prefix is shown, so the evidence is too weak.
            return
        # One finding a value on a line: `system = buildSystemPrompt(name, today)` reaches
        # `system` and the builder's argument both; reported once.
        once = (code, taint.line, taint.what, taint.path, self.src.pos(leaf)[0])
        if once in self._values_seen:
            return
        self._values_seen.add(once)
        where = f"line {taint.line}" + (f" of {taint.path}" if taint.path else "")
        text = " ".join(self.src.text(leaf).split())
        text = text if len(text) <= 50 else text[:47] + "..."
        if taint.kind in ORDER:
            what = "a directory listing" if taint.kind == "listing" else "an unordered collection"
            msg = (
                f"{text} carries {what} ({taint.what}, {where}) into {sink} "
                f"(line {sink_line}), part of the prefix{' (the tool list)' if tools else ''}; "
                "sort it"
            )
        else:
            msg = (
                f"{text} is a {kind} value ({taint.what}, {where}) that reaches {sink} "
                f"(line {sink_line}), part of the prompt prefix"
            )
        origin = taint.path or self.src.path
        flowed = flow(origin, taint.line, taint.what, self.src.path, sink_line, sink)
        self._report(leaf, code, msg, {**flowed, "kind": kind, "subject": text})


# A macro's pattern as a regex (`{{time}}`, `{{datetimeformat +([^}]*)}}`) and a slot in text.
_SLOT_NAME = re.compile(r"\\?\{\\?\{\s*[A-Za-z_]\w*\b[^}]*\\?\}\\?\}")
# Slot names of a template: a recall (`{{memoryJson}}`, `{memories}`), what a search
# found; the words after them name the format only (`Json`, `Text`, `Block`).
_RECALLED = frozenset({"memory", "memories", "recalled"})
_FETCHED_CONTEXT = frozenset(
    {"search", "retrieved", "retrieval", "rag", "docs", "doc", "document", "memory", "web"}
    | {"relevant", "knowledge", "results"}
)
_QUESTION_SLOTS = frozenset({"question", "query", "input", "message", "request"})
_FORMAT_WORDS = frozenset({"json", "text", "str", "string", "block", "xml", "md", "section"})


# Calls that hand a value to a client or a listener, not to a model: an event emitted
# (`io.emit("new_message", { role: "system", content })`), an HTTP response's body.
_EVENT_CALLS = frozenset({"emit", "broadcast", "postMessage", "json"})


def _filled(src: Source, use: Node) -> Node:
    """`TEMPLATE.replace("{{context}}", c).replace(...)` for the use `TEMPLATE`: the filled
    text, which is what is placed; the use itself otherwise."""
    while True:
        member = use.parent
        call = member.parent if member is not None else None
        if (
            member is None
            or member.type != "member_expression"
            or member.child_by_field_name("object") != use
            or src.text(member.child_by_field_name("property")) not in ("replace", "replaceAll")
            or call is None
            or call.type != "call_expression"
        ):
            return use
        use = call


def _emitted(src: Source, obj: Node) -> bool:
    """A message object handed straight to an event or a response (`io.emit("new_message",
    { role: "system", ... })`, `res.json({ role, content })`): shown to a client, not sent."""
    args = obj.parent
    call = args.parent if args is not None and args.type == "arguments" else None
    return (
        call is not None
        and call.type == "call_expression"
        and callee_name(src, call) in _EVENT_CALLS
    )


def _template_parts(value: Node) -> list[Node]:
    """The text nodes of a prompt template: a string itself, or the string elements of an array
    of lines joined into one (`[BASE, 'Today: {today}'].join('\\n')`); none for anything else."""
    if value.type in ("string", "template_string"):
        return [value]
    if value.type != "call_expression":
        return []
    fn = value.child_by_field_name("function")
    if fn is None or fn.type != "member_expression":
        return []
    obj, prop = fn.child_by_field_name("object"), fn.child_by_field_name("property")
    if obj is None or obj.type != "array" or prop is None or prop.text != b"join":
        return []
    return [c for c in obj.named_children if c.type in ("string", "template_string")]


def _slot_words(name: str) -> list[str]:
    ws = words(name)
    while len(ws) > 1 and ws[-1] in _FORMAT_WORDS:
        ws = ws[:-1]
    return ws


_SLOT_IN_TEXT = re.compile(r"(?<!\$)\{\{?\s*([A-Za-z_][\w]*)\s*\}\}?")


# What a request with no history may carry in its system prompt without breaking a cache: a
# date (the same all day, and no conversation's prefix follows it to be invalidated) and the
# question itself (the request's own input, sent once). A clock reading stays reported: it
# changes on every repeat of the same request (a classifier called per ticket), whose system
# prompt would otherwise be read from the cache. What was retrieved for the request is the
# request's own input there, as the question is (`_per_request`).
_ONE_OFF = frozenset({"PL102"})
# The keys of a request's options that hold its system prompt.
_ONE_OFF_KEYS = frozenset({"system", "instructions"})


# Keys of a model request's or an agent's options.
_REQUEST_KEYS = frozenset(
    {"model", "messages", "input", "tools", "name", "prompt", "agent", "temperature", "stream"}
)


def _not_a_request(src: Source, pairs: dict[str | None, Node | None]) -> bool:
    """An object with an `id` entry and none of a request's or an agent's keys: a record."""
    return "id" in pairs and not set(pairs) & _REQUEST_KEYS


def _pair_key(n: Node) -> bool:
    """Whether `n` is the key of an object's `key: value` pair."""
    p = n.parent
    if p is None or p.type != "pair":
        return False
    key = p.child_by_field_name("key")
    return key is not None and key.id == n.id


def _record(src: Source, value: Node) -> bool:
    """An object literal with no text of a message (`{ uptime, memory: {...} }`): a record,
    not the text of a prompt (`{ type: 'text', text }` or `{ content }` may be one)."""
    v = unwrap(value)
    if v.type != "object":
        return False
    keys = {
        key_name(src, p.child_by_field_name("key")) if p.type == "pair" else src.text(p)
        for p in v.named_children
    }
    return bool(keys) and not keys & {"text", "content", "parts", "type", "role"}


def _identity_pair(src: Source, p: Node) -> bool:
    """An object's entry keyed for the record's identity (`id`, `promptId: uuid()`)."""
    if p.type == "shorthand_property_identifier":
        return identity_name(src.text(p))
    key = p.child_by_field_name("key") if p.type == "pair" else None
    return key is not None and identity_name(key_name(src, key) or "")


def _role(src: Source, obj: Node | None) -> str | None:
    """The literal `role` of a message object (`{ role: 'user', ... }`)."""
    if obj is None or obj.type != "object":
        return None
    for p in obj.named_children:
        if p.type == "pair" and key_name(src, p.child_by_field_name("key")) == "role":
            value = p.child_by_field_name("value")
            return string_value(src, unwrap(value)) if value is not None else None
    return None


def _only_users(src: Source, arr: Node, skip: int) -> bool:
    """Past its first `skip` items, the array holds only literal user messages (no spread
    history, no message held in a name)."""
    items = [c for c in arr.named_children if c.type != "comment"]
    return len(items) > skip and all(_role(src, unwrap(c)) == "user" for c in items[skip:])


def _bound_here(ident: Node) -> bool:
    """The name being declared or assigned (`let systemPrompt = ""`, `systemPrompt = ...`),
    not read."""
    p = ident.parent
    if p is None:
        return False
    if p.type == "variable_declarator":
        return p.child_by_field_name("name") == ident
    if p.type in ("assignment_expression", "augmented_assignment_expression"):
        return p.child_by_field_name("left") == ident
    return False


# Lookups of a translated UI string (`t("key")`, `i18n.t`, `$t`, `intl.formatMessage`).
_TRANSLATE = frozenset({"t", "$t", "translate", "formatMessage"})


def _translated(src: Source, call: Node) -> bool:
    """Whether a chain of `.replace` calls starts from a translated UI string: what it fills
    is shown to the user in the app's language, not sent as a prompt."""
    n: Node | None = call
    while n is not None and n.type == "call_expression":
        fn = unwrap(n.child_by_field_name("function"))  # type: ignore[arg-type]
        if fn.type == "member_expression":
            if callee_name(src, n) in _TRANSLATE:
                return True
            nxt = fn.child_by_field_name("object")
            n = unwrap(nxt) if nxt is not None else None
        else:
            return callee_name(src, n) in _TRANSLATE
    return False


def _chain_root(src: Source, call: Node) -> str:
    """The name a chain of method calls starts from: `system` in `system.replace(...)
    .replace(...)`, `systemPrompt` in `config.systemPrompt.replace(...)`; "" when it starts
    from anything else."""
    n: Node | None = call
    while n is not None and n.type == "call_expression":
        fn = unwrap(n.child_by_field_name("function"))  # type: ignore[arg-type]
        n = fn.child_by_field_name("object") if fn.type == "member_expression" else None
        n = unwrap(n) if n is not None else None
    if n is not None and n.type == "member_expression":
        # `config.systemPrompt.replace(...)`: the prompt read from a settings object
        return src.text(n.child_by_field_name("property"))
    return src.text(n) if n is not None and n.type == "identifier" else ""


def _is_join(src: Source, node: Node) -> bool:
    """A string method that composes text (`parts.join("")`, `text.replace(a, b)`); a bare
    function of the same name (`join(dir, file)` from "path") is not one."""
    n = unwrap(node)
    if n.type != "call_expression":
        return False
    fn = n.child_by_field_name("function")
    return (fn is not None and unwrap(fn).type == "member_expression") and callee_name(src, n) in (
        "join",
        "replace",
        "replaceAll",
        "concat",
        "trim",
        "trimEnd",
        "trimStart",
    )


def _order_key(t: Taint) -> tuple[str, int, str]:
    return (CODE_OF.get(t.kind, "~"), t.line, t.what)


def _returned(fn: Node) -> list[Node]:
    """What a function returns: its expression body, or each of its own `return` values."""
    body = fn.child_by_field_name("body")
    if body is None:
        return []
    if body.type != "statement_block":
        return [body]
    return [
        r.named_children[0]
        for r in walk(body)
        if r.type == "return_statement" and r.named_children and scope_of(r).id == fn.id
    ]
