"""Python 3.12 f-strings (PEP 701) written so that Python 3.11's parser reads them. Since 3.12
an f-string's replacement fields may reuse its quotes (`f'{d['key']}'`), hold backslashes
(`f"{'\\n'.join(xs)}"`), comments, and line breaks in a single-quoted f-string; an older
interpreter's `ast` rejects the whole file, so none of it would be linted. `downlevel` rewrites
each such f-string to an equivalent the older grammar takes, keeping every line where it is:
a nested string that clashes takes the other quote or is spelt as a sum of pieces and `chr(n)`
calls, a comment becomes spaces, and a single-quoted f-string with a line break in a field
becomes triple-quoted. Columns on a rewritten line may move by a few characters. None when the
text holds nothing to rewrite or a string it cannot spell otherwise. Pure: text in, text out.
"""

# pure: imports no I/O (tests/test_layout.py checks it)

from __future__ import annotations

import ast
from dataclasses import dataclass, field

_PREFIX = frozenset("rRbBuUfF")


class _Unsupported(Exception):
    """A string this rewrite cannot spell for the older grammar."""


@dataclass
class _Str:
    """A string literal: its source span, prefix and quote, and for an f-string its literal
    text and fields in order."""

    start: int
    end: int
    prefix: str
    quote: str
    parts: list[str | _Field] = field(default_factory=list)

    @property
    def is_f(self) -> bool:
        return "f" in self.prefix.lower()


@dataclass
class _Field:
    """A replacement field: its expression as code and nested strings, then its conversion
    and format spec (`!r:>{width}`) as text and fields."""

    code: list[str | _Str] = field(default_factory=list)
    tail: list[str | _Field] = field(default_factory=list)


def downlevel(text: str) -> str | None:
    try:
        out, changed = _Scanner(text).module()
    except (_Unsupported, IndexError, SyntaxError, ValueError, RecursionError):
        return None
    return out if changed else None


class _Scanner:
    def __init__(self, text: str) -> None:
        self.t = text
        self.changed = False

    def module(self) -> tuple[str, bool]:
        out: list[str] = []
        i = 0
        t = self.t
        while i < len(t):
            c = t[i]
            if c == "#":
                j = t.find("\n", i)
                j = len(t) if j < 0 else j
                out.append(t[i:j])
                i = j
            elif self._string_start(i):
                s = self.string(i)
                out.append(self.emit(s, None) if s.is_f else t[s.start : s.end])
                i = s.end
            else:
                out.append(c)
                i += 1
        return "".join(out), self.changed

    def _string_start(self, i: int) -> bool:
        """A string literal starts at `i`: a quote, or a prefix of at most two letters then
        one, not inside a name."""
        t = self.t
        if i > 0 and (t[i - 1].isalnum() or t[i - 1] == "_"):
            return False
        j = i
        while j < len(t) and j - i < 3 and t[j] in _PREFIX:
            j += 1
        return j < len(t) and t[j] in "'\"" and j - i <= 2

    def string(self, i: int) -> _Str:
        t = self.t
        j = i
        while t[j] in _PREFIX:
            j += 1
        prefix = t[i:j]
        quote = t[j : j + 3] if t[j : j + 3] in ('"""', "'''") else t[j]
        s = _Str(i, 0, prefix, quote)
        raw = "r" in prefix.lower()
        k = j + len(quote)
        if not s.is_f:
            while not t.startswith(quote, k):
                if t[k] == "\\" and not raw:
                    k += 1
                elif t[k] == "\\":
                    k += 1  # a raw string still escapes its quote
                elif t[k] == "\n" and len(quote) == 1:
                    raise _Unsupported("an unterminated string")
                k += 1
            s.end = k + len(quote)
            return s
        k = self.literal(k, quote, raw, s.parts, in_spec=False)
        s.end = k + len(quote)
        return s

    def literal(
        self, k: int, quote: str, raw: bool, parts: list[str | _Field], in_spec: bool
    ) -> int:
        """An f-string's literal text and fields from `k` up to its closing quote (or, in a
        format spec, the field's closing brace); returns where that stops."""
        t = self.t
        buf: list[str] = []
        while True:
            if in_spec and t[k] == "}":
                break
            if not in_spec and t.startswith(quote, k):
                break
            c = t[k]
            if c == "\\" and not raw:
                buf.append(t[k : k + 2])
                k += 2
                continue
            if c in "{}" and t[k + 1 : k + 2] == c and not in_spec:
                buf.append(c * 2)
                k += 2
                continue
            if c == "{":
                parts.append("".join(buf))
                buf = []
                f = _Field()
                k = self.field_(k + 1, quote, raw, f)
                parts.append(f)
                continue
            if c == "\n" and len(quote) == 1 and not in_spec:
                raise _Unsupported("an unterminated f-string")
            buf.append(c)
            k += 1
        parts.append("".join(buf))
        return k

    def field_(self, k: int, quote: str, raw: bool, f: _Field) -> int:
        """A field's expression from `k`, then its conversion and spec; returns the index
        past its closing brace."""
        t = self.t
        depth = 0
        buf: list[str] = []
        while True:
            c = t[k]
            if self._string_start(k) and (c in "'\"" or t[k] in _PREFIX):
                f.code.append("".join(buf))
                buf = []
                s = self.string(k)
                f.code.append(s)
                k = s.end
                continue
            if c == "#":
                j = t.find("\n", k)
                if j < 0:
                    raise _Unsupported("a field left open at the end of the file")
                buf.append(" " * (j - k))
                self.changed = True
                k = j
                continue
            if c in "([{":
                depth += 1
            elif c in ")]" or (c == "}" and depth > 0):
                depth -= 1
            elif depth == 0 and (
                c == "}" or (c == "!" and t[k + 1] != "=") or (c == ":" and t[k + 1] != "=")
            ):
                break
            buf.append(c)
            k += 1
        f.code.append("".join(buf))
        if t[k] == "}":
            return k + 1
        spec: list[str | _Field] = []
        k = self.literal(k, quote, raw, spec, in_spec=True)
        f.tail = spec
        return k + 1

    def emit(self, s: _Str, outer: str | None) -> str:
        """`s` written for the older grammar inside a field of an f-string quoted `outer`
        (None: at the top level)."""
        if not s.is_f:
            src = self.t[s.start : s.end]
            if outer is None or (outer[0] not in src and "\\" not in src and "\n" not in src):
                return src
            self.changed = True
            return _spelt(ast.literal_eval(src), outer)
        quote = s.quote
        if outer is not None and (quote[0] == outer[0] or len(quote) >= len(outer)):
            quote = "'" if outer[0] == '"' else '"'  # the inner f-string takes the other quote
            self.changed = True
        if len(quote) == 1 and any("\n" in _code_text(p) for p in s.parts if isinstance(p, _Field)):
            if outer is not None:
                raise _Unsupported("a line break in a nested f-string")
            quote *= 3
            self.changed = True
        body = "".join(self.emit_part(p, quote) for p in s.parts)
        if outer is not None and ("\\" in body or outer[0] in body):
            raise _Unsupported("an escape in a nested f-string")
        return f"{s.prefix}{quote}{body}{quote}"

    def emit_part(self, p: str | _Field, quote: str) -> str:
        if isinstance(p, str):
            return p
        code = "".join(c if isinstance(c, str) else self.emit(c, quote) for c in p.code)
        return "{" + code + "".join(self.emit_part(x, quote) for x in p.tail) + "}"


def _code_text(f: _Field) -> str:
    return "".join(c for c in f.code if isinstance(c, str))


def _spelt(value: object, outer: str) -> str:
    """A string's value as an expression with no backslash, no line break and no `outer`
    quote character: quoted runs and `chr(n)` joined by `+`."""
    if not isinstance(value, str):
        raise _Unsupported("a bytes literal in a field")
    q = "'" if outer[0] == '"' else '"'
    pieces: list[str] = []
    run: list[str] = []
    for ch in value:
        if ch in ("\\", "\n", "\r", q, outer[0]) or not ch.isprintable():
            if run:
                pieces.append(q + "".join(run) + q)
                run = []
            pieces.append(f"chr({ord(ch)})")
        else:
            run.append(ch)
    if run or not pieces:
        pieces.append(q + "".join(run) + q)
    return pieces[0] if len(pieces) == 1 else "(" + " + ".join(pieces) + ")"
