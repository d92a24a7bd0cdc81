"""Functions whose docstring says they return a system prompt.

`def compose_agent_prompt(...)` documented "Compose complete agent system prompt." is read by its
callers as the system prompt of the agent's requests, whatever its name: the author's own word
for what the function returns. Only a summary line or a `Returns:` line whose object is the
system prompt counts, not a mention elsewhere ("the context including the system prompt", an
argument's description).
"""

from __future__ import annotations

import ast
import re

# A summary line whose verb's object is a system prompt: "Compose complete agent system
# prompt.", "Build the system prompt", not "Build the context including the system prompt".
_SUMMARY = re.compile(
    r"(?i)^\W*[a-z]+\s+(?:(?!(?:for|with|from|to|into|of|and|including|by|in|on)\b)[\w-]+\s+)"
    r"{0,4}system[ _-]?prompt\b"
)
# The first line of a `Returns:` section naming a system prompt: "Complete skill system
# prompt with layers.", "str: the system prompt".
_RETURNED = re.compile(
    r"(?i)^(?:[\w\[\]|. ]+:\s*)?(?:(?!(?:for|with|from|to|into|of|and|including|by|in|on)\b)"
    r"[\w-]+\s+){0,4}system[ _-]?prompt\b"
)
_RETURNS = re.compile(r"(?im)^\s*returns?\s*:\s*$")


def returns_system_prompt(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    """Whether `fn`'s docstring says, in its summary line or the first line of its `Returns:`
    section, that it returns (composes, builds) a system prompt."""
    doc = ast.get_docstring(fn)
    if not doc:
        return False
    if _SUMMARY.search(doc.strip().splitlines()[0]):
        return True
    m = _RETURNS.search(doc)
    rest = doc[m.end() :].strip().splitlines() if m is not None else []
    return bool(rest) and _RETURNED.search(rest[0]) is not None
