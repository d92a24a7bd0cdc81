"""PL102 in either language: a local model's chat template that dates its own system header.

A Jinja chat template written into the source (Llama 3.1's, set on a tokenizer with
`tok.chat_template = ...`) that calls `strftime_now(...)` inside a tag renders today's date into
the text ahead of every message it formats (`Today Date: 26 Jul 2024` in the system header): the
prompt's first tokens change at midnight and a server's cached prefix is lost each day, as a
date written into a system prompt is. The text is read as the source holds it, so the same scan
serves Python and TypeScript files; a template counts only where the text also marks a chat
template (`add_generation_prompt`, a role header, the message loop). A project that hands the
template its own `date_string` (`apply_chat_template(..., date_string="...")`) picks the date
itself and is not reported. Pure: text in, findings out.
"""

# pure: imports no I/O (tests/test_layout.py checks it)

from __future__ import annotations

import re

from .findings import Finding, source_lines

_TAG = re.compile(r"\{\{.*?\}\}|\{%.*?%\}", re.S)
_CLOCK = re.compile(r"\bstrftime_now\s*\(")
# What only a chat template holds: the flag that opens the reply, a model's role header, the
# loop over the conversation's messages.
_CHAT = re.compile(
    r"add_generation_prompt|<\|start_header_id\|>|<\|im_start\|>|\bfor\s+\w+\s+in\s+messages\b"
)
# The date handed to the template by its caller (outside a tag): a keyword or an object key.
_DATE_GIVEN = re.compile(r"""\bdate_string\b['"]?\s*[=:](?!=)""")

_WHY = (
    "a chat template renders today's date (`{}`) into the text ahead of every message it "
    "formats: the prompt's first tokens change at midnight, so a long-running server loses its "
    "cached prefix each day; hand the template a fixed `date_string`, or put the date in the "
    "newest user message"
)


def check_dated_chat_templates(path: str, text: str) -> list[Finding]:
    """One PL102 a template tag that calls `strftime_now`, where the file holds a chat template
    and hands it no date of its own."""
    if "strftime_now" not in text or not _CHAT.search(text):
        return []
    if _DATE_GIVEN.search(_TAG.sub("", text)):
        return []  # the caller fills `date_string`, so the template's clock is never read
    lines = source_lines(text)
    found: list[Finding] = []
    for tag in _TAG.finditer(text):
        clock = _CLOCK.search(tag.group())
        if clock is None:
            continue
        start = tag.start() + clock.start()
        line = text.count("\n", 0, start) + 1
        col = start - (text.rfind("\n", 0, start) + 1) + 1
        call = tag.group()[clock.start() :].split(")", 1)[0] + ")"
        found.append(
            Finding(
                path,
                line,
                col,
                "PL102",
                _WHY.format(" ".join(call.split())),
                source_line=lines[line - 1] if line <= len(lines) else "",
            )
        )
    return found
