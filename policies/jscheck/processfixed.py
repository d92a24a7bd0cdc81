"""Values fixed for the life of the process (PL101, PL102, PL105) dropped where the process
outlives no conversation's cache: how often a value is read is decided by where its read runs,
and whether the conversation outlives the process by what kind of program the project is.

- The working directory (`process.cwd()`, read anywhere) in a terminal program (below) that
  never calls `process.chdir`: the same path for every request the process sends, and a CLI
  started in another folder is another conversation. Elsewhere (a server, a library, a page) it
  is still reported: a conversation restored from an earlier process may go on under another.
- A clock read at a module's top level (`const today = dayjs().format(...)` beside a prompt
  constant), read once when the module loads, in a project that runs as a terminal program (it
  reads the terminal: `readline`, `readline-sync`, `inquirer`, `process.stdin`, ...) and serves
  nothing (no web framework, HTTP server, socket server or chat platform SDK): the process is
  the conversation, so every request of it sends the same date. Where the project serves
  requests, or where nothing says which it is (a library, a page), the read is still reported:
  a server's module loaded once serves many conversations over days, and a deploy or a restart
  reads the clock again inside their cache lifetimes.

Reads inside a function (per call, so per request where a request calls it) are left to the
other rules. Pure: a module, the project's words and findings in, findings out.
"""

# pure: imports no I/O (tests/test_layout.py checks it)

from __future__ import annotations

import re
from collections.abc import Callable

from tree_sitter import Node

from ..findings import Finding
from .syntax import FUNCTIONS, walk
from .values import Module
from .valuesite import value_site

_CLOCK_CODES = frozenset({"PL101", "PL102"})
# "... is a filetree value (process.cwd(), line 91) that reaches ...": the working directory.
_CWD = re.compile(r" value \(process\.cwd\(\), line \d+")
# Words of a project that show it reads a terminal: a program run per session at a prompt.
TERMINAL_WORDS = frozenset({"readline", "readlineSync", "inquirer", "enquirer", "stdin"})
# Words of a project that show it serves requests or a chat platform: a process that many
# conversations come back to (imports and calls, as the project's text spells them).
SERVER_WORDS = frozenset(
    {"express", "fastify", "koa", "hono", "createServer", "WebSocketServer", "nestjs"}
    | {"NextResponse", "NextRequest", "elysia", "restify", "hapi", "serve", "socket"}
    | {"discord", "telegraf", "grammy", "bolt", "baileys", "whatsapp", "botbuilder"}
    | {"convex", "firebase", "onRequest", "Router", "router", "httpAction", "listen"}
)
_CHDIR = "chdir"


def drop_fixed_per_process(
    module: Module, found: list[Finding], project: Callable[[], frozenset[str] | None]
) -> list[Finding]:
    """`found` less the findings whose value is fixed for the process that sends them, as the
    module docstring says; `project()` gives the words of the file's project (None: not
    searched, then only what this file shows is known), asked only where it decides."""
    if not any(f.code in _CLOCK_CODES or f.code == "PL105" for f in found):
        return found
    words = project()
    known = words if words is not None else _file_words(module)
    cwd_fixed = _CHDIR not in known
    conversation = bool(known & TERMINAL_WORDS) and not known & SERVER_WORDS
    out: list[Finding] = []
    for f in found:
        if f.code == "PL105" and conversation and cwd_fixed and _CWD.search(f.message):
            continue
        if f.code in _CLOCK_CODES and conversation and _read_at_load(module, f.message):
            continue
        out.append(f)
    return out


def _file_words(module: Module) -> frozenset[str]:
    return frozenset(re.findall(r"[A-Za-z_$][\w$]*", module.src.data.decode("utf-8", "replace")))


def _read_at_load(module: Module, message: str) -> bool:
    """Whether the finding's value is read on a line of its module outside every function
    (`const today = new Date()` at the top level): read once, when the module loads."""
    site = value_site(module, message)
    if site is None or "(the slot " in message or "(by its name)" in message:
        return False
    there, line = site
    return not any(_spans(n, line) for n in walk(there.src.root) if n.type in FUNCTIONS)


def _spans(fn: Node, line: int) -> bool:
    return fn.start_point[0] + 1 <= line <= fn.end_point[0] + 1
