"""TypeScript/JavaScript prompt builders: volatile values in template literals that become a
system prompt (PL101-PL106), read with a small tokenizer of its own.

Many agents build their prompts in TypeScript (`${new Date().toISOString()}`,
`${await getGitStatus()}`). The tokenizer knows strings, template literals (with nested
`${...}`), comments and regular-expression literals well enough to find each template literal,
the name it is bound to (`const SYSTEM_PROMPT = `...``, `system: `...``, a function named like
a system prompt that returns it) and the expressions it interpolates. An expression is volatile
by what it calls (`new Date()`, `Date.now()`, `Math.random()`, `crypto.randomUUID()`,
`execSync("git ...")`, `readdirSync`, `process.memoryUsage()`) or by the meaning of its names
(`currentBranch`, `todayStr`, `repoTree`: see `meaning`), and taints local constants it is
assigned to. Pure: text in, findings out.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .findings import Finding, source_lines
from .meaning import kind_of_name, words

JS_SUFFIXES = frozenset({".js", ".mjs", ".cjs", ".jsx", ".ts", ".mts", ".cts", ".tsx"})

_CODE = {"time": "PL101", "date": "PL102", "random": "PL103", "vcs": "PL104",
         "filetree": "PL105", "runtime": "PL106"}
_SOURCES: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("date", re.compile(r"\.(toLocaleDateString|toDateString)\s*\(|\.toISOString\(\)\s*\."
                        r"(split|slice|substring)\s*\(\s*['\"]?(T|0\s*,\s*10)")),
    ("time", re.compile(r"\bnew\s+Date\s*\(\s*\)|\bDate\.now\s*\(|\bperformance\.now\s*\(|"
                        r"\b(dayjs|moment)\s*\(\s*\)")),
    ("random", re.compile(r"\bMath\.random\s*\(|\brandomUUID\s*\(|\buuid(v4|\.v4)?\s*\(|"
                          r"\bnanoid\s*\(|\brandomBytes\s*\(")),
    ("vcs", re.compile(r"""\b(exec|execSync|execa|spawnSync|\$)\s*\(?\s*[`'"]git\b""")),
    ("filetree", re.compile(r"\b(readdirSync|readdir|globSync|glob|fg|fastGlob)\s*\(")),
    ("runtime", re.compile(r"\bprocess\.(pid|memoryUsage|cpuUsage|uptime|hrtime)\b|"
                           r"\bos\.(loadavg|freemem|uptime)\s*\(")),
)
_IDENT = re.compile(r"[A-Za-z_$][\w$]*")
# Names (of a variable, property or function) whose template literal is a prompt prefix.
_PREFIX_WORDS = frozenset({"system", "instructions", "preamble", "persona"})
_PROMPT_WORDS = frozenset({"prompt", "prompts"})
_USER_WORDS = frozenset({"user", "query", "question", "turn", "reminder", "message", "input",
                         "observation", "result", "env", "environment", "details", "context"})
_KEYWORDS = frozenset({"const", "let", "var", "return", "await", "new", "typeof", "function",
                       "async", "export", "default", "if", "else", "this", "true", "false",
                       "null", "undefined", "of", "in", "as"})


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
                holes.append((i + 2, text[i + 2:j]))
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


_BINDING = re.compile(r"(?:\b(?:const|let|var)\s+|\bthis\.|^\s*|[{,]\s*)"
                      r"(?P<name>[A-Za-z_$][\w$]*)\s*(?::\s*[\w<>\[\]|. ]+)?\s*[=:]\s*$")
_FUNCTION = re.compile(r"(?:function\s*\*?\s*(?P<f>[A-Za-z_$][\w$]*)|"
                       r"(?P<m>[A-Za-z_$][\w$]*)\s*(?:=\s*(?:async\s*)?)?\([^()]*\)\s*"
                       r"(?::\s*[^={]+)?(?:=>)?\s*)\{?\s*$")


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


def _owner(code: str, start: int) -> str | None:
    """The name a template literal at `start` is bound to or returned from, read backwards
    over the blanked code: `NAME = `, `name: `, `return` inside `function NAME(...) {`."""
    line_start = code.rfind("\n", 0, start) + 1
    before = code[line_start:start]
    m = _BINDING.search(before)
    if m:
        return m.group("name")
    if re.search(r"\breturn\s*\(?\s*$", before) or re.search(r"=>\s*\(?\s*$", before):
        # The enclosing function: the nearest function head above at a lower brace depth.
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
                    fm = _FUNCTION.search(code[ls:i + 1])
                    if fm:
                        return fm.group("f") or fm.group("m")
                    return None
                depth -= 1
        arrow = _BINDING.search(re.sub(r"(async\s*)?\([^()]*\)\s*(:[^=]*)?=>\s*\(?\s*$", "",
                                       before))
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
    for m in re.finditer(r"\b(?:const|let|var)\s+([A-Za-z_$][\w$]*)\s*(?::[^=;\n]+)?=\s*"
                         r"([^;\n]+)", text):
        kind = _kind(m.group(2), env)
        if kind is not None:
            env[m.group(1)] = kind
    out: list[Finding] = []
    seen: set[int] = set()
    for t in sorted(templates, key=lambda t: t.start):
        name = _owner(code, t.start)
        if name is None or not _is_prefix_name(name):
            continue
        for off, expr in t.holes:
            if off in seen:
                continue
            kind = _kind(expr, env)
            if kind is None:
                continue
            seen.add(off)
            line, col = pos(off - 2)
            out.append(Finding(path, line, col, _CODE[kind],
                               f"${{{expr.strip()[:60]}}} ({kind}) is interpolated into "
                               f"`{name}`, a prompt prefix",
                               source_line=lines[line - 1] if line <= len(lines) else ""))
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
        out.append(Finding(path, line, col, _CODE[kind],
                           f"{expr.strip()[:60]} ({kind}) fills the template slot "
                           f"{m.group('slot')} of a prompt",
                           source_line=lines[line - 1] if line <= len(lines) else ""))
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
