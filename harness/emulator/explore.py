"""The scripted model's generic explorer: useful answers with whatever tools a request offers.

A script with `explore: true` (such as `EXPLORER`, which `prefixlock run` uses on the emulator)
does not need to know the client's tool names. For each user turn it looks around with the
tools it is offered, in this order and only where one fits:

1. list the top directory (a tool named like list_dir / list_files / ls),
2. search for a term taken from the user's text (grep / search), or glob for it,
3. read one file (read_file / read / cat): a listed file whose name holds the term, else the
   first file the search found, else the first listed file,

then answers with a short summary quoting what each tool returned. Arguments are filled from
each tool's input schema (path-like fields get "." or the file, pattern-like ones the term).
Every decision depends on the request body only (the user's text, the offered tools, the tool
results so far), so the same request always gets the same reply.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

LIST_TOOLS = ("list_dir", "list_files", "list_directory", "ls")
SEARCH_TOOLS = ("grep", "search", "search_files", "find_in_files")
GLOB_TOOLS = ("glob", "find_files")
READ_TOOLS = ("read_file", "read", "cat", "open_file", "view_file")

PATH_FIELDS = ("path", "file", "file_path", "filename", "dir", "directory")
PATTERN_FIELDS = ("pattern", "query", "regex", "term", "text")

STOPWORDS = frozenset(
    [
        "this",
        "that",
        "there",
        "these",
        "those",
        "what",
        "where",
        "which",
        "when",
        "whom",
        "whose",
        "with",
        "from",
        "into",
        "about",
        "does",
        "have",
        "here",
        "show",
        "tell",
        "find",
        "look",
        "read",
        "file",
        "files",
        "list",
        "give",
        "please",
        "could",
        "would",
        "should",
        "their",
        "them",
        "they",
        "then",
        "than",
        "your",
        "what's",
        "explain",
        "describe",
        "summarize",
        "summarise",
        "project",
        "repository",
        "directory",
        "folder",
        "code",
        "work",
        "works",
        "working",
        "mean",
        "means",
    ]
)


def _first(names: Sequence[str], offered: Sequence[str]) -> str | None:
    for name in names:
        if name in offered:
            return name
    return None


def task_term(text: str, listing: str = "") -> str | None:
    """The word of the user's text to search for: one that names a listed entry if any, else
    the longest (first of equals). Identifiers of 4+ characters, common words left out."""
    words: list[str] = [
        str(w) for w in re.findall(r"[A-Za-z_][A-Za-z0-9_]{3,}", text) if w.lower() not in STOPWORDS
    ]
    if not words:
        return None
    low = listing.lower()
    for word in words:
        if low and word.lower() in low:
            return word
    return max(words, key=len)


def _arguments(
    schema: Mapping[str, Any] | None, path: str | None, pattern: str | None
) -> dict[str, Any] | None:
    """Fill a tool's required fields; None when one cannot be filled (the tool is skipped)."""
    props = (schema or {}).get("properties") or {}
    required = list((schema or {}).get("required") or [])
    if not props:  # no schema: the common field names
        out: dict[str, Any] = {}
        if pattern is not None:
            out["pattern"] = pattern
        if path is not None:
            out["path"] = path
        return out
    out = {}
    for name in props:
        if name in PATTERN_FIELDS and pattern is not None:
            out[name] = pattern
        elif name in PATH_FIELDS and path is not None:
            out[name] = path
        elif name in required:
            return None
    if any(name not in out for name in required):
        return None
    return out


def _listed_files(listing: str) -> list[str]:
    return [
        line.strip()
        for line in listing.splitlines()
        if line.strip()
        and not line.strip().endswith("/")
        and "->" not in line
        and not line.startswith("(")
    ]


def _hit_files(found: str) -> list[str]:
    """File paths in grep output (`path:line: text`) or glob output (one path a line)."""
    files: list[str] = []
    for line in found.splitlines():
        m = re.match(r"([^:\s][^:]*):\d+:", line)
        path = (
            m.group(1) if m else (line.strip() if re.fullmatch(r"[\w./-]+", line.strip()) else "")
        )
        if path and path not in files:
            files.append(path)
    return files


def _head(text: str, lines: int = 3, width: int = 160) -> str:
    rows = [" ".join(r.split()) for r in text.splitlines() if r.strip()][:lines]
    return " | ".join(r if len(r) <= width else r[: width - 3] + "..." for r in rows)


def _plan(
    user_text: str,
    offered: Sequence[str],
    schemas: Mapping[str, Mapping[str, Any]],
    results: Sequence[str],
) -> list[tuple[str, dict[str, Any]]]:
    """The calls made so far plus the next one (as many as there are results, plus one)."""
    calls: list[tuple[str, dict[str, Any]]] = []

    def result(i: int) -> str:
        return results[i] if i < len(results) else ""

    listing = ""
    lister = _first(LIST_TOOLS, offered)
    if lister is not None:
        args = _arguments(schemas.get(lister), ".", None)
        if args is not None:
            calls.append((lister, args))
            if len(results) < len(calls):
                return calls
            listing = result(len(calls) - 1)
    term = task_term(user_text, listing)
    found = ""
    searcher = _first(SEARCH_TOOLS, offered)
    globber = _first(GLOB_TOOLS, offered)
    if term is not None and (searcher is not None or globber is not None):
        tool = searcher if searcher is not None else globber
        assert tool is not None
        pattern = re.escape(term) if tool == searcher else f"**/*{term}*"
        args = _arguments(schemas.get(tool), ".", pattern)
        if args is not None:
            calls.append((tool, args))
            if len(results) < len(calls):
                return calls
            found = result(len(calls) - 1)
    reader = _first(READ_TOOLS, offered)
    if reader is not None:
        listed = _listed_files(listing)
        named = [f for f in listed if term is not None and term.lower() in f.lower()]
        candidates = named + _hit_files(found) + listed
        if candidates:
            args = _arguments(schemas.get(reader), candidates[0], None)
            if args is not None:
                calls.append((reader, args))
    return calls


def next_call(
    user_text: str,
    offered: Sequence[str],
    schemas: Mapping[str, Mapping[str, Any]],
    results: Sequence[str],
) -> tuple[str, dict[str, Any]] | None:
    """The explorer's next tool call after `results`, or None when it is time to answer."""
    calls = _plan(user_text, offered, schemas, results)
    return calls[len(results)] if len(results) < len(calls) else None


def answer(
    user_text: str,
    offered: Sequence[str],
    schemas: Mapping[str, Mapping[str, Any]],
    results: Sequence[str],
) -> str:
    """The closing summary: what each call returned, quoted briefly."""
    calls = _plan(user_text, offered, schemas, results)[: len(results)]
    if not calls:
        return (
            "I have no tools to look around with here, so I cannot check the workspace. "
            "(Scripted reply from the prefixlock emulator.)"
        )
    lines = ["Here is what the tools returned:"]
    for (tool, args), out in zip(calls, results, strict=False):
        shown = ", ".join(f"{k}={v!r}" for k, v in args.items())
        if tool in LIST_TOOLS:
            entries = [r.strip() for r in out.splitlines() if r.strip()]
            more = f" (+{len(entries) - 12} more)" if len(entries) > 12 else ""
            lines.append(f"- {tool}({shown}): {', '.join(entries[:12])}{more}")
        else:
            count = len([r for r in out.splitlines() if r.strip()])
            lines.append(f"- {tool}({shown}): {count} line(s); {_head(out)}")
    lines.append(
        "That is all I looked at. (Scripted reply from the prefixlock emulator: it explores "
        "with the tools it is offered and quotes them; it does not reason about them.)"
    )
    return "\n".join(lines)
