"""The cache breakpoint checks of requests written out in the code.

Anthropic (`cache_control` on tools, system blocks and messages, or at the top level): PL401
(more than 4 breakpoints), PL402 (a breakpoint on content that changes every request), PL403
(a 1h breakpoint after a 5m one), PL405 (a cached prefix under the model's minimum) and PL406
(breakpoints that leave the end of the system prompt uncached, or none at all).

OpenAI gpt-5.6 (`prompt_cache_breakpoint` on content parts, `prompt_cache_options`): PL401 (more
explicit breakpoints than the mode writes), PL402, PL406 (explicit mode without a breakpoint),
PL407 (a breakpoint on an assistant message) and PL408 (retention and TTL both set).
"""

# pure: imports no I/O (tests/test_layout.py checks it)

from __future__ import annotations

import ast

from prefixlock.cache.anthropic import MAX_BREAKPOINTS, late_longer_ttl
from prefixlock.tokenizer import count_tokens

from ..rules import LOWEST_MINIMUM, WARNING
from .context import Context
from .syntax import const_str, dict_get, static_text, walk_cached
from .taint import VOLATILE, Evaluator, Taints, kinds

Mark = tuple[str, ast.Dict, str]  # section, the marked block, ttl
# Message contents taken for text (not a part list that could carry marks of its own).
_TEXT = (ast.Constant, ast.JoinedStr, ast.Name, ast.BinOp)


class AnthropicBreakpoints:
    """Checks the `cache_control` marks of one literal Anthropic request."""

    def __init__(self, ctx: Context, ev: Evaluator) -> None:
        self.ctx = ctx
        self.ev = ev

    def _marks(self, node: ast.AST | None, section: str, out: list[Mark]) -> None:
        if node is None:
            return
        if isinstance(node, (ast.List, ast.Tuple)):
            for e in node.elts:
                self._marks(e, section, out)
        elif isinstance(node, ast.Dict):
            cc = dict_get(node, "cache_control")
            if cc is not None:
                ttl = "5m"
                if isinstance(cc, ast.Dict):
                    ttl = const_str(dict_get(cc, "ttl")) or "5m"
                out.append((section, node, ttl))
            for k, v in zip(node.keys, node.values, strict=True):
                if const_str(k) != "cache_control":
                    self._marks(v, section, out)
        elif isinstance(node, ast.Name) and node.id in self.ctx.scope.list_literals:
            self._marks(self.ctx.scope.list_literals[node.id], section, out)

    def check(
        self,
        node: ast.expr,
        anthropic: bool,
        kw: dict[str, ast.expr],
        env: dict[str, Taints],
        one_off: bool = False,
    ) -> None:
        """The breakpoints of one Anthropic request. `one_off`: a request with no history
        after its system prompt (a classifier): one with no breakpoint loses a discount, but
        nothing it sends is rewritten, so PL406 stays silent there."""
        ctx = self.ctx
        lists = ctx.scope.list_literals
        marks: list[Mark] = []
        for section in ("tools", "system", "messages"):
            self._marks(kw.get(section), section, marks)
        top = kw.get("cache_control")
        count = len(marks) + (1 if top is not None else 0)
        if count > MAX_BREAKPOINTS:
            ctx.flag(
                node,
                "PL401",
                f"{count} cache breakpoints in one request; the limit is {MAX_BREAKPOINTS}",
            )
        late = late_longer_ttl(ttl for _, _, ttl in marks)
        if late is not None:
            ctx.flag(
                marks[late][1],
                "PL403",
                "a 1h breakpoint after a 5m one; longer TTLs must come first",
            )
        last_msg = None
        msgs = kw.get("messages")
        if isinstance(msgs, ast.Name):
            msgs = lists.get(msgs.id)
        if isinstance(msgs, ast.List) and msgs.elts:
            last_msg = msgs.elts[-1]
        for section, d, _ in marks:
            if last_msg is not None and any(d is n for n in walk_cached(last_msg)):
                continue
            text = dict_get(d, "text") or dict_get(d, "content")
            if kinds(self.ev.ev(text, env)) & VOLATILE:
                ctx.flag(
                    d,
                    "PL402",
                    f"cache breakpoint on a {section} block whose content changes "
                    "every request: the write is paid and never read",
                )
        price = ctx.price(kw.get("model"))
        if price is not None and price.provider != "anthropic":
            anthropic = False
        system_text = static_text(kw.get("system"), ctx.consts)
        if price is not None and anthropic and system_text is not None and count > 0:
            tokens = count_tokens(system_text)
            if "tools" not in kw and tokens < price.min_cacheable_tokens:
                ctx.flag(
                    node,
                    "PL405",
                    f"the cached prefix is about {tokens} tokens, under "
                    f"{price.model}'s minimum of {price.min_cacheable_tokens}: "
                    "nothing is cached",
                )
        if anthropic and top is None and marks and self._stable_tail_unmarked(kw, marks):
            ctx.flag(
                node,
                "PL406",
                "every cache breakpoint sits before the end of the system prompt: "
                "the rest of it and the conversation are never cached",
            )
        if (
            anthropic
            and count == 0
            and "system" in kw
            and not one_off
            and self._no_hidden_marks(kw)
        ):
            # Only a prefix known to be long enough to cache: its system prompt alone reaches
            # the model's minimum (the smallest of any Claude model when none is named).
            minimum = price.min_cacheable_tokens if price is not None else LOWEST_MINIMUM
            if system_text is not None and count_tokens(system_text) >= minimum:
                ctx.flag(
                    node, "PL406", "Anthropic request without cache_control: nothing is cached"
                )

    def _stable_tail_unmarked(self, kw: dict[str, ast.expr], marks: list[Mark]) -> bool:
        """True when the visible breakpoints all sit on tools or on an earlier system block
        than the last, and the messages are a literal list that carries none."""
        lists = self.ctx.scope.list_literals
        system = kw.get("system")
        if isinstance(system, ast.Name):
            system = lists.get(system.id, system)
        if system is None or any(s == "messages" for s, _, _ in marks):
            return False
        msgs = kw.get("messages")
        if isinstance(msgs, ast.Name):
            msgs = lists.get(msgs.id)
        if not isinstance(msgs, ast.List) or not all(
            isinstance(e, ast.Dict)
            and None not in e.keys
            and isinstance(dict_get(e, "content"), _TEXT)
            for e in msgs.elts
        ):
            return False  # a breakpoint may hide in messages built elsewhere
        if not any(s == "system" for s, _, _ in marks):
            return True  # only the tools are marked
        if not isinstance(system, ast.List) or not system.elts:
            return False
        last = system.elts[-1]
        return (
            isinstance(last, ast.Dict)
            and None not in last.keys
            and not any(d is last for _, d, _ in marks)
        )

    def _no_hidden_marks(self, kw: dict[str, ast.expr]) -> bool:
        """True when every part that could carry cache_control is visible and carries none."""
        lists = self.ctx.scope.list_literals
        system = kw["system"]
        if not isinstance(system, _TEXT):
            return False
        if isinstance(system, ast.Name) and system.id in lists:
            return False
        for name in ("messages", "tools"):
            v = kw.get(name)
            if v is None:
                continue
            if isinstance(v, ast.Name):
                v = lists.get(v.id)
                if v is None:
                    return False
            if not isinstance(v, ast.List):
                return False
            if not all(isinstance(e, ast.Dict) and None not in e.keys for e in v.elts):
                return False
            for e in v.elts:
                content = dict_get(e, "content") if isinstance(e, ast.Dict) else None
                if content is not None and not isinstance(content, (*_TEXT, ast.List)):
                    return False
        return True


class OpenAIBreakpoints:
    """Checks the gpt-5.6 caching options of one literal Chat Completions or Responses
    request. Only a request that uses `prompt_cache_breakpoint` or `prompt_cache_options`
    (fields older models refuse) is checked: the code is then written for a
    breakpoint-caching model."""

    def __init__(self, ctx: Context, ev: Evaluator) -> None:
        self.ctx = ctx
        self.ev = ev

    def _marks(
        self, kw: dict[str, ast.expr]
    ) -> tuple[list[tuple[int, str | None, ast.Dict]], int, bool]:
        """(marks as (item index, role, marked part), item count, every item visible) of the
        literal `messages` / `input` of an OpenAI request. Not visible: an item or a content
        list built elsewhere, which may carry marks of its own. The visible marks are a lower
        bound either way."""
        lists = self.ctx.scope.list_literals
        items = kw.get("messages", kw.get("input"))
        if isinstance(items, ast.Name):
            items = lists.get(items.id, items)
        marks: list[tuple[int, str | None, ast.Dict]] = []
        if items is None or const_str(items) is not None or isinstance(items, ast.JoinedStr):
            return marks, 1 if items is not None else 0, True  # text input: no parts to mark
        if not isinstance(items, (ast.List, ast.Tuple)):
            return marks, 0, False
        visible = True
        for i, e in enumerate(items.elts):
            if not isinstance(e, ast.Dict) or None in e.keys:
                visible = False
                continue
            role = const_str(dict_get(e, "role"))
            kind = const_str(dict_get(e, "type"))
            content = dict_get(e, "output" if kind == "function_call_output" else "content")
            if isinstance(content, ast.Name):
                content = lists.get(content.id, content)
            if isinstance(content, (ast.List, ast.Tuple)):
                for part in content.elts:
                    if not isinstance(part, ast.Dict) or None in part.keys:
                        visible = False
                    elif dict_get(part, "prompt_cache_breakpoint") is not None:
                        marks.append((i, role, part))
            elif not isinstance(content, _TEXT):
                # A name is taken for text, as the Anthropic no-breakpoint check does: message
                # lists written out in the call hold the question, not a prepared part list.
                visible = False
        return marks, len(items.elts), visible

    def check(self, node: ast.expr, kw: dict[str, ast.expr], env: dict[str, Taints]) -> None:
        ctx = self.ctx
        opts = kw.get("prompt_cache_options")
        if (
            kw.get("prompt_cache_retention") is not None
            and isinstance(opts, ast.Dict)
            and dict_get(opts, "ttl") is not None
        ):
            ctx.flag(
                node,
                "PL408",
                "prompt_cache_retention and prompt_cache_options.ttl are both set: "
                "the retention is deprecated in favour of the TTL, and the two are "
                "separate limits (a maximum and a minimum lifetime)",
            )
        if "messages" not in kw and "input" not in kw:
            return
        marks, n_items, visible = self._marks(kw)
        if not marks and opts is None:
            return
        mode: str | None = "implicit"  # the documented default
        if opts is not None:
            given = dict_get(opts, "mode") if isinstance(opts, ast.Dict) else None
            mode = (
                const_str(given)
                if given is not None
                else "implicit"
                if isinstance(opts, ast.Dict)
                else None
            )
        for i, role, part in marks:
            if role == "assistant":
                ctx.flag(
                    part,
                    "PL407",
                    "prompt_cache_breakpoint on an assistant message: breakpoints "
                    "go on system, developer, user or tool content, never on the "
                    "model's output",
                )
            elif i < n_items - 1 and kinds(self.ev.ev(dict_get(part, "text"), env)) & VOLATILE:
                ctx.flag(
                    part,
                    "PL402",
                    "prompt_cache_breakpoint on text that changes every request: "
                    "the write is paid (1.25x) and never read",
                )
        kept = [(i, part) for i, role, part in marks if role != "assistant"]
        if mode == "explicit" and visible and not kept:
            ctx.flag(
                node,
                "PL406",
                "prompt_cache_options mode is explicit and no content block carries "
                "prompt_cache_breakpoint: nothing is cached",
            )
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
            ctx.flag(
                first,
                "PL401",
                f"{len(kept)} explicit cache breakpoints; a request in {mode} mode "
                f"writes only the latest {room}: {wasted} mark(s), the first here, "
                "are never written",
                severity=WARNING,
            )
