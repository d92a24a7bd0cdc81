"""The taint analysis of statements: how taints flow through a body of code.

Assignments bind the taints of their values (replacing a name's at the top of a body, adding to
it inside a branch or loop), mutating calls carry their arguments into the container, loops run
twice so that values carried round them settle and add the order taints of what they iterate,
returns build the function's summary. A function is walked with its parameters as `param` taints
and its nested functions with summaries of their own. Each simple statement (and each compound
statement's head) is handed to the sink check when the pass checks sinks. Raises no rule itself.
"""

# pure: imports no I/O (tests/test_layout.py checks it)

from __future__ import annotations

import ast
from collections.abc import Callable, Sequence
from dataclasses import replace

from .context import Context, Scope
from .syntax import Function, const_str, dotted, walk_cached
from .taint import EMPTY, ORDER, Evaluator, Summary, Taints, at, drop

# Mutating methods that carry their arguments' taints into the receiver.
_MUTATORS = ("append", "extend", "insert", "add", "update", "write", "setdefault", "appendleft")


class Flow:
    """Walks bodies of statements, updating an environment (name -> taints) as they run."""

    def __init__(
        self, ctx: Context, ev: Evaluator, check: Callable[[ast.stmt, dict[str, Taints]], None]
    ) -> None:
        self.ctx = ctx
        self.ev = ev
        self.check = check  # the sink check of one statement
        # Module-level list literals (a TOOLS list with cache_control), visible in functions
        # once the reporting pass has walked the module.
        self.module_lists: dict[str, ast.List] = {}
        self._nested: dict[int, list[Function]] = {}

    def run(
        self, body: Sequence[ast.stmt], env: dict[str, Taints], depth: int, loop: Taints
    ) -> None:
        for stmt in body:
            self.stmt(stmt, env, depth, loop)

    def stmt(self, stmt: ast.stmt, env: dict[str, Taints], depth: int, loop: Taints) -> None:
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            return
        if self.ctx.checking:
            self.check(stmt, env)
        ev, bind = self.ev.ev, self.ev.bind
        if isinstance(stmt, ast.Assign):
            ts = ev(stmt.value, env) | loop
            alias = self._func_alias(stmt.value)
            elts = (
                self.ev.elements(stmt.value, env)
                if any(isinstance(t, (ast.Tuple, ast.List)) for t in stmt.targets)
                else None
            )
            for t in stmt.targets:
                if alias and isinstance(t, ast.Name):
                    self.ctx.scope.local_funcs[t.id] = alias
                if (
                    elts is not None
                    and isinstance(t, (ast.Tuple, ast.List))
                    and len(t.elts) == len(elts)
                    and not any(isinstance(e, ast.Starred) for e in t.elts)
                ):
                    # Element by element: a set in the third element reaches only the third
                    # name.
                    for target, e_ts in zip(t.elts, elts, strict=True):
                        bind(target, e_ts | loop, env, replace_=depth == 0 and not loop)
                    continue
                bind(t, ts, env, replace_=depth == 0 and not loop)
                if isinstance(t, ast.Name) and isinstance(stmt.value, ast.List):
                    self.ctx.scope.list_literals[t.id] = stmt.value
                if isinstance(t, ast.Name):
                    if isinstance(stmt.value, ast.Dict) and None not in stmt.value.keys:
                        self.ctx.scope.dict_literals.add(t.id)
                    else:
                        self.ctx.scope.dict_literals.discard(t.id)
                    self._fields(t.id, stmt.value, env, loop)
        elif isinstance(stmt, ast.AnnAssign) and stmt.value is not None:
            bind(stmt.target, ev(stmt.value, env) | loop, env, replace_=depth == 0)
        elif isinstance(stmt, ast.AugAssign):
            bind(stmt.target, ev(stmt.value, env) | loop, env, replace_=False)
        elif isinstance(stmt, ast.Expr):
            self.effect(stmt.value, env, loop)
        elif isinstance(stmt, (ast.For, ast.AsyncFor)):
            it = ev(stmt.iter, env)
            bind(stmt.target, drop(it, ORDER), env, replace_=False)
            inner_loop = loop | frozenset(t for t in it if t.kind in ORDER)
            for _ in range(2):  # twice, so values carried round the loop settle
                self.run(stmt.body, env, depth + 1, inner_loop)
            self.run(stmt.orelse, env, depth + 1, loop)
        elif isinstance(stmt, ast.While):
            ev(stmt.test, env)  # binds `while x := f():`
            for _ in range(2):
                self.run(stmt.body, env, depth + 1, loop)
            self.run(stmt.orelse, env, depth + 1, loop)
        elif isinstance(stmt, ast.If):
            ev(stmt.test, env)  # binds `if x := f():`
            self.run(stmt.body, env, depth + 1, loop)
            self.run(stmt.orelse, env, depth + 1, loop)
        elif isinstance(stmt, (ast.With, ast.AsyncWith)):
            for item in stmt.items:
                if item.optional_vars is not None:
                    bind(item.optional_vars, ev(item.context_expr, env), env, False)
            self.run(stmt.body, env, depth + 1, loop)
        elif isinstance(stmt, ast.Try):
            self.run(stmt.body, env, depth + 1, loop)
            for h in stmt.handlers:
                self.run(h.body, env, depth + 1, loop)
            self.run(stmt.orelse, env, depth + 1, loop)
            self.run(stmt.finalbody, env, depth + 1, loop)
        elif isinstance(stmt, ast.Return) and self.ctx.scope.summary is not None:
            summary = self.ctx.scope.summary
            value = stmt.value
            elts = self.ev.elements(value, env) if isinstance(value, ast.Tuple) else None
            summary.add_return(ev(value, env), elts)

    def _fields(self, name: str, value: ast.expr, env: dict[str, Taints], loop: Taints) -> None:
        """Keep each field of a dict literal bound to `name` (all keys literal text), so that
        `name["k"]` carries field k alone; any other value forgets them."""
        fields = self.ctx.scope.dict_fields
        fields.pop(name, None)
        self.ctx.scope.moment_fields.pop(name, None)
        if not isinstance(value, ast.Dict) or not value.keys:
            return
        moment = self.ev.moment_fields(value, env)
        if moment:
            self.ctx.scope.moment_fields[name] = moment | loop
        keys = [const_str(k) for k in value.keys]
        if any(k is None for k in keys):
            return
        fields[name] = {
            k: self.ev.ev(v, env) | loop for k, v in zip(keys, value.values, strict=True) if k
        }

    def _func_alias(self, value: ast.expr) -> list[Summary]:
        """Local functions a name is bound to (`step = a_step if x else b_step`)."""
        names = (
            [value]
            if isinstance(value, ast.Name)
            else ([value.body, value.orelse] if isinstance(value, ast.IfExp) else [])
        )
        local = self.ctx.scope.local_funcs
        out: list[Summary] = []
        for n in names:
            if isinstance(n, ast.Name) and n.id in local:
                out.extend(local[n.id])
        return out

    def effect(self, expr: ast.expr, env: dict[str, Taints], loop: Taints) -> None:
        """An expression statement: mutating calls (`parts.append(x)`) carry x's marks into
        the container, a shuffle makes it unordered, `.sort()` clears its order."""
        ev = self.ev
        if isinstance(expr, ast.Await):
            expr = expr.value
        if not isinstance(expr, ast.Call) or not isinstance(expr.func, ast.Attribute):
            ev.ev(expr, env)
            return
        meth = expr.func.attr
        once = not self.ctx.scope.in_function
        if meth in _MUTATORS:
            # `.add()` makes nothing a set: a receiver built as one (`set()`, `{...}`) already
            # carries its order taint, and any other (`registry.add(tool)`) is not read as one.
            ts = ev.union([*expr.args, *(k.value for k in expr.keywords)], env) | loop
            ev.bind(expr.func.value, ts, env, replace_=False)
        elif meth == "shuffle" and expr.args:
            # random.shuffle(x) / rng.shuffle(x): the list order is now random.
            ev.bind(
                expr.args[0],
                ev.ev(expr.args[0], env)
                | {
                    at(
                        expr,
                        "unordered",
                        "a list shuffled by " + (dotted(expr.func) or "shuffle"),
                        once,
                    )
                },
                env,
                replace_=False,
            )
        elif meth == "sort":
            target = expr.func.value
            if isinstance(target, ast.Name):
                env[target.id] = drop(ev.lookup(target.id, env), ORDER)
        else:
            ev.ev(expr, env)

    def function(self, key: str, cls: str | None, fn: Function) -> None:
        """Walk a module-level function or a method (summary `key`), then its nested functions
        with the environment it left."""
        summaries = self.ev.summaries
        env: dict[str, Taints] = {}
        args = fn.args
        for a in [*args.posonlyargs, *args.args, *args.kwonlyargs]:
            if a.arg not in ("self", "cls"):
                env[a.arg] = frozenset({at(a, "param", a.arg)})
        nested = self._nested.get(id(fn))
        if nested is None:
            nested = [
                sub
                for sub in walk_cached(fn)
                if sub is not fn and isinstance(sub, (ast.FunctionDef, ast.AsyncFunctionDef))
            ]
            self._nested[id(fn)] = nested
        # Nested functions get summaries of their own (kept across rounds), so a value passed
        # to one (`step(model, f"...{now}")`) is followed into the request it builds.
        local: dict[str, list[Summary]] = {}
        for sub in nested:
            skey = f"{key}.<locals>.{sub.name}"
            if skey not in summaries:
                summaries[skey] = Summary([a.arg for a in [*sub.args.args, *sub.args.kwonlyargs]])
            local.setdefault(sub.name, []).append(summaries[skey])
        scope = self.ctx.scope = Scope(
            fn, fn.name, cls, summaries[key], dict(self.module_lists), local
        )
        self.run(fn.body, env, 0, EMPTY)
        shared = dict(local)
        for sub in nested:
            inner = dict(env)
            for a in [*sub.args.args, *sub.args.kwonlyargs]:
                inner[a.arg] = frozenset({at(a, "param", a.arg)})
            # The outer function's locals are not the nested one's (single_use).
            self.ctx.scope = replace(
                scope,
                name=sub.name,
                summary=summaries[f"{key}.<locals>.{sub.name}"],
                local_funcs=shared,
                single_use={},
            )
            self.run(sub.body, inner, 0, EMPTY)
        self.ctx.scope = Scope()
