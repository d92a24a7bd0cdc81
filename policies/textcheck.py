"""Prompt, template, data and agent-file checks (md, txt, j2/jinja, yaml, json, toml).

Placeholders (`{{ now }}`, `{date}`, `${GIT_BRANCH}`, `$(date)`, "!`git status`") are classified
by the names they use; a placeholder counts only where the text becomes the prefix: a system
prompt, an agent body, tool descriptions, an earlier message. Files, keys or front matter that
mark a user turn (`role: user`, a `user_template` key, `reminder.md`) are where volatile facts
belong and are not flagged. Agent files (front matter with a `model`) are compared with the
session model. Pure: text in, findings out.
"""

from __future__ import annotations

import functools
import itertools
import json
import re
import tomllib
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import PurePath
from typing import Any

import yaml

from prefixlock.billing.prices import PriceTable
from prefixlock.tokenizer import count_tokens

from .findings import Finding, Fix, source_lines
from .meaning import VOLATILE_CODES, kind_of_name, words
from .rules import LOWEST_MINIMUM
from .suppress import Suppressions, parse_front_matter

_PLACEHOLDER = re.compile(
    r"\{\{(?P<jinja>.*?)\}\}"
    r"|\{%-?\s*(?P<tag>.*?)-?%\}"
    r"|\$\{(?P<shell>[A-Za-z_][A-Za-z0-9_]*)\}"
    r"|!`(?P<bang>[^`\n]*)`"
    r"|(?<![{\w])\{(?P<fmt>[A-Za-z_][A-Za-z0-9_.]*)(?:![rsa])?(?::[^{}\n]*)?\}(?!\})"
)
_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_FORMAT_FIELD = re.compile(r"(?<![{\w])\{[A-Za-z_][A-Za-z0-9_.]*(?:![rsa])?(?::[^{}\n]*)?\}(?!\})")

_CONTEXT_NAMES = re.compile(
    r"(?i)(context|project\w*|repo_?map|memory_?file|claude_?md|agents_?md|readme|notes|"
    r"workspace\w*|user\w*|task|question|query|input|docs?)"
)
FINDINGS_CAP = 500  # per file; the engine adds one PL906 for the rest
_CODE = VOLATILE_CODES
_USER_FILE = re.compile(r"(?i)(^|[_\-.])(user|turn|reminder|query|question|followup)([_\-.]|$)")
_USER_KEY = re.compile(r"(?i)(user|reminder|turn|query|question|followup)")
_PREFIX_KEYS = re.compile(
    r"(?i)^(system|system_?prompt|instructions|preamble|prompt|"
    r"developer|description|tools|body|template)$"
)
_TEXT_EXT = {
    ".md",
    ".markdown",
    ".mdc",
    ".txt",
    ".prompt",
    ".j2",
    ".jinja",
    ".jinja2",
    ".tmpl",
    ".tpl",
}
_TIME_FMT = re.compile(r"%[HIMSfpXcTrRsz]")


@dataclass(frozen=True)
class Placeholder:
    kind: str  # a volatile kind, "context", or "other"
    text: str
    line: int
    col: int
    names: tuple[str, ...]
    offset: int


@functools.lru_cache(maxsize=4096)
def classify(expr: str, which: str) -> str:
    """Kind of a placeholder from the names it uses (or the command it runs)."""
    if which == "bang":
        cmd = expr.strip().split()
        head = cmd[0] if cmd else ""
        if head == "date":
            fmt = " ".join(cmd[1:])
            return "date" if ("+" in fmt and not _TIME_FMT.search(fmt)) else "time"
        if head == "git":
            return "vcs"
        if head in ("ls", "tree", "find", "fd", "du"):
            return "filetree"
        if head in ("uuidgen",):
            return "random"
        if head in ("uptime", "free", "ps", "top"):
            return "runtime"
        return "other"
    if which == "tag" and re.match(r"\s*now\b", expr):
        return "time"
    if "strftime" in expr:
        m = re.search(r"strftime\(\s*['\"]([^'\"]*)", expr)
        fmt = m.group(1) if m else ""
        return "time" if (not fmt or _TIME_FMT.search(fmt)) else "date"
    idents = [
        i
        for i in _IDENT.findall(expr)
        if i
        not in (
            "if",
            "else",
            "and",
            "or",
            "not",
            "in",
            "is",
            "for",
            "endif",
            "endfor",
            "set",
            "true",
            "false",
        )
    ]
    for ident in idents:
        kind = kind_of_name(ident)
        if kind is not None:
            return kind
    for ident in idents:
        if _CONTEXT_NAMES.fullmatch(ident):
            return "context"
    return "other"


def placeholders(text: str, line0: int = 1, single_brace: bool = True) -> Iterator[Placeholder]:
    """The template slots of `text`; `single_brace=False` where `{name}` is plain text (the
    body of a Markdown agent or command file: Claude Code substitutes no braces there)."""
    line_starts = [0]
    for m in re.finditer("\n", text):
        line_starts.append(m.end())
    import bisect

    # A text with `str.format` fields (`{tools}`) and no Jinja tags is rendered by
    # `str.format`, where `{{name}}` is an escape: literal braces, not a slot.
    formatted = single_brace and "{%" not in text and _FORMAT_FIELD.search(text) is not None
    for m in _PLACEHOLDER.finditer(text):
        which = m.lastgroup or ""
        expr = m.group(which) or ""
        if which == "fmt" and not single_brace:
            continue
        if which == "jinja" and formatted and _IDENT.fullmatch(expr):
            continue
        if which == "tag":
            loop = re.match(r"\s*for\s+[\w, ]+\s+in\s+(.*)", expr, re.S)
            if loop:
                expr = loop.group(1)  # `{% for f in repo_files %}` renders what it iterates
            elif not re.match(r"\s*now\b", expr):
                continue
        kind = classify(expr, which)
        idx = bisect.bisect_right(line_starts, m.start()) - 1
        yield Placeholder(
            kind,
            m.group(0),
            line0 + idx,
            m.start() - line_starts[idx] + 1,
            tuple(_IDENT.findall(expr)),
            m.start(),
        )


def _is_user_file(path: str, meta: Mapping[str, Any] | None) -> bool:
    if meta and str(meta.get("role", "")).lower() in ("user", "tool"):
        return True
    stem = PurePath(path).name.split(".")[0]
    return bool(_USER_FILE.search(stem))


_TOOL_TEXT_KEYS = frozenset(
    {"description", "docstring", "signature", "summary", "name", "instructions", "usage"}
)
_CLAUDE_CODE_ALIASES = frozenset({"sonnet", "opus", "haiku"})
_AGENT_FOLDERS = frozenset(
    {
        ".claude",
        ".cursor",
        ".github",
        ".codex",
        ".gemini",
        "agents",
        "commands",
        "subagents",
        "prompts",
        "chatmodes",
    }
)


def _in_agent_folder(path: str) -> bool:
    return bool({p.lower() for p in PurePath(path).parts[:-1]} & _AGENT_FOLDERS)


def _is_command_file(path: str, meta: Mapping[str, Any] | None) -> bool:
    """A slash command (or a skill's body): expanded into the user's message when invoked, so
    what it runs (!`git status`) lands in the newest turn, not in the prefix."""
    parts = [p.lower() for p in PurePath(path).parts[:-1]]
    kind = str(meta.get("type", "")).lower() if meta else ""
    return "commands" in parts or kind == "command" or PurePath(path).name == "SKILL.md"


def split_front_matter(text: str) -> tuple[str | None, int, str, int]:
    """(front matter text or None, its first line, body, body's first line)."""
    if not text.startswith("---"):
        return None, 0, text, 1
    lines = text.split("\n")
    if lines[0].strip() != "---":
        return None, 0, text, 1
    for i in range(1, len(lines)):
        if lines[i].strip() in ("---", "..."):
            return "\n".join(lines[1:i]), 2, "\n".join(lines[i + 1 :]), i + 2
    return None, 0, text, 1


class _TextChecker:
    def __init__(
        self, path: str, text: str, model: str | None, prices: PriceTable | None, sup: Suppressions
    ) -> None:
        self.path = path
        self.text = text
        self.lines = source_lines(text)
        self.model = model
        self.prices = prices
        self.sup = sup
        self.out: list[Finding] = []

    def line(self, n: int) -> str:
        return self.lines[n - 1] if 0 < n <= len(self.lines) else ""

    def flag_volatile(
        self, text: str, line0: int, where: str, col_shift: int = 0, single_brace: bool = True
    ) -> None:
        seen = {(f.line, f.col, f.code) for f in self.out}
        for p in placeholders(text, line0, single_brace):
            code = _CODE.get(p.kind)
            if code is None:
                continue
            col = p.col + (col_shift if p.line == line0 else 0)
            if (p.line, col, code) in seen:
                continue  # one value located twice (its text repeats in the file)
            seen.add((p.line, col, code))
            if len(self.out) > FINDINGS_CAP:
                break  # the engine reports the cap; reading on would only cost time
            self.out.append(
                Finding(
                    self.path,
                    p.line,
                    col,
                    code,
                    f"placeholder {p.text} ({p.kind}) is rendered into the {where}",
                    source_line=self.line(p.line),
                )
            )

    def layout(self, text: str, line0: int, single_brace: bool = True) -> None:
        stripped = re.sub(
            r"\{#.*?#\}|<!--.*?-->", lambda m: " " * len(m.group(0)), text, flags=re.S
        )
        first = re.search(r"\S", stripped)
        if first is not None and _mode_switch(stripped[first.start() :]):
            line = line0 + text.count("\n", 0, first.start())
            self.out.append(
                Finding(
                    self.path,
                    line,
                    1,
                    "PL302",
                    "the prompt starts with a mode-dependent `{% if %}` block; "
                    "every mode gets its own cache entry",
                    source_line=self.line(line),
                )
            )
        # The first context placeholder, among the first few: one found further down has
        # volatile ones before it, already reported.
        for p in itertools.islice(placeholders(text, line0, single_brace), 200):
            if p.kind in _CODE or p.kind == "other":
                continue
            after = _PLACEHOLDER.sub("", text[p.offset + len(p.text) :]).strip()
            # Worth moving only when the static part could be a cache entry every session
            # shares: it reaches the model's minimum by itself.
            if len(after) >= 500 and (tokens := count_tokens(after)) >= self._minimum():
                self.out.append(
                    Finding(
                        self.path,
                        p.line,
                        p.col,
                        "PL301",
                        f"dynamic context {p.text} comes before {len(after)} "
                        f"characters (about {tokens} tokens) of static "
                        "instructions; put them first",
                        source_line=self.line(p.line),
                    )
                )
            break

    def _minimum(self) -> int:
        price = self.prices.lookup(self.model) if (self.prices and self.model) else None
        return price.min_cacheable_tokens if price is not None else LOWEST_MINIMUM

    # --- agent files ----------------------------------------------------------------------------

    def agent_file(self, meta: Mapping[str, Any], fm_line: int) -> None:
        model = meta.get("model")
        if not isinstance(model, str) or not self.model:
            return
        name = re.sub(r"\[\w+\]$", "", model.strip().lower())  # `sonnet[1m]`
        if name in ("inherit", "default", ""):
            return
        if name in _CLAUDE_CODE_ALIASES:
            # Claude Code's alias names the family's current model: the same model when the
            # session runs that family.
            if name in self.model.lower():
                return
        else:
            resolve = self.prices.resolve if self.prices else (lambda m: m)
            if resolve(model) == resolve(self.model):
                return
        line = fm_line
        for i, text in enumerate(self.lines, start=1):
            if re.match(r"\s*model\s*:", text):
                line = i
                break
        parts = {p.lower() for p in PurePath(self.path).parts}
        kind = str(meta.get("type", "")).lower()
        is_skill = (
            kind in ("skill", "command")
            or "skills" in parts
            or "commands" in parts
            or PurePath(self.path).name == "SKILL.md"
        )
        if is_skill:
            self.out.append(
                Finding(
                    self.path,
                    line,
                    1,
                    "PL601",
                    f"skill switches the session from {self.model} to {model}: "
                    "one full uncached turn there and one back",
                    source_line=self.line(line),
                )
            )
        else:
            self.out.append(
                Finding(
                    self.path,
                    line,
                    1,
                    "PL602",
                    f"subagent runs on {model}, not the session's {self.model}: "
                    "it cannot read the parent's cache",
                    source_line=self.line(line),
                )
            )

    # --- file kinds -------------------------------------------------------------------------------

    def markup(self) -> None:
        fm, fm_line, body, body_line = split_front_matter(self.text)
        meta: Mapping[str, Any] | None = None
        if fm is not None:
            try:
                loaded = yaml.safe_load(fm) if fm.strip() else {}
            except yaml.YAMLError as exc:
                mark = getattr(exc, "problem_mark", None)
                line = fm_line + (mark.line if mark is not None else 0)
                self.out.append(
                    Finding(
                        self.path,
                        line,
                        1,
                        "PL902",
                        f"invalid YAML front matter: {getattr(exc, 'problem', None) or exc}",
                        source_line=self.line(line),
                    )
                )
                loaded = None
            if loaded is not None and not isinstance(loaded, Mapping):
                self.out.append(
                    Finding(
                        self.path,
                        fm_line,
                        1,
                        "PL902",
                        "front matter is not a mapping",
                        source_line=self.line(fm_line),
                    )
                )
            elif isinstance(loaded, Mapping):
                meta = loaded
                parse_front_matter(self.path, meta, fm_line, self.sup)
                self.agent_file(meta, fm_line)
                desc = meta.get("description")
                if isinstance(desc, str):
                    self.flag_volatile(
                        desc, fm_line, "agent description (part of the tool definitions)"
                    )
        if _is_user_file(self.path, meta) or _is_command_file(self.path, meta):
            return
        where = "agent's system prompt" if meta and "name" in meta else "prompt prefix"
        # .mdc: Cursor's rule files (Markdown with front matter).
        markdown = PurePath(self.path).suffix.lower() in (".md", ".markdown", ".mdc")
        if markdown:
            body = _blank_fences(body)
        # An agent file's body (front matter, or a file in an agent folder) is sent as written.
        literal = markdown and (meta is not None or _in_agent_folder(self.path))
        self.flag_volatile(body, body_line, where, single_brace=not literal)
        self.layout(body, body_line, single_brace=not literal)

    def structured(self, data: Any, locate: Any) -> None:
        for path, value in _strings(data, ()):
            if not isinstance(value, str) or not _PLACEHOLDER.search(value):
                continue
            where = _structured_where(data, path)
            if where is None:
                continue
            line0, col = locate(value)
            self.flag_volatile(value, line0, where, col_shift=col)
            if where in ("system prompt", "instructions"):
                self.layout(value, line0)

    def yaml_file(self) -> None:
        try:
            docs = list(yaml.safe_load_all(self.text))
        except yaml.YAMLError as exc:
            mark = getattr(exc, "problem_mark", None)
            line = (mark.line + 1) if mark is not None else 1
            self.out.append(
                Finding(
                    self.path,
                    line,
                    1,
                    "PL902",
                    f"invalid YAML: {getattr(exc, 'problem', None) or exc}",
                    source_line=self.line(line),
                )
            )
            return
        for data in docs:
            if isinstance(data, Mapping):
                parse_front_matter(self.path, data, 1, self.sup)
            self.structured(data, self._locate)

    def toml_file(self) -> None:
        try:
            data = tomllib.loads(self.text)
        except tomllib.TOMLDecodeError as exc:
            m = re.search(r"line (\d+)", str(exc))
            line = int(m.group(1)) if m else 1
            self.out.append(
                Finding(
                    self.path, line, 1, "PL902", f"invalid TOML: {exc}", source_line=self.line(line)
                )
            )
            return
        self.structured(data, self._locate)

    def json_file(self) -> Any:
        try:
            data = json.loads(self.text)
        except json.JSONDecodeError as exc:
            self.out.append(
                Finding(
                    self.path,
                    exc.lineno,
                    exc.colno,
                    "PL902",
                    f"invalid JSON: {exc.msg}",
                    source_line=self.line(exc.lineno),
                )
            )
            return None
        self.structured(data, self._locate)
        self.tool_order(data)
        return data

    def _locate(self, value: str) -> tuple[int, int]:
        """Line and column shift of a string value in the raw text (first 40 chars)."""
        first = value.split("\n", 1)[0][:40]
        for probe in (first, json.dumps(first)[1:-1]):
            if not probe.strip():
                continue
            idx = self.text.find(probe)
            if idx >= 0:
                line = self.text.count("\n", 0, idx) + 1
                col = idx - (self.text.rfind("\n", 0, idx) + 1)
                return line, col
        return 1, 0

    # --- PL204 ---

    def tool_order(self, data: Any) -> None:
        tools: list[Any] | None = None
        if isinstance(data, Mapping) and isinstance(data.get("tools"), list):
            tools = data["tools"]
        elif isinstance(data, list) and data and all(_is_tool(t) for t in data):
            tools = data
        if not tools or not all(isinstance(t, Mapping) for t in tools):
            return
        names = [_tool_name(t) for t in tools]
        unsorted = names != sorted(names)
        schema_unsorted = any(not _keys_sorted(_schema(t)) for t in tools)
        if not (unsorted or schema_unsorted):
            return
        fixed = _canonical_tools(data)
        indent = _indent_of(self.text)
        new_text = json.dumps(fixed, indent=indent, ensure_ascii=False) + "\n"
        what = "tools are not sorted by name" if unsorted else "schema keys are not sorted"
        line, _ = self._locate('"tools"') if isinstance(data, Mapping) else (1, 0)
        idx = self.text.find('"tools"')
        line = self.text.count("\n", 0, idx) + 1 if idx >= 0 else 1
        self.out.append(
            Finding(
                self.path,
                line,
                1,
                "PL204",
                f"{what}; canonical order keeps the prefix bytes stable",
                source_line=self.line(line),
                fix=Fix(
                    (), safe=True, description="sort tools and schema keys", whole_file=new_text
                ),
            )
        )


_IF_TAG = re.compile(r"\{%-?\s*if\b(?P<cond>.*?)-?%\}", re.S)
_BLOCK_TAG = re.compile(r"\{%-?\s*(?P<kw>if|elif|else|endif)\b.*?-?%\}", re.S)
_MODE_WORDS = frozenset(
    {
        "mode",
        "plan",
        "act",
        "persona",
        "variant",
        "role",
        "style",
        "agent",
        "kind",
        "type",
        "is",
        "use",
        "enable",
        "enabled",
        "allow",
        "strict",
        "debug",
        "verbose",
        "reasoning",
        "thinking",
        "flavor",
        "profile",
    }
)


def _mode_switch(text: str) -> bool:
    """Whether `text` opens with an `{% if %}` that picks between modes: one with an
    else/elif branch, or whose condition names a mode or flag. `{% if data %}...{% endif %}`
    around optional content is not a mode (its bytes change only with the data)."""
    m = _IF_TAG.match(text)
    if m is None:
        return False
    if any(w in _MODE_WORDS for ident in _IDENT.findall(m.group("cond")) for w in words(ident)):
        return True
    depth = 0
    for tag in _BLOCK_TAG.finditer(text):
        kw = tag.group("kw")
        if kw == "if":
            depth += 1
        elif kw == "endif":
            depth -= 1
            if depth == 0:
                return False
        elif depth == 1:
            return True
    return False


_FENCE = re.compile(r"^(```|~~~).*?^\1[ \t]*$", re.M | re.S)


def _blank_fences(text: str) -> str:
    """Markdown code blocks are quoted text, not template slots: blank them, keeping lines."""
    return _FENCE.sub(lambda m: re.sub(r"[^\n]", " ", m.group(0)), text)


def _strings(data: Any, path: tuple[Any, ...]) -> Iterator[tuple[tuple[Any, ...], Any]]:
    if isinstance(data, Mapping):
        for k, v in data.items():
            yield from _strings(v, (*path, k))
    elif isinstance(data, list):
        for i, v in enumerate(data):
            yield from _strings(v, (*path, i))
    else:
        yield path, data


def _structured_where(root: Any, path: tuple[Any, ...]) -> str | None:
    """Where a string at `path` of a prompt config ends up, or None if not in the prefix."""
    keys = [str(p) for p in path if isinstance(p, str)]
    if any(_USER_KEY.search(k) for k in keys):
        return None
    # A messages list: the last message is the newest turn; tool results are appended facts.
    for i, p in enumerate(path):
        if p in ("messages", "input") and i + 1 < len(path) and isinstance(path[i + 1], int):
            node: Any = root
            for q in path[: i + 1]:
                node = node[q]
            idx = path[i + 1]
            msg = node[idx]
            if idx == len(node) - 1:
                return None
            role = msg.get("role") if isinstance(msg, Mapping) else None
            rest = [str(x) for x in path[i + 2 :]]
            if "tool_result" in json.dumps(msg) or role == "tool":
                return None
            if role in ("system", "developer"):
                return f"{role} message"
            _ = rest
            return f"earlier {role or 'message'} message {idx}"
    if "tools" in keys or "functions" in keys:
        # Only what a tool definition says (its description, its signature); other settings
        # kept under `tools` (messages shown on submit, environment variables) are not sent
        # as definitions.
        if keys[-1].lower() in _TOOL_TEXT_KEYS:
            return "tool definitions"
        return None
    if any(k.lower() in ("instructions",) for k in keys):
        return "instructions"
    if not keys or any(_PREFIX_KEYS.match(k) for k in keys):
        return "system prompt"
    return None


def _is_tool(t: Any) -> bool:
    return (
        isinstance(t, Mapping)
        and "name" in t
        and bool({"input_schema", "parameters", "inputSchema"} & set(t))
    ) or (isinstance(t, Mapping) and isinstance(t.get("function"), Mapping))


def _tool_name(t: Mapping[str, Any]) -> str:
    fn = t.get("function")
    if isinstance(fn, Mapping):
        return str(fn.get("name", ""))
    return str(t.get("name", ""))


def _schema(t: Mapping[str, Any]) -> Any:
    fn = t.get("function")
    src = fn if isinstance(fn, Mapping) else t
    return src.get("input_schema", src.get("parameters", src.get("inputSchema", {})))


def _keys_sorted(v: Any) -> bool:
    if isinstance(v, Mapping):
        keys = list(v)
        return keys == sorted(keys) and all(_keys_sorted(x) for x in v.values())
    if isinstance(v, list):
        return all(_keys_sorted(x) for x in v)
    return True


def _sort_keys(v: Any) -> Any:
    if isinstance(v, Mapping):
        return {k: _sort_keys(v[k]) for k in sorted(v)}
    if isinstance(v, list):
        return [_sort_keys(x) for x in v]
    return v


def _canonical_tool(t: Mapping[str, Any]) -> dict[str, Any]:
    out = dict(t)
    fn = t.get("function")
    if isinstance(fn, Mapping):
        fn2 = dict(fn)
        for k in ("parameters", "input_schema"):
            if k in fn2:
                fn2[k] = _sort_keys(fn2[k])
        out["function"] = fn2
    for k in ("input_schema", "parameters", "inputSchema"):
        if k in out:
            out[k] = _sort_keys(out[k])
    return out


def _canonical_tools(data: Any) -> Any:
    if isinstance(data, Mapping):
        new = dict(data)
        new["tools"] = sorted((_canonical_tool(t) for t in data["tools"]), key=_tool_name)
        return new
    return sorted((_canonical_tool(t) for t in data), key=_tool_name)


def _indent_of(text: str) -> int:
    m = re.search(r"\n( +)\S", text)
    return len(m.group(1)) if m else 2


def check_text(
    path: str,
    text: str,
    model: str | None = None,
    prices: PriceTable | None = None,
    sup: Suppressions | None = None,
) -> tuple[list[Finding], Any]:
    """Lint one prompt/template/data file. Returns findings and parsed JSON data (if any)."""
    checker = _TextChecker(path, text, model, prices, sup or Suppressions())
    suffix = PurePath(path).suffix.lower()
    data: Any = None
    if suffix in (".yaml", ".yml"):
        checker.yaml_file()
    elif suffix == ".toml":
        checker.toml_file()
    elif suffix == ".json":
        data = checker.json_file()
    else:
        checker.markup()
    return checker.out, data


TEXT_SUFFIXES = frozenset({*_TEXT_EXT, ".yaml", ".yml", ".toml", ".json"})
