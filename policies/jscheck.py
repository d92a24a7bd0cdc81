"""TypeScript/JavaScript prompt builders: volatile values in template literals or `+` chains
that become a system prompt (PL101-PL106), and orders from outside the program in a prompt or a
tool list (PL201, PL203), read with a small tokenizer of its own.

Many agents build their prompts in TypeScript (`${new Date().toISOString()}`,
`${await getGitStatus()}`). The tokenizer knows strings, template literals (with nested
`${...}`), comments and regular-expression literals well enough to find each template literal,
the name it is bound to (`const SYSTEM_PROMPT = `...``, `system: `...``, a function named like
a system prompt that returns it) and the expressions it interpolates. An expression is volatile
by what it calls (`new Date()`, `Date.now()`, `Math.random()`, `crypto.randomUUID()`,
`execSync("git ...")`, `readdirSync`, `process.memoryUsage()`) or by the meaning of its names
(`currentBranch`, `todayStr`, `repoTree`: see `meaning`), and taints local constants it is
assigned to and functions of the file that return it (`function today() { return new
Date()... }`). An order comes from a directory listing or glob (`readdirSync`, `fast-glob`) or
the environment's keys, through local constants, unless sorted (`.sort()`, also in place
later); objects, Maps and Sets keep insertion order and are unordered only when built from such
a source. Pure: text in, findings out.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .findings import Finding, source_lines
from .meaning import kind_of_name, words

JS_SUFFIXES = frozenset({".js", ".mjs", ".cjs", ".jsx", ".ts", ".mts", ".cts", ".tsx"})

_CODE = {
    "time": "PL101",
    "date": "PL102",
    "random": "PL103",
    "vcs": "PL104",
    "filetree": "PL105",
    "runtime": "PL106",
}
_SOURCES: tuple[tuple[str, re.Pattern[str]], ...] = (
    (
        "date",
        re.compile(
            r"\.(toLocaleDateString|toDateString)\s*\(|\.toISOString\(\)\s*\."
            r"(split|slice|substring)\s*\(\s*['\"]?(T|0\s*,\s*10)"
        ),
    ),
    (
        "time",
        re.compile(
            r"\bnew\s+Date\s*\(\s*\)|\bDate\.now\s*\(|\bperformance\.now\s*\(|"
            r"\b(dayjs|moment)\s*\(\s*\)"
        ),
    ),
    (
        "random",
        re.compile(
            r"\bMath\.random\s*\(|\brandomUUID\s*\(|\buuid(v4|\.v4)?\s*\(|"
            r"\bnanoid\s*\(|\brandomBytes\s*\("
        ),
    ),
    ("vcs", re.compile(r"""\b(exec|execSync|execa|spawnSync|\$)\s*\(?\s*[`'"]git\b""")),
    ("filetree", re.compile(r"\b(readdirSync|readdir|globSync|glob|fg|fastGlob)\s*\(")),
    (
        "runtime",
        re.compile(
            r"\bprocess\.(pid|memoryUsage|cpuUsage|uptime|hrtime)\b|"
            r"\bos\.(loadavg|freemem|uptime)\s*\("
        ),
    ),
)
# Orders decided outside the program: a directory listing or glob (the filesystem's order,
# PL203) and the environment's keys (the launcher's order, PL201). JS objects, Maps and Sets
# keep insertion order, so `Object.keys(x)` or `new Set(x)` is unordered only when `x` is.
_ORDER_SOURCES: tuple[tuple[str, re.Pattern[str]], ...] = (
    (
        "listing",
        re.compile(
            r"\b(readdirSync|readdir|opendirSync|opendir|globSync|glob|fg|"
            r"fastGlob|globby)\s*\("
        ),
    ),
    (
        "unordered",
        re.compile(
            r"\bObject\.(keys|values|entries)\s*\(\s*process\.env\b|"
            r"\bfor\s*\(\s*(const|let|var)\s+\w+\s+in\s+process\.env\b"
        ),
    ),
)
_ORDER_CODE = {"listing": "PL203", "unordered": "PL201"}
_SORTED = re.compile(r"\.(sort|toSorted)\s*\(|\b(sortBy|orderBy)\s*\(")
# Names of a tool list: its order is part of the prefix too.
_TOOLS_WORDS = frozenset({"tools", "functions"})
_IDENT = re.compile(r"[A-Za-z_$][\w$]*")
# Names (of a variable, property or function) whose template literal is a prompt prefix.
_PREFIX_WORDS = frozenset({"system", "instructions", "preamble", "persona"})
_PROMPT_WORDS = frozenset({"prompt", "prompts"})
_USER_WORDS = frozenset(
    {
        "user",
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
    }
)
_KEYWORDS = frozenset(
    {
        "const",
        "let",
        "var",
        "return",
        "await",
        "new",
        "typeof",
        "function",
        "async",
        "export",
        "default",
        "if",
        "else",
        "this",
        "true",
        "false",
        "null",
        "undefined",
        "of",
        "in",
        "as",
    }
)


@dataclass(frozen=True)
class Template:
    start: int  # offset of the opening backtick
    end: int  # offset after the closing backtick
    holes: tuple[tuple[int, str], ...]  # (offset of the expression, its text)


def scan(text: str) -> tuple[list[Template], str]:
    """The template literals of `text` (outermost and nested) and the text with comments,
    strings and template contents blanked (for reading the code around them)."""
    out: list[Template] = []
    code = list(text)
    n = len(text)

    def blank(a: int, b: int) -> None:
        for k in range(a, min(b, n)):
            if code[k] != "\n":
                code[k] = " "

    def template(i: int) -> int:
        """Read the template literal opening at i; return the offset after it."""
        start = i
        i += 1
        holes: list[tuple[int, str]] = []
        while i < n:
            c = text[i]
            if c == "\\":
                i += 2
                continue
            if c == "`":
                i += 1
                break
            if c == "$" and i + 1 < n and text[i + 1] == "{":
                j = expression(i + 2)
                holes.append((i + 2, text[i + 2 : j]))
                i = j + 1
                continue
            i += 1
        out.append(Template(start, i, tuple(holes)))
        return i

    def expression(i: int) -> int:
        """Read code up to the `}` that closes a `${`; return its offset."""
        depth = 0
        while i < n:
            c = text[i]
            if c in "'\"":
                i = string(i)
                continue
            if c == "`":
                i = template(i)
                continue
            if c == "{":
                depth += 1
            elif c == "}":
                if depth == 0:
                    return i
                depth -= 1
            i += 1
        return n

    def string(i: int) -> int:
        q = text[i]
        i += 1
        while i < n and text[i] != q and text[i] != "\n":
            i += 2 if text[i] == "\\" else 1
        return i + 1

    i = 0
    prev = ""  # the last significant character of code, to tell a regex from a division
    while i < n:
        c = text[i]
        if c == "/" and text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            blank(i, j)
            i = j
            continue
        if c == "/" and text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            blank(i, j)
            i = j
            continue
        if c == "/" and (prev == "" or prev in "(,=:[!&|?{};+-*%<>~^"):
            j = i + 1
            in_class = False
            while j < n and text[j] != "\n":
                if text[j] == "\\":
                    j += 2
                    continue
                if text[j] == "[":
                    in_class = True
                elif text[j] == "]":
                    in_class = False
                elif text[j] == "/" and not in_class:
                    break
                j += 1
            blank(i, j + 1)
            i = j + 1
            prev = "x"
            continue
        if c in "'\"":
            j = string(i)
            blank(i + 1, j - 1)
            i = j
            prev = "x"
            continue
        if c == "`":
            j = template(i)
            blank(i + 1, j - 1)
            i = j
            prev = "x"
            continue
        if not c.isspace():
            prev = c
        i += 1
    return out, "".join(code)


def _kind(expr: str, env: dict[str, str]) -> str | None:
    for kind, pat in _SOURCES:
        if pat.search(expr):
            return kind
    for ident in _IDENT.findall(re.sub(r"(['\"`]).*?\1", "", expr)):
        if ident in env:
            return env[ident]
        if ident in _KEYWORDS:
            continue
        named = kind_of_name(ident)
        if named is not None:
            return named
    return None


def _order(expr: str, env: dict[str, str]) -> str | None:
    """The order kind an expression carries ("listing", "unordered"), None when sorted."""
    if _SORTED.search(expr):
        return None
    for kind, pat in _ORDER_SOURCES:
        if pat.search(expr):
            return kind
    for ident in _IDENT.findall(re.sub(r"(['\"`]).*?\1", "", expr)):
        if ident in env:
            return env[ident]
    return None


_BINDING = re.compile(
    r"(?:\b(?:const|let|var)\s+|\bthis\.|^\s*|[{,]\s*)"
    r"(?P<name>[A-Za-z_$][\w$]*)\s*(?::\s*[\w<>\[\]|. ]+)?\s*[=:]\s*$"
)
_FUNCTION = re.compile(
    r"(?:function\s*\*?\s*(?P<f>[A-Za-z_$][\w$]*)|"
    r"(?P<m>[A-Za-z_$][\w$]*)\s*(?:=\s*(?:async\s*)?)?\([^()]*\)\s*"
    r"(?::\s*[^={]+)?(?:=>)?\s*)\{?\s*$"
)


def _is_prefix_name(name: str) -> bool | None:
    """True: a prompt prefix; False: a user turn; None: says nothing."""
    ws = set(words(name))
    if ws & _USER_WORDS:
        return False
    if ws & _PREFIX_WORDS:
        return True
    if ws & _PROMPT_WORDS:
        return True
    return None


def _enclosing_function(code: str, start: int) -> str | None:
    """The name of the function whose body holds `start`: the nearest function head above
    at a lower brace depth (read over the blanked code)."""
    depth = 0
    i = start
    while i > 0:
        i -= 1
        ch = code[i]
        if ch == "}":
            depth += 1
        elif ch == "{":
            if depth == 0:
                ls = code.rfind("\n", 0, i) + 1
                fm = _FUNCTION.search(code[ls : i + 1])
                return (fm.group("f") or fm.group("m")) if fm else None
            depth -= 1
    return None


def _statement_end(code: str, i: int) -> int:
    """Where the expression starting at `i` ends: a `;` or `,` at its depth, a closing
    bracket, or a line end not continued by an operator (read over the blanked code)."""
    depth = 0
    n = len(code)
    j = i
    while j < n:
        c = code[j]
        if c in "([{":
            depth += 1
        elif c in ")]}":
            if depth == 0:
                return j
            depth -= 1
        elif depth == 0 and c in ";,":
            return j
        elif depth == 0 and c == "\n":
            before = code[i:j].rstrip()
            after = code[j:].lstrip()
            if (
                before
                and before[-1] not in "+=(,?:&|"
                and not after.startswith(("+", ".", "?", ":", "&&", "||"))
            ):
                return j
        j += 1
    return n


# A binding or property, read forwards: `const NAME = `, `NAME += `, `this.NAME = `, `NAME: `.
_ASSIGN = re.compile(
    r"(?:\b(?:const|let|var)\s+|\bthis\.|(?<=[{,;\n])[ \t]*)"
    r"(?P<name>[A-Za-z_$][\w$]*)\s*(?::\s*[\w<>\[\]|. ]+?\s*(?==))?"
    r"\s*(?P<op>\+?=(?![=>])|:(?![:]))"
)


def _owner(code: str, start: int) -> str | None:
    """The name a template literal at `start` is bound to or returned from, read backwards
    over the blanked code: `NAME = `, `name: `, `return` inside `function NAME(...) {`."""
    line_start = code.rfind("\n", 0, start) + 1
    before = code[line_start:start]
    m = _BINDING.search(before)
    if m:
        return m.group("name")
    if re.search(r"\breturn\s*\(?\s*$", before) or re.search(r"=>\s*\(?\s*$", before):
        name = _enclosing_function(code, start)
        if name is not None:
            return name
        arrow = _BINDING.search(
            re.sub(r"(async\s*)?\([^()]*\)\s*(:[^=]*)?=>\s*\(?\s*$", "", before)
        )
        if arrow:
            return arrow.group("name")
    return None


def check_js(path: str, text: str) -> list[Finding]:
    """Volatile values interpolated into template literals that are prompt prefixes."""
    templates, code = scan(text)
    lines = source_lines(text)
    line_starts = [0] + [m.end() for m in re.finditer("\n", text)]

    def pos(offset: int) -> tuple[int, int]:
        import bisect

        idx = bisect.bisect_right(line_starts, offset) - 1
        return idx + 1, offset - line_starts[idx] + 1

    # Local constants bound to volatile values: `const now = new Date().toISOString();`.
    env: dict[str, str] = {}
    for m in re.finditer(
        r"\b(?:const|let|var)\s+([A-Za-z_$][\w$]*)\s*(?::[^=;\n]+)?=\s*"
        r"([^;\n]+)",
        text,
    ):
        kind = _kind(m.group(2), env)
        if kind is not None:
            env[m.group(1)] = kind
    # Functions of this file that return a volatile value (`function today() { return new
    # Date()... }`, `const stamp = () => Date.now()`): a call to one is that value.
    for m in re.finditer(r"\breturn\b", code):
        end = _statement_end(code, m.end())
        fn = _enclosing_function(code, m.start())
        kind = _kind(text[m.end() : end], env)
        if fn is not None and kind is not None and fn not in env:
            env[fn] = kind
    # Local names holding an order from outside (`const files = readdirSync(dir)`), unless
    # sorted there or later in place (`files.sort()`).
    order_env: dict[str, str] = {}
    for m in re.finditer(r"\b(?:const|let|var)\s+([A-Za-z_$][\w$]*)\s*(?::[^=;\n]+)?=\s*", code):
        rhs = text[m.end() : _statement_end(code, m.end())]
        kind = _order(rhs, order_env)
        if kind is not None and not re.search(
            rf"\b{re.escape(m.group(1))}\s*\.\s*sort\s*\(", code[m.end() :]
        ):
            order_env[m.group(1)] = kind
    out: list[Finding] = []
    seen: set[int] = set()
    # Outside the template literals: their holes are read below.
    flat = list(text)
    for t in templates:
        for k in range(t.start, t.end):
            if flat[k] != "\n":
                flat[k] = " "
    plain = "".join(flat)

    def add(off: int, code_: str, message: str) -> None:
        line, col = pos(off)
        out.append(
            Finding(
                path,
                line,
                col,
                code_,
                message,
                source_line=lines[line - 1] if line <= len(lines) else "",
            )
        )

    for m in _ASSIGN.finditer(code):
        name = m.group("name")
        prefix = _is_prefix_name(name)
        tools = bool(set(words(name)) & _TOOLS_WORDS)
        if not prefix and not tools:
            continue
        start = m.end()
        while start < len(code) and code[start] in " \t":
            start += 1
        rhs = plain[start : _statement_end(code, start)]
        if not rhs.strip():
            continue
        order = _order(rhs, order_env)
        if order is not None:
            seen.add(start)
            add(
                start,
                _ORDER_CODE[order],
                f"{' '.join(rhs.split())[:60]} ({order}: an order from outside the "
                f"program) reaches `{name}`, part of the prefix; sort it",
            )
        # String concatenation into a prompt: `SYSTEM = "..." + new Date().toISOString()`.
        kind = _kind(rhs, env) if prefix and "+" in rhs else None
        if kind is not None:
            seen.add(start)
            add(
                start,
                _CODE[kind],
                f"{' '.join(rhs.split())[:60]} ({kind}) is concatenated into "
                f"`{name}`, a prompt prefix",
            )
    for t in sorted(templates, key=lambda t: t.start):
        name = _owner(code, t.start)
        if name is None or not _is_prefix_name(name):
            continue
        for off, expr in t.holes:
            if off in seen:
                continue
            kind = _kind(expr, env)
            order = _order(expr, order_env)
            if kind is None and order is None:
                continue
            seen.add(off)
            if kind is not None:
                add(
                    off - 2,
                    _CODE[kind],
                    f"${{{expr.strip()[:60]}}} ({kind}) is "
                    f"interpolated into `{name}`, a prompt prefix",
                )
            if order is not None:
                add(
                    off - 2,
                    _ORDER_CODE[order],
                    f"${{{expr.strip()[:60]}}} ({order}: an "
                    f"order from outside the program) is interpolated into `{name}`, a "
                    "prompt prefix; sort it",
                )
    # A template filled by string replacement: `prompt.replace("{{CURRENT_DATE}}", new
    # Date().toLocaleDateString())`. The slot's braces say it is a template being rendered.
    for m in _REPLACE.finditer(text):
        if m.start() in seen or not _SLOT.search(m.group("slot")):
            continue
        expr = _argument(text, m.end())
        kind = _kind(expr, env)
        if kind is None:
            continue
        line, col = pos(m.start() + 1)
        out.append(
            Finding(
                path,
                line,
                col,
                _CODE[kind],
                f"{expr.strip()[:60]} ({kind}) fills the template slot "
                f"{m.group('slot')} of a prompt",
                source_line=lines[line - 1] if line <= len(lines) else "",
            )
        )
    return sorted(out, key=lambda f: (f.line, f.col))


_REPLACE = re.compile(r"""\.replace(?:All)?\(\s*(?P<q>['"`])(?P<slot>[^'"`\n]{1,80})(?P=q)\s*,""")
_SLOT = re.compile(r"\{\{?\s*[A-Za-z_][\w.]*\s*\}\}?|\$\{[A-Za-z_]\w*\}|%[A-Za-z_]\w*%")


def _argument(text: str, i: int) -> str:
    """The code of a call argument starting at `i`, up to its `,` or `)` at depth 0."""
    depth = 0
    j = i
    while j < len(text):
        c = text[j]
        if c in "([{":
            depth += 1
        elif c in ")]}":
            if depth == 0:
                break
            depth -= 1
        elif c == "," and depth == 0:
            break
        j += 1
    return text[i:j]
