"""`@path` mentions in a chat message: the mentioned files' content goes with the message.

The content is read through the workspace (confined to its root, special files refused, large
files streamed and cut like `read_file`) and appended to the user message the model gets; it
never enters the frozen prefix, so mentioning files changes no cached byte. A mention that is
not a workspace path (`@bob`, an e-mail address) is left as typed.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from prefixlock.coding.workspace import Workspace
from prefixlock.errors import PrefixlockError

# A mention starts a word; trailing punctuation of the sentence is not part of the path.
_MENTION = re.compile(r"(?:^|(?<=\s))@([^\s]+)")
_TRAILING = ",.;:!?)]}'\""
MAX_FILES = 10  # mentions attached per message: more is a typo or a job for the tools


@dataclass(frozen=True)
class Expanded:
    """The message to send, the paths attached, and what could not be attached (said to the
    user; the model gets the message as typed for those)."""

    message: str
    attached: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)


def mentioned(text: str) -> list[str]:
    """The `@path` words of `text`, in order, each once, trailing punctuation dropped."""
    out: list[str] = []
    for m in _MENTION.finditer(text):
        path = m.group(1).rstrip(_TRAILING)
        if path and path not in out:
            out.append(path)
    return out


def expand_mentions(text: str, workspace: Workspace) -> Expanded:
    """`text` followed by one `<file path=...>` block per mentioned file or folder (its lines
    numbered as `read_file` shows them, a folder as its listing). Blocking (reads files)."""
    attached: list[str] = []
    problems: list[str] = []
    blocks: list[str] = []
    for path in mentioned(text):
        try:
            real = workspace.resolve(path)
        except PrefixlockError as exc:
            problems.append(f"@{path}: not attached ({exc})")
            continue
        if not real.exists():
            if "/" in path or "." in path:  # looked like a path: say so; `@bob` stays quiet
                problems.append(f"@{path}: no such file in the workspace; sent as typed")
            continue
        if len(attached) >= MAX_FILES:
            problems.append(f"@{path}: not attached (at most {MAX_FILES} files per message)")
            continue
        rel = workspace.relative(real)
        try:
            body = workspace.list_dir(path) if real.is_dir() else workspace.read(path)
        except PrefixlockError as exc:
            problems.append(f"@{path}: not attached ({exc})")
            continue
        kind = "folder" if real.is_dir() else "file"
        blocks.append(f'<{kind} path="{rel}">\n{body}\n</{kind}>')
        attached.append(rel)
    if not blocks:
        return Expanded(text, attached, problems)
    message = text + "\n\nMentioned files, as read now:\n" + "\n".join(blocks)
    return Expanded(message, attached, problems)
