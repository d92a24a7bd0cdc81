"""Which request a finding's value reaches, and whether that request is a conversation's.

A volatile value or a prompt chosen per request breaks a cache only where a later request reads
the same prefix again: a conversation (messages appended across turns, a history loaded or
handed in, a chat or agent object that keeps one). A one-shot request (a fresh system and user
pair built per call) has no later request reading its prefix; a test function's value reaches
an assertion; a copy of a prompt written to a record (a serialiser, an audit or log form) is
sent nowhere. Each front end finds the request sites of a file and the functions a value
passes through (`pycheck.reach`, `jscheck.reach`); this module holds what they share: the
site's verdict and the decision for a finding. Where the analysis cannot decide (no site seen,
a call it does not know), the finding is kept. Pure: names and sites in, a verdict out.
"""

# pure: imports no I/O (tests/test_layout.py checks it)

from __future__ import annotations

import re
from dataclasses import dataclass

from .findings import Finding
from .meaning import words

CONVERSATION = "conversation"
ONE_SHOT = "one-shot"


@dataclass(frozen=True)
class Site:
    """One request a value reaches: its line, its kind (CONVERSATION or ONE_SHOT) and why."""

    line: int
    kind: str
    reason: str


# The codes decided by the request a value reaches: a value in a prompt (PL1xx, PL2xx), a prompt
# picked by a mode (PL302) and the current request written into a prompt (PL304). Not the
# history's own shapes (PL303: a window is cut from a conversation by definition) nor a side
# request (PL305: a one-shot request is what it reports).
_DECIDED = ("PL1", "PL2", "PL302", "PL304")


def decided_by_reach(code: str) -> bool:
    return code.startswith(_DECIDED)


def one_shot_only(sites: list[Site]) -> bool:
    """Whether every request seen is one-shot (none seen: unknown, so not)."""
    return bool(sites) and all(s.kind == ONE_SHOT for s in sites)


# A function named for testing (`test_prompt`, `testBuildsPrompt`) hands its values to an
# assertion, not to a model.
def is_test_name(name: str) -> bool:
    ws = words(name)
    return bool(ws) and ws[0] == "test"


# A function named for writing a record of a prompt (`serialize_system_prompt`,
# `auditSystemPrompt`, `dump_prompt`): the prompt it is handed was built, and is sent,
# elsewhere; the copy it makes goes to a journal or a log.
_RECORDING = frozenset(
    {"serialize", "serialise", "dump", "audit", "log", "export", "encode", "persist", "record"}
)


def records_only(name: str) -> bool:
    ws = words(name)
    return bool(ws) and ws[0] in _RECORDING


def keep(found: list[Finding], unsent: set[int]) -> list[Finding]:
    """`found` less the findings (by index) whose value reaches no conversation."""
    return [f for i, f in enumerate(found) if i not in unsent]


def sink_line(f: Finding) -> int | None:
    """The line of the prompt a finding's value reaches, where its message names it last
    (`flows into the system prompt (returned by build()) (line 275)`)."""
    named = re.findall(r"\(line (\d+)\)", f.message)
    return int(named[-1]) if named else None
