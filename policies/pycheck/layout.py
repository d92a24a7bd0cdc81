"""The prompt layout check: the stable part of a prompt should come before what changes.

A prompt is read as pieces in order: static text (literals, module-level string constants),
mode-dependent text (a conditional expression, a lookup in a module-level dict), volatile values
and dynamic ones (parameters, file contents). Raises PL301 (dynamic content before static text
that reaches the model's cache minimum by itself, so it could be an entry every session shares)
and PL302 (a prompt that starts with mode-dependent text).
"""

# pure: imports no I/O (tests/test_layout.py checks it)

from __future__ import annotations

import ast

from prefixlock.tokenizer import count_tokens

from ..choice import picked_model
from ..meaning import words
from ..rules import LOWEST_MINIMUM
from .context import Context
from .syntax import const_str, dict_get, walk_cached
from .taint import DYNAMIC, VOLATILE, Evaluator, Taints, kinds

Piece = tuple[str, int, ast.AST]  # kind, static characters, node


class LayoutCheck:
    """Checks the order of a prompt's pieces."""

    def __init__(self, ctx: Context, ev: Evaluator) -> None:
        self.ctx = ctx
        self.ev = ev

    def pieces(self, node: ast.AST, env: dict[str, Taints]) -> list[Piece]:
        ctx = self.ctx
        if isinstance(node, ast.JoinedStr):
            out: list[Piece] = []
            for v in node.values:
                if isinstance(v, ast.FormattedValue):
                    out.extend(self.pieces(v.value, env))
                else:
                    out.append(("static", len(const_str(v) or ""), v))
            return out
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
            return self.pieces(node.left, env) + self.pieces(node.right, env)
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr == "join"
            and node.args
            and isinstance(node.args[0], (ast.List, ast.Tuple))
        ):
            res: list[Piece] = []
            for e in node.args[0].elts:
                res.extend(self.pieces(e, env))
            return res
        if isinstance(node, ast.List):
            res = []
            for e in node.elts:
                if isinstance(e, ast.Dict):
                    text = dict_get(e, "text")
                    if text is not None:
                        res.extend(self.pieces(text, env))
                else:
                    res.extend(self.pieces(e, env))
            return res
        s = const_str(node)
        if s is not None:
            return [("static", len(s), node)]
        if isinstance(node, ast.Name) and node.id in ctx.consts and node.id not in env:
            return [("static", len(ctx.consts[node.id]), node)]
        if isinstance(node, ast.IfExp):
            return [("mode", 0, node)]
        if (
            isinstance(node, ast.Subscript)
            and isinstance(node.value, ast.Name)
            and node.value.id in ctx.dict_consts
            and not isinstance(node.slice, ast.Constant)
        ):
            return [("mode", 0, node)]
        found = kinds(self.ev.ev(node, env))
        if found & VOLATILE:
            return [("volatile", 0, node)]
        if found & DYNAMIC:
            return [("dynamic", 0, node)]
        return [("static", 0, node)]

    def check(self, node: ast.AST, env: dict[str, Taints], one_off: bool = False) -> None:
        """PL302 and PL301 for one prompt. `one_off`: the system prompt of a request with no
        history after it, whose start picked by a mode changes no conversation's prefix."""
        ps = [
            p
            for p in self.pieces(node, env)
            if not (p[0] == "static" and p[1] == 0 and const_str(p[2]) == "")
        ]
        if not ps:
            return
        first = ps[0]
        after = sum(n for k, n, _ in ps[1:] if k == "static")
        if first[0] == "mode" and after > 0 and not one_off:
            self.ctx.flag(
                first[2],
                "PL302",
                "the prompt starts with mode-dependent text; every mode gets its "
                f"own cache entry for the {after} static characters after it",
            )
        for i, (kind, _, n) in enumerate(ps):
            if kind != "dynamic":
                continue
            rest = sum(k2 for kd, k2, _ in ps[i + 1 :] if kd == "static")
            # Worth moving only when the static part could be a cache entry of its own,
            # shared by every session: it reaches the model's minimum by itself.
            tokens = (
                count_tokens("".join(self._text(p[2]) for p in ps[i + 1 :] if p[0] == "static"))
                if rest >= 200
                else 0
            )
            if rest >= 200 and tokens >= self._minimum():
                self.ctx.flag(
                    n,
                    "PL301",
                    f"dynamic content comes before {rest} characters (about "
                    f"{tokens} tokens) of static instructions; put the static "
                    "part first",
                )
            break

    def check_tools(self, node: ast.expr) -> None:
        """PL302 for the tool list: the first bytes of the prefix are the tools, so a list
        picked by a mode (`PLAN_TOOLS if plan_mode else TOOLS`, `TOOLS_BY_MODE[mode]`) gives
        each mode a prefix that shares nothing."""
        if isinstance(node, ast.IfExp) and (_names_a_mode(node.test) or _names_a_pick(node.test)):
            self.ctx.flag(
                node,
                "PL302",
                "the tool list depends on a mode or flag: the tools "
                "come first in the prefix, so the modes share no cached prefix",
            )
        elif (
            isinstance(node, ast.Subscript)
            and isinstance(node.value, ast.Name)
            and node.value.id in self.ctx.dict_consts
            and not isinstance(node.slice, ast.Constant)
            and _names_a_mode(node.slice)
        ):
            self.ctx.flag(
                node,
                "PL302",
                "the tool list is looked up by a mode: the tools "
                "come first in the prefix, so the modes share no cached prefix",
            )

    def _text(self, node: ast.AST) -> str:
        s = const_str(node)
        if s is None and isinstance(node, ast.Name):
            s = self.ctx.consts.get(node.id)
        return s or ""

    def _minimum(self) -> int:
        price = self.ctx.price(None)
        return price.min_cacheable_tokens if price is not None else LOWEST_MINIMUM


_MODE_WORDS = frozenset(
    {
        "mode",
        "modes",
        "plan",
        "planning",
        "readonly",
        "architect",
        "ask",
        "act",
        "acting",
        "agentic",
        "yolo",
        "safe",
    }
)


def _names_a_pick(test: ast.AST) -> bool:
    """A test that reads the model the request picks (`selected_model == "reasoning"`): the
    tools then change with the user's pick inside one conversation."""
    return any(
        picked_model(n.id if isinstance(n, ast.Name) else n.attr)
        for n in walk_cached(test)
        if isinstance(n, (ast.Name, ast.Attribute))
    )


def _names_a_mode(test: ast.AST) -> bool:
    """A test that reads a mode or flag by name (`plan_mode`, `self.mode == "ask"`)."""
    for n in walk_cached(test):
        name = (
            n.id if isinstance(n, ast.Name) else (n.attr if isinstance(n, ast.Attribute) else None)
        )
        if name is not None and set(words(name)) & _MODE_WORDS:
            return True
    return False
