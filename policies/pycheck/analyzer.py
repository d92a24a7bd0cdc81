"""The Python check's driver: parse a file, wire the analyses together and run their passes.

Passes: the module body once; every function twice so that summaries settle (the second round
also checks sinks, so that a parameter reaching one is known to callers analysed first); then
the reporting pass over the module and every function. Raises PL901 (a syntax error) and PL903
(a file that cannot be parsed); the analyses raise the rest.
"""

# pure: imports no I/O (tests/test_layout.py checks it)

from __future__ import annotations

import ast
import re
import sys
from collections.abc import Callable, Iterator
from dataclasses import replace

from prefixlock.billing.prices import PriceTable

from ..chattemplate import check_dated_chat_templates
from ..findings import Finding, Fix, source_lines
from ..setaside import set_aside
from .aheadsystem import check_system_ahead_of_history
from .callers import Callers, drop_started_once, hosts_server, one_user
from .clockhistory import check_clock_in_history
from .context import Context, Scope
from .firstonly import check_system_first_only
from .firstturn import check_first_turn_rewritten
from .flow import Flow
from .fstrings import downlevel
from .history import check_history
from .inspected import drop_inspected
from .instancemode import drop_instance_modes
from .lastonly import check_last_only
from .livelist import (
    check_live_list_in_system,
    check_state_dumped_in_system,
    drop_order_of_dumped_state,
)
from .loadedwindow import check_loaded_windows
from .looptools import check_loop_tools
from .measured import drop_measured
from .middleout import check_middle_out
from .oneshot import drop_one_shot
from .partials import check_volatile_partials
from .peritem import check_per_item
from .placement import Load, check_placement
from .prefixflow import check_prefix_flow
from .projectreach import ProjectReach
from .reach import drop_unreached
from .recalled import check_recalled_in_system
from .retrieved import check_retrieved_in_system
from .rewritten import check_rewritten
from .runonce import drop_run_once
from .scriptrun import drop_script_run
from .sentapart import check_sent_apart
from .servercut import check_server_cut
from .sessionstart import drop_session_starts
from .side import check_side_requests
from .sinks import SinkCheck
from .steps import check_model_per_step
from .stepstate import check_step_state
from .storewindow import check_store_windows
from .syntax import Function
from .taint import EMPTY, VOLATILE, Evaluator, Summary, Taints
from .templatefill import check_filled_templates
from .templates import check_prompt_templates
from .toolstate import check_tool_state_in_instruction
from .toolswap import (
    check_final_without_tools,
    check_system_replaced,
    check_tool_selectors,
    check_tool_swaps,
    check_tools_dropped,
)
from .userahead import check_user_ahead_of_history
from .windows import check_windows
from .windowtext import check_window_text_in_system


class Analysis:
    """Runs the passes of one module's analysis."""

    def __init__(self, tree: ast.Module, ctx: Context) -> None:
        self.tree = tree
        self.ctx = ctx
        self.ev: Evaluator = Evaluator(ctx)
        sinks = SinkCheck(ctx, self.ev, tree)
        self.ev.argument_sink = sinks.argument
        self.flow: Flow = Flow(ctx, self.ev, sinks.statement)

    def functions(self) -> Iterator[tuple[str, str | None, Function]]:
        """(summary key, class, def) of each module-level function and method."""
        for stmt in self.tree.body:
            if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
                yield stmt.name, None, stmt
            elif isinstance(stmt, ast.ClassDef):
                for sub in stmt.body:
                    if isinstance(sub, (ast.FunctionDef, ast.AsyncFunctionDef)):
                        yield f"{stmt.name}.{sub.name}", stmt.name, sub

    def run(self) -> list[Finding]:
        ctx, ev, flow = self.ctx, self.ev, self.flow
        for key, cls, fn in self.functions():
            params = [a.arg for a in [*fn.args.posonlyargs, *fn.args.args, *fn.args.kwonlyargs]]
            ev.summaries[key] = Summary(params, is_method=cls is not None)
            if cls is None:
                ev.summaries.setdefault(fn.name, ev.summaries[key])
        for stmt in self.tree.body:
            if isinstance(stmt, ast.ClassDef):
                cenv = ev.class_env.setdefault(stmt.name, {})
                for sub in stmt.body:
                    if isinstance(sub, ast.Assign):
                        for t in sub.targets:
                            if isinstance(t, ast.Name):
                                cenv[t.id] = ev.ev(sub.value, {})
        module_env: dict[str, Taints] = {}
        ev.module_env = module_env
        flow.run(self.tree.body, module_env, 0, EMPTY)
        for round_ in range(2):  # summaries settle over two rounds
            # The second round also finds which parameters reach a sink, so that callers
            # analysed before their callee still see it in the reporting pass.
            ctx.checking = round_ == 1
            for key, cls, fn in self.functions():
                summ = ev.summaries[key]
                summ.returns, summ.elts, summ.elts_mixed = EMPTY, None, False
                flow.function(key, cls, fn)
        ctx.checking = ctx.reporting = True
        ctx.scope = Scope()
        flow.run(self.tree.body, dict(module_env), 0, EMPTY)
        flow.module_lists = dict(ctx.scope.list_literals)
        for key, cls, fn in self.functions():
            flow.function(key, cls, fn)
        return ctx.findings.in_order()


def _syntax_message(msg: str, version: tuple[int, int] = sys.version_info[:2]) -> str:
    """The PL901 message. Python 3.12 (PEP 701) lets an f-string reuse its quotes, backslashes
    and comments inside its braces; an older interpreter's `ast` rejects such a file whole, so
    say why rather than leave the user to hunt for a mistake that is not there."""
    text = f"syntax error: {msg}"
    if version < (3, 12) and msg.startswith("f-string"):
        text += (
            f" (this f-string may be valid Python 3.12 or later: the linter parses with the "
            f"grammar of the Python it runs on, {version[0]}.{version[1]}; run it on 3.12 or "
            "later to lint this file)"
        )
    return text


def _parse(text: str, path: str) -> ast.Module:
    """The file's syntax tree; under Python 3.11, a file it rejects is read again with its
    Python 3.12 f-strings rewritten (`fstrings`), each line kept where it is."""
    try:
        return ast.parse(text, filename=path)
    except SyntaxError:
        if sys.version_info >= (3, 12):
            raise
        fixed = downlevel(text)
        if fixed is None or fixed.count("\n") != text.count("\n"):
            raise
        try:
            return ast.parse(fixed, filename=path)
        except SyntaxError:
            pass
        raise  # the first error, the one in the file as written


def check_python(
    path: str,
    text: str,
    model: str | None = None,
    prices: PriceTable | None = None,
    load: Load | None = None,
    imported: ModuleSummaries | None = None,
    callers: Callers | None = None,
    project: ProjectReach | None = None,
) -> list[Finding]:
    """Lint one Python source file. A syntax error is a PL901 finding. `load` gives the syntax
    tree of a module this one imports (by dotted name), where the engine can find it;
    `imported` what the names imported from the project's other modules carry; `callers`
    where the project's other files call this one's functions; `project` whether a function's
    values reach a model request anywhere in the project."""
    lines = source_lines(text)
    try:
        tree = _parse(text, path)
    except SyntaxError as exc:
        if set_aside(path):
            return []  # a broken copy in a trash or backup folder: nothing runs it
        line = exc.lineno or 1
        return [
            Finding(
                path,
                line,
                (exc.offset or 1),
                "PL901",
                _syntax_message(exc.msg),
                source_line=lines[line - 1] if 0 < line <= len(lines) else "",
            )
        ]
    except ValueError as exc:  # null bytes
        return [Finding(path, 1, 1, "PL903", f"cannot parse: {exc}")]
    # A chat template's own clock (its columns counted in characters already).
    dated = check_dated_chat_templates(path, text)
    if not _interesting(text):
        return dated
    ctx = Context.of(path, tree, lines, model, prices)
    ctx.serving = (
        (lambda: project.serving(path, tree))
        if project is not None
        else (lambda: hosts_server(tree))
    )
    ctx.one_user = (
        (lambda: project.one_user(path, tree)) if project is not None else (lambda: one_user(tree))
    )
    if imported is not None:
        ctx.foreign = imported.foreign(path)
    if _WRITES_CONTENT.search(text):  # the walk for PL303 only where a message is edited
        check_history(tree, ctx)
    check_windows(tree, ctx, load)
    check_window_text_in_system(tree, ctx)
    if ".join(" in text:  # PL303: the newest user message sent as joined text
        check_sent_apart(tree, ctx)
    check_store_windows(tree, ctx)
    check_loaded_windows(tree, ctx)
    check_volatile_partials(tree, ctx)
    check_middle_out(tree, ctx)
    check_last_only(tree, ctx)
    check_clock_in_history(tree, ctx)
    if _REPLACED_BY_POSITION.search(text) or ".pop()" in text:  # PL303: `[-n] =`, or a pop
        check_rewritten(tree, ctx)
    check_system_ahead_of_history(tree, ctx)
    if "google.adk" in text:  # PL304: tool-written state in an ADK instruction
        check_tool_state_in_instruction(tree, ctx)
    check_system_first_only(tree, ctx)
    check_user_ahead_of_history(tree, ctx)
    check_first_turn_rewritten(tree, ctx)
    check_server_cut(tree, ctx)
    check_step_state(tree, ctx)
    check_live_list_in_system(tree, ctx)
    check_state_dumped_in_system(tree, ctx)
    check_per_item(tree, ctx)
    check_model_per_step(tree, ctx)
    check_tool_swaps(tree, ctx)
    if _WITHOUT_TOOLS.search(text):
        check_tools_dropped(tree, ctx)
    if "ToolSelector" in text:
        check_tool_selectors(tree, ctx)
    check_loop_tools(tree, ctx)
    check_final_without_tools(tree, ctx)
    check_system_replaced(tree, ctx)
    check_prompt_templates(tree, ctx)
    check_filled_templates(tree, ctx)
    if _CURRENT_MESSAGE.search(text):  # PL304 needs a part computed from the current message
        check_placement(tree, ctx, load)
    if _SYSTEM_ROLE.search(text):  # PL305 needs a system prompt written out
        check_side_requests(tree, ctx)
    analysis = Analysis(tree, ctx)
    found = analysis.run()
    if imported is not None:
        imported.remember(path, analysis)  # another file may import this one
    # The data-flow pass finds some breakers the shape rules already report: one a line.
    told = {(f.code, f.line) for f in found}
    # ... and a PL304 that names the sink's line (`flows into the system message (line 4)`).
    told |= {(f.code, int(n)) for f in found for n in re.findall(r"\(line (\d+)\)", f.message)}
    found += [f for f in check_prefix_flow(tree, ctx) if (f.code, f.line) not in told]
    found += check_retrieved_in_system(tree, ctx, found)
    found += check_recalled_in_system(tree, ctx, found)
    found = drop_measured(tree, drop_instance_modes(tree, found))
    found = drop_unreached(tree, found, None if project is None else (path, project))
    found = drop_inspected(tree, found)
    found = drop_session_starts(tree, found, lines)
    found = drop_started_once(tree, found, callers)
    found = drop_run_once(tree, found)
    found = drop_one_shot(tree, found)
    found = drop_script_run(tree, found)
    found = drop_order_of_dumped_state(found)
    found = found if text.isascii() else _char_columns(found, lines)
    told = {(f.code, f.line) for f in found}
    found += [f for f in dated if (f.code, f.line) not in told]
    found.sort(key=lambda f: (f.line, f.col, f.code))
    return found


# (importing file, dotted module) -> that module's file and syntax tree, where the engine
# finds it among the project's files; None for a module of the standard library or a package.
Find = Callable[[str, str], tuple[str, ast.Module] | None]


_Known = tuple[dict[str, Summary], dict[str, Taints]]


class ModuleSummaries:
    """What the names of the project's other modules carry: a function's return value or a
    module-level binding. Each module is analysed once per lint run (the engine keeps one of
    these per worker), its own imports followed up to `DEPTH` modules deep; a cycle of
    imports reads as nothing. Volatile taints only: an order made in another module (an
    environment copied for a subprocess) seldom survives into what it hands over."""

    DEPTH = 3

    def __init__(
        self,
        find: Find,
        model: str | None,
        prices: PriceTable | None,
        key: Callable[[str], str] = str,
    ) -> None:
        self.find = find
        self.key = key  # a file's path as `find` names it (the engine's: absolute)
        self.model = model
        self.prices = prices
        # file -> its functions' summaries and its module-level bindings (not the syntax
        # tree: a run keeps these for every file it lints)
        self._known: dict[str, _Known | None] = {}
        self._busy: set[str] = set()
        # (importing file, dotted name, called) -> taints: a name is read many times a file.
        self._memo: dict[tuple[str, str, bool], Taints] = {}
        self._cut = False  # an import cycle was met: what was found is not final

    def foreign(self, importer: str, depth: int = 0) -> Callable[[str, bool], Taints]:
        """The `Context.foreign` of a file: `pkg.mod.name` (and whether it is called) -> the
        taints of the value, each naming the module and line that make it."""

        def taints(origin: str, called: bool) -> Taints:
            if depth >= self.DEPTH:
                return EMPTY
            return self.taints(importer, origin, called, depth)

        return taints

    def taints(self, importer: str, origin: str, called: bool, depth: int = 0) -> Taints:
        key = (importer, origin, called)
        if key in self._memo:
            return self._memo[key]
        cut, self._cut = self._cut, False
        found = self._taints(importer, origin, called, depth)
        if not self._cut:  # not known while a module of an import cycle is analysed
            self._memo[key] = found
        self._cut = self._cut or cut
        return found

    def _taints(self, importer: str, origin: str, called: bool, depth: int) -> Taints:
        module, _, name = origin.rpartition(".")
        found = self.find(importer, module) if module else None
        if found is None:
            return EMPTY
        path, tree = found
        known = self._analysis(path, tree, depth)
        if known is None:
            return EMPTY
        summ = known[0].get(name)
        if called:
            made = summ.returns if summ is not None else EMPTY
        elif summ is None:
            made = known[1].get(name, EMPTY)
        else:
            made = EMPTY  # a function handed over, not called: no value yet
        where = module.lstrip(".")  # as this file names it: the same whoever imports first
        return frozenset(
            t
            if " (made in " in t.desc
            else replace(t, desc=f"{t.desc} (made in {where}, line {t.line})")
            for t in made
            if t.kind in VOLATILE
        )

    def remember(self, path: str, analysis: Analysis) -> None:
        """The analysis of a file linted in this run: a module imported later is not
        analysed again."""
        self._known.setdefault(self.key(path), (analysis.ev.summaries, analysis.ev.module_env))

    def _analysis(self, path: str, tree: ast.Module, depth: int) -> _Known | None:
        if path in self._known:
            return self._known[path]
        if path in self._busy:  # an import cycle: what is being analysed is not known yet
            self._cut = True
            return None
        self._busy.add(path)
        known: _Known | None = None
        try:
            lines = source_lines(ast.unparse(tree))
            ctx = Context.of(path, tree, lines, self.model, self.prices)
            ctx.foreign = self.foreign(path, depth + 1)
            analysis = Analysis(tree, ctx)
            analysis.run()
            known = (analysis.ev.summaries, analysis.ev.module_env)
        except RecursionError:
            pass
        finally:
            self._busy.discard(path)
        self._known[path] = known
        return known


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
            edits = tuple(
                replace(e, col=col(e.line, e.col), end_col=col(e.end_line, e.end_col))
                for e in fix.edits
            )
            fixes[id(fix)] = replace(fix, edits=edits)
        return fixes[id(fix)]

    out = []
    for f in findings:
        end_col = None if f.end_col is None else col(f.end_line or f.line, f.end_col - 1) + 1
        out.append(
            replace(
                f,
                col=col(f.line, f.col - 1) + 1,
                end_col=end_col,
                fix=None if f.fix is None else convert(f.fix),
            )
        )
    return out


_WRITES_CONTENT = re.compile(
    r"""(\[\s*["'](content|text)["']\s*\]|\.(\w*_)?(content|text|observations?|images?|"""
    r"""screenshots?))\s*[+]?=[^=]"""
)
_REPLACED_BY_POSITION = re.compile(r"\[-\d+\]\s*=[^=]")
# A call named for leaving the tools out (`call_without_tools`, `chatNoTools`).
_WITHOUT_TOOLS = re.compile(r"(?i)(without|no)_?(tool|function)")
_CURRENT_MESSAGE = re.compile(
    r"(?i)(cur|current|latest|incoming|pending)_?(message|msg|query|input|request|question|turn)"
)
_SYSTEM_ROLE = re.compile(
    r"""role["']?\s*[:=]\s*["']system|\bsystem\s*=|Role\.SYSTEM\b|SystemMessage\("""
)
_HINTS = (
    "system",
    "System",
    "SYSTEM",  # module constants: `SYSTEM_PROMPT = ...`
    "PROMPT",
    "You are",  # persona text bound to any name (`PREFIX = "You are ..."`)
    "You're",
    "instruction",
    "backstory",
    "tools",
    "instructions",
    "preamble",
    "messages",
    "prompt",
    "cache_control",
    "role",
    "input_schema",
    "parameters",
    "FrozenPrefix",
    "ContextProvider",
    "description",
    "Agent",  # an agent class's prompt keywords (`SearchAgent(template=...)`)
)


# A helper named for cutting a history (`def _trim_conversation_history(`): the window it
# returns is the conversation its callers send, though its file names no prompt part.
_HISTORY_CUT_DEF = re.compile(
    r"def _*(?:trim|truncate|clip|prune|cut|shrink)_\w*(?:history|conversation|messages)\w*\("
)


def _interesting(text: str) -> bool:
    """Cheap pre-filter: a file that never mentions a prompt part cannot reach a sink."""
    return any(h in text for h in _HINTS) or _HISTORY_CUT_DEF.search(text) is not None
