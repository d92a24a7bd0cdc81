"""PL302 in Python: the tool list of a live agent replaced in the middle of a conversation
(`await self.update_tools(current_tools)` from inside a tool, LiveKit's `Agent.update_tools`)
or picked for each request by a model (LangChain's `LLMToolSelectorMiddleware`),
or the system message at the head of a kept history replaced by a computed one
(`self.messages[0] = {"role": "system", "content": prompt}`), or the conversation sent by a call
named for leaving the tools out (`call_api_without_tools(messages=history)`), or sent once more
after a tool loop with the same messages and no tool list (`for ...: turn(messages=m,
tools=defs)` then `final(messages=m)`: the last request of the turn).
Tool definitions are the first part of the prefix, so every request after the swap misses the
cache from its first byte. A method that forwards the same call to another object (an adapter's
own `update_tools`) is not a swap of its own, and a constructor or a setup method sets the tools
before the conversation starts. Pure: a syntax tree in, findings out.
"""

# pure: imports no I/O (tests/test_layout.py checks it)

from __future__ import annotations

import ast
from collections.abc import Iterator
from itertools import pairwise

from ..meaning import words
from .context import Context
from .side import _sends as is_send
from .syntax import const_str, dict_get, last_name, walk_cached
from .windows import _is_history as is_history
from .windows import _keyed_history as keyed_history

# The frameworks' names for it (LiveKit `update_tools`, `set_tools`); prefixlock's own
# `Session.change_tools(tools, quote=...)` is a priced, deliberate change and not matched.
_SWAP = frozenset({"update", "set", "replace", "swap"})
_TOOLS = frozenset({"tools", "functions"})
# Methods that run before the first request: the tools they set are the session's own.
_SETUP = frozenset({"init", "setup", "start", "create", "build", "configure", "new", "enter"})


def _swaps_tools(name: str) -> bool:
    ws = words(name)
    return len(ws) >= 2 and ws[0] in _SWAP and ws[-1] in _TOOLS


def _after_setup(tree: ast.Module) -> Iterator[ast.FunctionDef | ast.AsyncFunctionDef]:
    """The functions not named for setting up (a constructor or setup method runs before the
    conversation starts, so what it sets is the session's own)."""
    for fn in walk_cached(tree):
        if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)) and not (
            set(words(fn.name)) & _SETUP
        ):
            yield fn


def _report(ctx: Context, n: ast.stmt | ast.expr, message: str) -> None:
    ctx.flag(n, "PL302", message)


def check_tool_swaps(tree: ast.Module, ctx: Context) -> None:
    for fn in _after_setup(tree):
        if _swaps_tools(fn.name):
            continue
        for n in walk_cached(fn):
            if not (
                isinstance(n, ast.Call)
                and isinstance(n.func, ast.Attribute)
                and _swaps_tools(n.func.attr)
                and n.args
            ):
                continue
            _report(
                ctx,
                n,
                f"the agent's tool list is replaced mid-conversation (`{ast.unparse(n)}`): "
                "tool definitions are the first part of the prefix, so every request after "
                "the change misses the cache; keep one tool list and let the tools' "
                "arguments or the newest message carry what changed",
            )


# `call_api_without_tools`, `chat_no_tools`: a variant of the request named for dropping the list.
_WITHOUT = frozenset({"without", "no"})


def _named_without_tools(func: ast.expr) -> bool:
    ws = words(last_name(func))
    return any(a in _WITHOUT and b in _TOOLS | {"tool"} for a, b in pairwise(ws))


def check_tools_dropped(tree: ast.Module, ctx: Context) -> None:
    """`self.api.call_without_tools(messages=self.histories[channel_id])`: the conversation
    sent by a request named for leaving the tools out. Its name says a variant with tools
    exists; the conversation's other requests carry the list, so this one's prefix differs
    from its first byte, and the next tool-bearing request misses the cache as well."""
    for n in walk_cached(tree):
        if not (isinstance(n, ast.Call) and _named_without_tools(n.func)):
            continue
        sent = [k.value for k in n.keywords if k.arg == "messages"] + n.args[:1]
        if not any(is_history(v) or keyed_history(v) for v in sent):
            continue
        _report(
            ctx,
            n,
            f"the conversation is sent without the tool list (`{ast.unparse(n.func)[-50:]}`): "
            "tool definitions are the first part of the prefix, so this request and the "
            "tool-bearing ones around it miss each other's cache; send the same tools with "
            "every request of the conversation and set `tool_choice` to none instead",
        )


# Framework middleware that asks a model to pick the tools sent with each request (LangChain's
# `LLMToolSelectorMiddleware`): the tool list, the first part of the prefix, follows the
# newest message.
_SELECTORS = frozenset({"LLMToolSelectorMiddleware"})


def check_tool_selectors(tree: ast.Module, ctx: Context) -> None:
    for n in walk_cached(tree):
        named = (
            [n.func]
            if isinstance(n, ast.Call)
            else list(n.bases)
            if isinstance(n, ast.ClassDef)
            else []
        )
        if any(
            (x.id if isinstance(x, ast.Name) else x.attr if isinstance(x, ast.Attribute) else "")
            in _SELECTORS
            for x in named
        ):
            assert isinstance(n, (ast.Call, ast.ClassDef))
            _report(
                ctx,
                n,
                "a model picks the tools sent with each request (a tool selector): tool "
                "definitions are the first part of the prefix, so whenever the pick changes "
                "every cache level misses; send one tool list and let the model choose among it",
            )


def check_system_replaced(tree: ast.Module, ctx: Context) -> None:
    """`history[0] = {"role": "system", "content": prompt}` (or a `SystemMessage(...)`, or
    `history[0]["content"] = prompt`) with text computed at run time, in a method named for a
    change (`update_session`) or one that sends the messages (a turn): the first message of a
    kept conversation changes, and every request after it misses the cache from there. Not in a
    constructor or setup method."""
    for fn in _after_setup(tree):
        # A setter (`add_system_prompt`) may run only before the first request; a method named
        # for a change (`update_session`) or one that also sends the messages runs mid-session.
        if not (set(words(fn.name)) & _CHANGE or _sends(fn)):
            continue
        # A request retried after an error with other text (a fallback for an old SDK) is the
        # same request again, not a change mid-conversation.
        retries = [
            (h.lineno, h.end_lineno or h.lineno)
            for h in walk_cached(fn)
            if isinstance(h, ast.ExceptHandler)
        ]
        for n in walk_cached(fn):
            if not (
                isinstance(n, ast.Assign)
                and len(n.targets) == 1
                and isinstance(t := n.targets[0], ast.Subscript)
                and (
                    (_first_of_history(t) and _computed_system(n.value))
                    or (
                        _content_of_first(t)
                        and not _fixed(n.value)
                        and not any(a <= n.lineno <= b for a, b in retries)
                    )
                )
            ):
                continue
            _report(
                ctx,
                n,
                "the system message at the head of the history is replaced "
                f"(`{ast.unparse(n)[:50]}`): the prefix changes at its first message and "
                "every request after it misses the cache; keep the system message and send "
                "what changed in the newest message",
            )


_CHANGE = frozenset({"update", "change", "switch", "replace", "swap"})


def _first_of_history(t: ast.Subscript) -> bool:
    """`history[0]`."""
    return isinstance(t.slice, ast.Constant) and t.slice.value == 0 and is_history(t.value)


def _content_of_first(t: ast.Subscript) -> bool:
    """`history[0]["content"]`: the text of the first message, the system message, in place."""
    return (
        isinstance(t.slice, ast.Constant)
        and t.slice.value == "content"
        and isinstance(t.value, ast.Subscript)
        and _first_of_history(t.value)
    )


def _sends(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    """The function makes a model call with the messages (`messages=` handed to a call)."""
    return any(
        isinstance(n, ast.Call) and any(k.arg == "messages" for k in n.keywords)
        for n in walk_cached(fn)
    )


def _computed_system(value: ast.expr) -> bool:
    """A system message whose content is not fixed text."""
    content: ast.expr | None = None
    if isinstance(value, ast.Dict):
        if const_str(dict_get(value, "role")) != "system":
            return False
        content = dict_get(value, "content")
    elif (
        isinstance(value, ast.Call)
        and isinstance(value.func, ast.Name)
        and value.func.id == "SystemMessage"
    ):
        content = next((k.value for k in value.keywords if k.arg == "content"), None)
        if content is None and value.args:
            content = value.args[0]
    return content is not None and not _fixed(content)


def _fixed(value: ast.expr) -> bool:
    """Fixed text: a literal, or a constant's name (`SYSTEM_PROMPT`, `Config.SYSTEM_MESSAGE`):
    written again, the first message is the same bytes, and the prefix stays."""
    if isinstance(value, ast.Constant):
        return True
    name = last_name(value)
    return len(name) > 1 and name.isupper()


def check_final_without_tools(tree: ast.Module, ctx: Context) -> None:
    """A request inside a loop sends `messages=m` with a tool list, and a request of the same
    function outside that loop (after it, or in its `else`) sends the same `m` with none: the
    answer asked once the tool rounds end has a prefix without the tools, so it reads nothing
    the loop's requests cached, and what it writes no later tool-bearing request reads."""
    for fn in walk_cached(tree):
        if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
            _final_without_tools(fn, ctx)


def _final_without_tools(fn: ast.FunctionDef | ast.AsyncFunctionDef, ctx: Context) -> None:
    """One finding a function at most."""
    loops = [n for n in walk_cached(fn) if isinstance(n, (ast.For, ast.AsyncFor, ast.While))]
    for loop in loops:
        inside = {id(n) for stmt in loop.body for n in walk_cached(stmt)}
        with_tools = {
            name
            for n in walk_cached(loop)
            if isinstance(n, ast.Call) and id(n) in inside and _sends_tools(n) and is_send(n)
            for name in [_sent_name(n)]
            if name
        }
        if not with_tools:
            continue
        end = loop.end_lineno or loop.lineno
        for n in walk_cached(fn):
            if not isinstance(n, ast.Call) or id(n) in inside:
                continue
            after = n.lineno > end or any(n is m for stmt in loop.orelse for m in walk_cached(stmt))
            name = _sent_name(n)
            if after and name in with_tools and not _has_tools(n) and is_send(n):
                _report(
                    ctx,
                    n,
                    f"`{name}` is sent with the tool list inside the loop and without it "
                    "after the loop: tool definitions are the first part of the prefix, "
                    "so this last request reads nothing the loop's requests cached; send "
                    "the same tools and set `tool_choice` to none instead",
                )
                return


def _sent_name(call: ast.Call) -> str | None:
    """The name of the messages a call sends by keyword (`messages=m`)."""
    for k in call.keywords:
        if k.arg == "messages" and isinstance(k.value, ast.Name):
            return k.value.id
    return None


def _has_tools(call: ast.Call) -> bool:
    return any(k.arg in _TOOLS or k.arg is None for k in call.keywords)


def _sends_tools(call: ast.Call) -> bool:
    return any(
        k.arg in _TOOLS and not (isinstance(k.value, ast.Constant) and k.value.value is None)
        for k in call.keywords
    )
