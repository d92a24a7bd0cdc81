"""`@path` mentions in a chat message: the mentioned files' content goes with the message.

An image (`@shots/bug.png`, or the path a terminal types when a file is dropped on it:
`/home/me/Desktop/shot.png`, quoted or with escaped spaces) goes with the message as an image
(prefixlock.media.Image), as Claude Code attaches a dropped screenshot. A dropped image may
live outside the workspace: the user put its path there, so it is read (images only; any
other file outside the workspace is refused, as `read_file` refuses it).

The content is read through the workspace (confined to its root, special files refused, large
files streamed and cut like `read_file`) and appended to the user message the model gets; it
never enters the frozen prefix, so mentioning files changes no cached byte. A mention that is
not a workspace path (`@bob`, an e-mail address) is left as typed.
"""

from __future__ import annotations

import os
import re
import shlex
from dataclasses import dataclass, field
from pathlib import Path

from prefixlock.coding.workspace import Workspace
from prefixlock.errors import PrefixlockError
from prefixlock.media import Image

# A mention starts a word; trailing punctuation of the sentence is not part of the path.
_MENTION = re.compile(r"(?:^|(?<=\s))@([^\s]+)")
_TRAILING = ",.;:!?)]}'\""
MAX_FILES = 10  # mentions attached per message: more is a typo or a job for the tools
IMAGE_SUFFIXES = (".png", ".jpg", ".jpeg", ".gif", ".webp")
MAX_IMAGE_BYTES = 5_000_000  # Anthropic's limit per image (docs/providers.md)
# A dropped file's path as terminals type it: absolute or ~/, quoted or with `\ ` escapes.
_DROPPED = re.compile(r"""(?:^|(?<=\s))('[^']+'|"[^"]+"|(?:~|/)(?:\\ |[^\s])+)""")


@dataclass(frozen=True)
class Expanded:
    """The message to send, the paths attached, and what could not be attached (said to the
    user; the model gets the message as typed for those)."""

    message: str
    attached: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    images: list[Image] = field(default_factory=list)


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
    images: list[Image] = []
    for dropped in dropped_images(text):
        image = _image(dropped, str(dropped), problems)
        if image is not None:
            images.append(image)
            attached.append(f"{dropped} (image)")
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
        if real.suffix.lower() in IMAGE_SUFFIXES:
            image = _image(real, f"@{path}", problems)
            if image is not None:
                images.append(image)
                attached.append(f"{rel} (image)")
            continue
        try:
            body = workspace.list_dir(path) if real.is_dir() else workspace.read(path)
        except PrefixlockError as exc:
            problems.append(f"@{path}: not attached ({exc})")
            continue
        kind = "folder" if real.is_dir() else "file"
        blocks.append(f'<{kind} path="{rel}">\n{body}\n</{kind}>')
        attached.append(rel)
    if not blocks:
        return Expanded(text, attached, problems, images)
    message = text + "\n\nMentioned files, as read now:\n" + "\n".join(blocks)
    return Expanded(message, attached, problems, images)


def dropped_images(text: str) -> list[Path]:
    """The image files whose absolute (or `~/`) path `text` holds, as a terminal types a
    dropped file; each once, in order. Words that are not existing image files are left."""
    found: list[Path] = []
    for m in _DROPPED.finditer(text):
        word = m.group(1)
        try:
            parts = shlex.split(word)
        except ValueError:
            continue
        if len(parts) != 1 or not parts[0].lower().endswith(IMAGE_SUFFIXES):
            continue
        path = Path(os.path.expanduser(parts[0]))
        if path.is_absolute() and path.is_file() and path not in found:
            found.append(path)
    return found


def _image(path: Path, shown: str, problems: list[str]) -> Image | None:
    """The image at `path`, or None with the reason in `problems` (too big, not an image)."""
    try:
        size = path.stat().st_size
        if size > MAX_IMAGE_BYTES:
            problems.append(f"{shown}: not attached ({size:,} bytes; at most {MAX_IMAGE_BYTES:,})")
            return None
        return Image.from_path(path)
    except (OSError, PrefixlockError) as exc:
        problems.append(f"{shown}: not attached ({exc})")
        return None
