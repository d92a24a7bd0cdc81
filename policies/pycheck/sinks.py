"""The sinks: where values become the cached prefix, and the findings of taints that reach one.

Sinks are `system=`, `instructions=`, `system_prompt=`, `tools=` and `functions=` of a call (or
of a request body written as a dict), system and developer messages, earlier messages of a
literal message list, tool-spec dicts, tool descriptions, variables named like a system prompt
and the return values of functions named like one that builds it. The newest message of a list
and tool results are not sinks: volatile facts belong there. A parameter that reaches a sink
goes into its function's summary, so that callers are checked too.

Raises the taint rules: PL101-PL106 (a volatile value in the prefix) and PL201-PL203 (an
unordered one); a request found here is also handed to the layout and breakpoint checks.
"""

# pure: imports no I/O (tests/test_layout.py checks it)

from __future__ import annotations

import ast
import re
from dataclasses import dataclass

from ..findings import Finding, Fix, flow
from ..meaning import kind_of_name, words
from ..rules import ERROR, NOTE, RULES, WARNING
from .breakpoints import AnthropicBreakpoints, OpenAIBreakpoints
from .context import Context
from .fixes import MoveFix, taint_fix
from .layout import LayoutCheck
from .records import is_record
from .syntax import const_str, dict_get, dict_keys, dotted, walk_cached, walk_no_defs
from .taint import CODE_OF, RENDERED, VOLATILE, Evaluator, Taint, Taints, drop, unfielded
from .trailing import Trailing
from .windows import _is_history as is_history

_SYSTEM_NAME = re.compile(
    r"(?i)^(system|system_?prompt|system_?message|system_?text|sys_?prompt|instructions|"
    r"preamble|developer_?(prompt|message))$"
)
_SYSTEM_FUNC = re.compile(
    r"(?i)(system_?(prompt|message|text|instructions|block)|(^|_)(build|make|render|get|create|"
    r"compose|load)_system$|^system$|^system_(for|of)(_|$)|instructions|preamble|"
    r"prompt_(blocks|sections|parts)$)"
)
# A function returning a tool's text (`get_web_search_prompt`, `tool_description`), read as a
# tool definition where its module sits in a folder named for tools.
_TOOL_TEXT_FUNC = re.compile(r"(?i)(^|_)(prompt|description)$")


def _order(t: Taint) -> tuple[int, int, str, int, int, str]:
    """A total order of taints: a frozenset's iteration order changes with the process's
    string hashing, and two values read at one line (another module's, say) must not swap from
    run to run in the finding that names one of them."""
    return (t.line, t.col, t.kind, t.end_line, t.end_col, t.desc)


def _in_tool_folder(path: str) -> bool:
    folders = path.replace("\\", "/").split("/")[:-1]
    return any(set(words(f)) & {"tool", "tools"} for f in folders)


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
# Framework message and agent types whose text is the system prompt: LangChain's
# `SystemMessage(content)` and `SystemMessagePromptTemplate.from_template(t)`; the keywords of
# agent constructors that become it (AutoGen `system_message=`, ADK `instruction=`, CrewAI
# `backstory=`, and `role=`/`goal=` of a CrewAI `Agent`).
_SYSTEM_MESSAGE_CALL = re.compile(
    r"(^|\.)(SystemMessage|SystemChatMessage|SystemMessagePromptTemplate\.from_template)$"
)
# Builders and owners that take the system prompt by a method: `builder.add_system_message(t)`,
# `session.set_system_prompt(t)`.
_SYSTEM_SETTER = re.compile(
    r"(?i)(^|\.)(add|set|append|update|with|use)_?system_?(message|prompt|instructions?)$"
)
_APPENDS = frozenset({"add", "append", "push"})


def _appended_to_history(call: ast.Call) -> bool:
    """`conversation.add_system_message(note)`: a system message added to a conversation
    itself lands after its messages, as every added message does (`add_user_message`), not
    ahead of them: no earlier byte of what is sent changes. A builder's or session's setter
    (`Builder().add_system_message(t)`, `session.set_system_prompt(t)`) places the prompt."""
    func = call.func
    return (
        isinstance(func, ast.Attribute)
        and bool(set(words(func.attr)) & _APPENDS)
        and is_history(func.value)
    )


_AGENT_KWARGS = {
    "system_message": "system message",
    "instruction": "agent instruction",
    "backstory": "agent backstory",
}
_CREW_AGENT_KWARGS = {"role": "agent role", "goal": "agent goal"}
# ADK substitutes `{key}` (and `{key?}`) of an instruction from the session state.
_STATE_SLOT = re.compile(r"(?<!\{)\{([A-Za-z_][A-Za-z0-9_]*)\??\}(?!\})")
_AGENT_PROMPT_WORDS = frozenset(
    {"template", "prompt", "system", "instruction", "instructions", "persona"}
)
# Keywords of an agent that hold the user's turn, an output parser or per-request context.
_NOT_AGENT_PROMPT = frozenset(
    {"user", "input", "human", "output", "format", "parser", "context", "example", "examples"}
)
_PROMPT_PARAM = frozenset({"prompt", "system", "instructions"})
_PROMPT_WORDS = frozenset({"prompt", "system", "instructions", "persona"})
_COMPOUND = (ast.For, ast.AsyncFor, ast.While, ast.If, ast.With, ast.AsyncWith, ast.Try)


def _state_update(stmt: ast.AST) -> set[int]:
    """The messages of a graph node's state update, `return {"messages": [SystemMessage(...)]}`
    (LangGraph, LangChain middleware): the `add_messages` reducer appends them to the history,
    where each is the newest message once and then stays as it was sent. Not a request body (no
    `model`, `system` or `tools` beside it)."""
    if not isinstance(stmt, ast.Return) or not isinstance(stmt.value, ast.Dict):
        return set()
    keys = dict_keys(stmt.value)
    listed = dict_get(stmt.value, "messages")
    if keys & {"model", "system", "instructions", "tools"} or not isinstance(listed, ast.List):
        return set()
    return {id(e) for e in listed.elts}


@dataclass
class Sink:
    where: str
    line: int
    in_function: bool
    move: Fix | None = None  # the unsafe fix that moves volatile lines to the newest turn
    built: bool = False  # an object built with the prompt (an agent), not a request sent


class SinkCheck:
    """Finds the sinks of each statement and reports the taints that reach them."""

    def __init__(self, ctx: Context, ev: Evaluator, tree: ast.Module | None = None) -> None:
        self.ctx = ctx
        self.ev = ev
        self.trailing: Trailing | None = Trailing(tree) if tree is not None else None
        self.layout: LayoutCheck = LayoutCheck(ctx, ev)
        self.anthropic: AnthropicBreakpoints = AnthropicBreakpoints(ctx, ev)
        self.openai: OpenAIBreakpoints = OpenAIBreakpoints(ctx, ev)
        self.move: MoveFix = MoveFix(ctx, ev)
        # The calls and dicts of each statement, in walk order: a statement is checked in
        # two passes, and a loop's body twice in each.
        self._sites: dict[int, list[ast.Call | ast.Dict]] = {}
        # System messages of a one-off request (`[SystemMessage(...), HumanMessage(...)]`, no
        # history): what was fetched for it has no earlier turns after it to resend.
        self._one_off: set[int] = set()
        # Messages placed after the history (`[system, *history, note, user]`): read after
        # every cached message, not part of the prefix.
        self._after: set[int] = set()

    def statement(self, stmt: ast.stmt, env: dict[str, Taints]) -> None:
        if isinstance(stmt, _COMPOUND):
            # Compound statements: their bodies are checked statement by statement.
            heads: list[ast.AST] = []
            if isinstance(stmt, (ast.For, ast.AsyncFor)):
                heads = [stmt.iter]
            elif isinstance(stmt, (ast.While, ast.If)):
                heads = [stmt.test]
            elif isinstance(stmt, (ast.With, ast.AsyncWith)):
                heads = [i.context_expr for i in stmt.items]
            for h in heads:
                self._expressions(h, env)
            return
        self._expressions(stmt, env)
        scope = self.ctx.scope
        if isinstance(stmt, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
            # `agent.system_prompt += f"... {now}"` appends to the prompt as `=` writes it.
            targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
            value = stmt.value
            for t in targets:
                name = (
                    t.id
                    if isinstance(t, ast.Name)
                    else (t.attr if isinstance(t, ast.Attribute) else None)
                )
                if (
                    name
                    and value is not None
                    and (_SYSTEM_NAME.match(name) or (name.isupper() and _persona(value)))
                ):
                    self.report(
                        self.ev.ev(value, env),
                        Sink(f"system prompt ({name})", stmt.lineno, scope.in_function),
                    )
                    self.layout.check(value, env)
                elif value is not None and _first_content(t):
                    # `self.messages[0]["content"] = text`: the history's first message, the
                    # system message, rewritten in place is the head of every later request.
                    self.report(
                        self.ev.ev(value, env),
                        Sink("system message (the history's first)", stmt.lineno, True),
                    )
                elif name and value is not None and _PROMPT_WORDS & set(words(name)):
                    # Template text bound to a prompt's name renders the clock or the devices'
                    # states into that prompt wherever it is rendered (another module, a
                    # framework): the text is where the prompt changes. One finding a kind.
                    made = [t for t in self.ev.ev(value, env) if t.desc.startswith(RENDERED)]
                    first = {t.kind: t for t in sorted(made, key=_order, reverse=True)}
                    self.report(
                        frozenset(first.values()),
                        Sink(f"prompt template ({name})", stmt.lineno, scope.in_function),
                    )
        if isinstance(stmt, ast.Return) and stmt.value is not None and scope.summary is not None:
            self._prompt_filled(stmt.value, env, scope.summary.params, scope.name or "")
        if (
            isinstance(stmt, ast.Return)
            and stmt.value is not None
            and scope.summary is not None
            and scope.name
            and (_SYSTEM_FUNC.search(scope.name) or scope.name in self.ctx.prompt_funcs)
            and scope.name not in self.ctx.first_request_funcs
            and not is_record(stmt.value, scope.fn)
        ):
            self.report(
                self.ev.ev(stmt.value, env),
                Sink(f"system prompt (returned by {scope.name}())", stmt.lineno, True),
            )
            self.layout.check(stmt.value, env)
        elif (
            isinstance(stmt, ast.Return)
            and stmt.value is not None
            and scope.summary is not None
            and scope.name
            and "prompt" in words(scope.name)
            and _persona(stmt.value)
            and _carries_history(stmt.value)
        ):
            # `def build_extraction_prompt(state): return f"You are ... Today is {today}.
            # CONVERSATION SO FAR: {conversation_text}"`: one text rebuilt every turn with the
            # conversation in it, its start the model's persona; a clock there moves the start
            # of the whole conversation's text.
            volatile = frozenset(t for t in self.ev.ev(stmt.value, env) if t.kind in VOLATILE)
            self.report(
                volatile,
                Sink(
                    f"prompt ahead of the conversation (returned by {scope.name}())",
                    stmt.lineno,
                    True,
                ),
            )
        elif (
            isinstance(stmt, ast.Return)
            and stmt.value is not None
            and scope.summary is not None
            and scope.name
            and _TOOL_TEXT_FUNC.search(scope.name)
            and _in_tool_folder(self.ctx.path)
        ):
            # `tools/WebSearchTool/prompt.py: def get_web_search_prompt()`: a tool's own
            # description, sent in the tool list of every request of the session.
            self.report(
                self.ev.ev(stmt.value, env),
                Sink(f"tool description (returned by {scope.name}())", stmt.lineno, True),
            )

    def _prompt_filled(
        self, value: ast.expr, env: dict[str, Taints], params: list[str], name: str
    ) -> None:
        """A function handed a prompt that returns it with a clock reading or other volatile
        value filled in or appended (`def apply_placeholders(prompt_str): ... return
        prompt_str.replace("{{CURRENT_DATETIME}}", now)`): whichever prompt its callers pass,
        the value is in it."""
        if "prompt" in words(name) and _text_of(value) is not None:
            ts = self.ev.ev(value, env)
            volatile = frozenset(t for t in ts if t.kind in VOLATILE)
            if volatile and any(t.kind == "file" for t in ts):
                # `def get_prompt(name): text = open(PROMPTS_DIR / f"{name}.md").read();
                # return text.replace("CURRENT_TIME", now)`: a loader that stamps the clock into
                # every prompt file it loads, whichever prompt its callers ask for.
                self.report(volatile, Sink(f"prompt returned by {name}()", value.lineno, True))
                return
        prompts = {p for p in params if set(words(p)) & _PROMPT_PARAM}
        if "prompt" in words(name):
            # `def prompt_template(template, user)`: a function named for the prompt it fills
            # is handed that prompt as its template.
            prompts |= {p for p in params if words(p) == ["template"]}
        if not prompts or _text_of(value) not in prompts:
            return
        ts = self.ev.ev(value, env)
        if not any(t.kind == "param" and t.desc in prompts for t in ts):
            return
        volatile = frozenset(t for t in ts if t.kind in VOLATILE)
        self.report(volatile, Sink(f"prompt returned by {name}()", value.lineno, True))

    def _expressions(self, root: ast.AST, env: dict[str, Taints]) -> None:
        sites = self._sites.get(id(root))
        if sites is None:
            nodes = list(walk_no_defs(root))
            sites = self._sites[id(root)] = [
                n for n in nodes if isinstance(n, (ast.Call, ast.Dict))
            ]
            # Once per statement: the system messages of its one-off requests.
            joined = {id(x) for n in nodes if isinstance(n, ast.BinOp) for x in (n.left, n.right)}
            for n in nodes:
                if (
                    isinstance(n, ast.List)
                    and id(n) not in joined
                    and _one_off_request(n)
                    and not self._grown(root, n)
                ):
                    self._one_off.add(id(n.elts[0]))
            if self.trailing is not None:
                self._after |= self.trailing.after_history(root, self.ctx.scope.fn)
                if (
                    isinstance(root, ast.Return)
                    and isinstance(root.value, (ast.Dict, ast.Call))
                    and self.ctx.scope.name in self.trailing.placed_after()
                ):
                    # `def date_note(): return {"role": "system", ...}`, called only after
                    # the history: the message it makes lands there.
                    self._after.add(id(root.value))
        appended = _state_update(root)
        for node in sites:
            if id(node) in appended:
                continue
            if isinstance(node, ast.Call):
                self.check_call(node, env)
            else:
                self.check_dict(node, env)

    def check_dict(self, node: ast.Dict, env: dict[str, Taints]) -> None:
        keys = dict_keys(node)
        role = const_str(dict_get(node, "role"))
        in_function = self.ctx.scope.in_function
        if role in ("system", "developer"):
            content = dict_get(node, "content")
            ts = self.ev.ev(content, env)
            if id(node) in self._one_off:
                ts = drop(ts, _ONE_OFF)
            if id(node) in self._after:
                ts = frozenset()  # read after every cached message
            self.report(ts, Sink(f"{role} message", node.lineno, in_function))
            if content is not None:
                self.layout.check(content, env, id(node) in self._one_off)
        elif "name" in keys and keys & {"input_schema", "parameters", "inputSchema"}:
            self.report(self.ev.ev(node, env), Sink("tool definition", node.lineno, in_function))
        elif "model" in keys and keys & {"system", "messages", "instructions", "input"}:
            # A request body built as a dict and splatted into the SDK call.
            kw = {k: v for k in keys if (v := dict_get(node, k)) is not None}
            price = self.ctx.price(kw.get("model"))
            anthropic = price is not None and price.provider == "anthropic"
            self.check_request(node, kw, env, anthropic)

    def check_call(self, node: ast.Call, env: dict[str, Taints]) -> None:
        q = self.ctx.qualname(node.func) or ""
        if _NOT_A_REQUEST.search(q.rsplit(".", 1)[-1]):
            return
        kw = {k.arg: k.value for k in node.keywords if k.arg is not None}
        if q.endswith("FrozenPrefix") and node.args and "system" not in kw:
            kw["system"] = node.args[0]
        role_arg = node.args[0] if node.args else kw.get("role")
        if const_str(role_arg) in ("system", "developer"):
            # A message object built with its role: `Message("system", text)`,
            # `ChatMessage(role="system", content=text)`.
            content = node.args[1] if len(node.args) > 1 else kw.get("content")
            if content is not None and id(node) not in self._after:
                role = const_str(role_arg)
                self.report(
                    self.ev.ev(content, env),
                    Sink(f"{role} message", node.lineno, self.ctx.scope.in_function),
                )
        in_function = self.ctx.scope.in_function
        if _SYSTEM_MESSAGE_CALL.search(q):
            text = node.args[0] if node.args else (kw.get("content") or kw.get("template"))
            if text is not None:
                short = q.rsplit(".", 1)[-1] if "from_template" not in q else "system template"
                ts = self.ev.ev(text, env)
                if id(node) in self._one_off:
                    ts = drop(ts, _ONE_OFF)
                if id(node) in self._after:
                    ts = frozenset()
                self.report(ts, Sink(f"system message ({short})", node.lineno, in_function))
        setter = node.func.attr if isinstance(node.func, ast.Attribute) else q
        if _SYSTEM_SETTER.search(setter) and node.args and not _appended_to_history(node):
            self.report(
                self.ev.ev(node.args[0], env),
                Sink(f"system prompt ({setter}())", node.lineno, in_function),
            )
        if q.endswith("from_messages") and node.args and isinstance(node.args[0], ast.List):
            # LangChain `ChatPromptTemplate.from_messages([("system", text), ...])`.
            for e in node.args[0].elts:
                if (
                    isinstance(e, (ast.Tuple, ast.List))
                    and len(e.elts) == 2
                    and const_str(e.elts[0]) in ("system", "developer")
                ):
                    self.report(
                        self.ev.ev(e.elts[1], env),
                        Sink("system message (prompt template)", e.lineno, in_function),
                    )
        for name, where in _AGENT_KWARGS.items():
            if name in kw:
                self.report(self.ev.ev(kw[name], env), Sink(where, node.lineno, in_function))
        cls = _class_called(node.func, q)
        if cls.endswith("Agent") and cls[:1].isupper():
            # An agent class's own prompt keywords (lagent's `template=`, `system_template=`,
            # `persona=`): the text every request of the agent starts with.
            for name, value in kw.items():
                ws = set(words(name))
                if (
                    ws & _AGENT_PROMPT_WORDS
                    and not ws & _NOT_AGENT_PROMPT
                    and name not in _PREFIX_KWARGS
                    and name not in _AGENT_KWARGS
                ):
                    self.report(
                        self.ev.ev(value, env),
                        Sink(f"agent prompt ({name}=)", node.lineno, in_function, built=True),
                    )
        if cls == "Agent":
            for name, where in _CREW_AGENT_KWARGS.items():
                if name in kw:
                    self.report(self.ev.ev(kw[name], env), Sink(where, node.lineno, in_function))
        slots = const_str(kw.get("instruction"))
        if slots is not None:
            self._state_slots(slots, node, env)
        if "description" in kw and _TOOL_CALL.search(q):
            self.report(
                self.ev.ev(kw["description"], env),
                Sink("tool description", node.lineno, self.ctx.scope.in_function),
            )
        self.check_request(node, kw, env, q.endswith(("messages.create", "messages.stream")))

    def _state_slots(self, text: str, node: ast.Call, env: dict[str, Taints]) -> None:
        """`{key}` slots of an ADK instruction: the state value set for the key in this module,
        else the key's name read by its meaning (`{current_time}`, `{_time}`)."""
        for m in _STATE_SLOT.finditer(text):
            key = m.group(1)
            value = self.ctx.state_values.get(key)
            where = Sink(f"agent instruction (state slot {{{key}}})", node.lineno, True)
            at: ast.AST = node
            if value is not None:
                got = self.ev.ev(value, env)
                if got:
                    self.report(got, where)
                    continue
                # Set in a callback (`state["_time"] = formatted_time`): its local names are
                # not bound here, so the value is read by its name, where it is set.
                at = value
                kind = kind_of_name(value.id) if isinstance(value, ast.Name) else None
                kind = kind or kind_of_name(key)
            else:
                kind = kind_of_name(key)
            if kind is not None:
                line, col = getattr(at, "lineno", node.lineno), getattr(at, "col_offset", 0)
                desc = f"the state value {{{key}}} ({kind}, by its name)"
                t = Taint(kind, line, col, line, col, desc)
                self.report(frozenset({t}), where)

    def check_request(
        self, node: ast.expr, kw: dict[str, ast.expr], env: dict[str, Taints], anthropic: bool
    ) -> None:
        """The prefix parts of one request, given as call keywords or body-dict entries."""
        move = self.move.build(kw, env)
        one_off = self._one_off_body(kw)
        for name, where in _PREFIX_KWARGS.items():
            if name in kw:
                ts = self.ev.ev(kw[name], env)
                if one_off and name in ("system", "instructions", "system_prompt"):
                    ts = drop(ts, _ONE_OFF_VOLATILE)
                self.report(
                    ts,
                    Sink(
                        where,
                        node.lineno,
                        self.ctx.scope.in_function,
                        move if name in ("system", "instructions") else None,
                    ),
                )
                if name in ("system", "instructions", "system_prompt"):
                    self.layout.check(kw[name], env, one_off)
                elif name == "tools" and not one_off:
                    self.layout.check_tools(kw[name])
        for name in ("messages", "input"):
            if name in kw:
                self.check_messages(kw[name], env)
        if "system" in kw or "tools" in kw or "messages" in kw:
            self.anthropic.check(node, anthropic, kw, env, one_off)
        if not anthropic:
            self.openai.check(node, kw, env)

    def _grown(self, stmt: ast.AST, lst: ast.List) -> bool:
        """Whether the list is bound to a name (`messages = [...]`) that the function (or
        the module) then grows (`messages.append(...)`, `messages += ...`, `messages =
        messages + ...`): the list is then a conversation's history, not a one-off request."""
        if not (isinstance(stmt, ast.Assign) and stmt.value is lst):
            return False
        names = {t.id for t in stmt.targets if isinstance(t, ast.Name)}
        fn = self.ctx.scope.fn
        if fn is None:
            return bool(names)  # a module's list: where it grows is not walked here
        return bool(names) and any(_grows(n, names) for n in walk_cached(fn))

    def _one_off_body(self, kw: dict[str, ast.expr]) -> bool:
        """A request whose messages are a literal list of user messages only
        (`messages=[{"role": "user", "content": q}]`, or a local bound to one and never
        grown), or whose `input=` is one text: no history follows its system prompt."""
        msgs = kw.get("messages")
        if msgs is None and "input" in kw:
            inp = kw["input"]
            if isinstance(inp, (ast.Constant, ast.JoinedStr)) and not isinstance(
                getattr(inp, "value", ""), bytes
            ):
                return True
            msgs = inp
        lst: ast.List | None = msgs if isinstance(msgs, ast.List) else None
        if lst is None and isinstance(msgs, ast.Name):
            lst = self.ctx.scope.list_literals.get(msgs.id)
            fn = self.ctx.scope.fn
            if lst is not None and (
                fn is None or any(_grows(n, {msgs.id}) for n in walk_cached(fn))
            ):
                return False
        return lst is not None and bool(lst.elts) and all(_role_of(e) == "user" for e in lst.elts)

    def check_messages(self, value: ast.expr, env: dict[str, Taints]) -> None:
        lst: ast.List | None = value if isinstance(value, ast.List) else None
        if lst is None and isinstance(value, ast.Name):
            lst = self.ctx.scope.list_literals.get(value.id)
        if lst is None:
            return
        elts = lst.elts
        for i, e in enumerate(elts):
            if i == len(elts) - 1:
                continue  # the newest turn: volatile facts belong here
            if not isinstance(e, ast.Dict):
                continue
            role = const_str(dict_get(e, "role"))
            if role in ("system", "developer"):
                continue  # checked as a dict sink
            content = dict_get(e, "content")
            if content is None or _is_tool_result(content):
                continue
            self.report(
                self.ev.ev(content, env),
                Sink(
                    f"earlier {role or 'message'} message {i}", e.lineno, self.ctx.scope.in_function
                ),
            )

    def argument(self, ts: Taints, where: str, line: int) -> None:
        """A call passes `ts` to a parameter that reaches the sink `where`."""
        self.report(ts, Sink(where, line, self.ctx.scope.in_function))

    def report(self, ts: Taints, sink: Sink) -> None:
        if not ts:
            return
        ts = unfielded(ts)  # one finding per value, whichever record field it came in by
        ctx = self.ctx
        summary = ctx.scope.summary
        for t in ts:
            if t.kind == "param" and summary is not None:
                summary.param_sinks.setdefault(t.desc, sink.where)
        if not ctx.reporting:
            return
        for t in sorted(ts, key=_order):
            code = CODE_OF.get(t.kind)
            if code is None:
                continue
            if t.kind in ("retrieved", "summary") and sink.where.startswith(
                ("earlier", "user", "prompt returned", "tool")
            ):
                # Fetched for the request and sent in its own turn: where it belongs; a
                # summary as a message after the system prompt is where it belongs too.
                continue
            if t.kind == "retrieved" and t.line in ctx.first_turn_lines:
                continue  # fetched on the first turn only: written once, kept after that
            if t.once and t.kind in VOLATILE and not sink.in_function and sink.built:
                # Read at import into an agent built at import: one process, one prompt.
                continue
            if t.kind in _CLOCK and ctx.scope.name == "__init__" and sink.in_function:
                # Read when an assistant object is made and kept in its prompt: the chat it
                # holds is dated when it is created, and every request of it says the same.
                continue
            served = t.once and t.kind in _CLOCK and not sink.in_function
            if served and not ctx.serving():
                # The clock read at import into a prompt constant of a CLI, a desktop app, a
                # notebook or a page: one process is one conversation, so one prompt.
                continue
            if t.once and t.kind in _CLOCK and ctx.one_user() and not ctx.serving():
                # Read at import and sent by a request inside a function, in a program one user
                # runs per conversation (a window, a terminal prompt): the same value on every
                # request of it.
                continue
            msg = f"{t.desc} flows into the {sink.where} (line {sink.line})"
            severity = ""
            if served:
                # In a long-running server the conversation outlives the process: its requests
                # land on any worker, and a restart or deploy reads the clock again.
                severity = NOTE
                msg += (
                    "; fixed when the server's process starts: each worker and each restart "
                    "sends another prefix, and the date goes stale past midnight"
                )
            elif t.once and t.kind == "date":
                # A date read at import is the same in every request one process sends; only a
                # process started on another day (a restart, a new worker) writes another
                # prefix. Worth a note wherever it lands, never a warning.
                severity = NOTE
                msg += "; read once at import, so only a process started on another day differs"
            elif t.once and sink.in_function and t.kind in VOLATILE:
                severity = NOTE
                msg += "; computed once at import, so it changes with every new process"
            elif t.kind == "summary":
                msg += (
                    ": each new summary changes the prompt's start, and the request after it "
                    "misses the cache for the whole history; put the summary after the system "
                    "prompt, as the first message it replaces, and refresh it rarely"
                )
            elif t.kind == "retrieved":
                msg += (
                    ", ahead of the conversation history: the prefix changes there on every "
                    "request and the whole history is sent again uncached; put it in the newest "
                    "user message"
                )
            elif sink.where.startswith("tool") and RULES[code].severity == WARNING:
                # Tool definitions come first in the prefix: a change there misses every level.
                severity = ERROR
                msg += "; tool definitions come first, so every cache level misses"
            fix = taint_fix(t)
            if fix is None and t.kind in VOLATILE:
                fix = sink.move
            ctx.findings.add(
                Finding(
                    ctx.path,
                    t.line,
                    t.col + 1,
                    code,
                    msg,
                    severity=severity,
                    end_line=t.end_line,
                    end_col=t.end_col + 1,
                    source_line=ctx.line(t.line),
                    fix=fix,
                    extra={
                        **flow(ctx.path, t.line, t.desc, ctx.path, sink.line, sink.where),
                        "kind": t.kind,
                    },
                )
            )


def _first_content(t: ast.expr) -> bool:
    """`history[0]["content"]`: the text of a kept history's first message."""
    return (
        isinstance(t, ast.Subscript)
        and const_str(t.slice) == "content"
        and isinstance(t.value, ast.Subscript)
        and isinstance(t.value.slice, ast.Constant)
        and t.value.slice.value == 0
        and is_history(t.value.value)
    )


def _text_of(value: ast.expr) -> str | None:
    """The name whose text a returned value is: `prompt`, `prompt.replace(a, b)`,
    `prompt + extra`, `prompt.format(...)`, `f"{prompt}..."` (its first part)."""
    while True:
        if isinstance(value, ast.BinOp) and isinstance(value.op, ast.Add):
            value = value.left
        elif (
            isinstance(value, ast.Call)
            and isinstance(value.func, ast.Attribute)
            and value.func.attr in ("replace", "format", "strip", "rstrip")
        ):
            value = value.func.value
        elif isinstance(value, ast.JoinedStr) and value.values:
            first = value.values[0]
            value = first.value if isinstance(first, ast.FormattedValue) else first
        else:
            break
    return value.id if isinstance(value, ast.Name) else None


def _class_called(func: ast.expr, q: str) -> str:
    """The class a call constructs, also when it is chosen in the call
    (`(AsyncAgent if use_async else Agent)(...)`: the first branch's)."""
    if isinstance(func, ast.IfExp):
        return (dotted(func.body) or "").rsplit(".", 1)[-1]
    return q.rsplit(".", 1)[-1]


# Words of a value holding the conversation's messages or their text.
_CONVERSATION = frozenset({"history", "messages", "conversation", "chat", "transcript", "turns"})


def _carries_history(value: ast.expr) -> bool:
    """An f-string that writes a history-named value into its text (`{conversation_text}`)."""
    return isinstance(value, ast.JoinedStr) and any(
        isinstance(n, ast.Name) and set(words(n.id)) & _CONVERSATION
        for part in value.values
        if isinstance(part, ast.FormattedValue)
        for n in walk_cached(part.value)
    )


def _leading_text(node: ast.expr) -> str | None:
    """The literal text a string expression starts with (`"..." + x`, `f"...{x}"`,
    `(...).strip()`)."""
    while True:
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
            node = node.left
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr in ("strip", "lstrip", "rstrip", "format")
        ):
            node = node.func.value
        else:
            break
    if isinstance(node, ast.JoinedStr) and node.values:
        node = node.values[0]
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else None


def _persona(value: ast.expr) -> bool:
    """Text that opens the way a system prompt does, bound to a constant of any name:
    `PREFIX = "You are XLang Agent, ..." + today` (a local `prompt = f"You are given ..."` is
    as often the user's turn)."""
    text = _leading_text(value)
    return text is not None and text.lstrip().startswith(("You are ", "You're "))


# What a request with no history may carry in its system prompt without breaking a cache: a
# date in the `system=` of a request whose messages are the user's turn only (the same all
# day, and no conversation's prefix follows it to be invalidated; a clock reading changes on
# every repeat of the same request, so it stays reported); what was fetched for it, in a
# system message followed only by user messages. A date in such a system message stays
# reported: the older corpora's labels count the date of a research step's one-off system
# message (a query writer sent once per report section), so the rule is kept to `system=`.
_ONE_OFF_VOLATILE = frozenset({"date"})
_CLOCK = frozenset({"date", "time"})
_ONE_OFF = frozenset({"retrieved"})
_GROW = frozenset({"append", "extend", "insert", "add_message", "add_messages"})


def _grows(node: ast.AST, names: set[str]) -> bool:
    """`name.append(...)`, `name += ...` or `name = name + ...` for one of `names`."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
        v = node.func.value
        return node.func.attr in _GROW and isinstance(v, ast.Name) and v.id in names
    if isinstance(node, ast.AugAssign):
        return isinstance(node.target, ast.Name) and node.target.id in names
    if isinstance(node, ast.Assign) and isinstance(node.value, ast.BinOp):
        used = {n.id for n in walk_cached(node.value) if isinstance(n, ast.Name)}
        bound = {t.id for t in node.targets if isinstance(t, ast.Name)}
        return bool(bound & names & used)
    return False


def _one_off_request(node: ast.List) -> bool:
    """`[SystemMessage(content=s), HumanMessage(content=q)]` or the same as dicts (or a lone
    system message): a system message followed only by user messages, no history spliced in
    (a list joined to another with `+` is not one)."""
    if not node.elts:
        return False
    first, rest = node.elts[0], node.elts[1:]
    return _role_of(first) == "system" and all(_role_of(e) == "user" for e in rest)


def _role_of(node: ast.expr) -> str | None:
    if isinstance(node, ast.Dict):
        return const_str(dict_get(node, "role"))
    if isinstance(node, ast.Call):
        name = dotted(node.func) or ""
        last = name.rsplit(".", 1)[-1]
        if last in ("SystemMessage", "SystemChatMessage"):
            return "system"
        if last in ("HumanMessage", "UserMessage", "ChatUserMessage"):
            return "user"
    return None


def _is_tool_result(content: ast.expr) -> bool:
    if isinstance(content, ast.List):
        return all(
            isinstance(b, ast.Dict)
            and const_str(dict_get(b, "type")) in ("tool_result", "function_call_output")
            for b in content.elts
        )
    return False
