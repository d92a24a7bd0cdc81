"""Ctrl+G: edit the prompt in the user's own editor (`$VISUAL`, else `$EDITOR`, else `vi`), as
Claude Code and Codex do. The prompt's text goes to a temporary file, the editor runs in the
terminal while the app is suspended, and what the file holds afterwards becomes the prompt.
"""

from __future__ import annotations

import os
import shlex
import subprocess
import tempfile
from collections.abc import Mapping
from pathlib import Path

from prefixlock.errors import UserError


def editor_command(environ: Mapping[str, str]) -> list[str]:
    """The editor's command line (`$VISUAL`, then `$EDITOR`, then `vi`), split as a shell
    would (`code --wait` is two words)."""
    line = environ.get("VISUAL") or environ.get("EDITOR") or "vi"
    try:
        words = shlex.split(line)
    except ValueError as exc:
        raise UserError(
            f"cannot read the editor command {line!r}: {exc}", where="$EDITOR"
        ) from None
    if not words:
        raise UserError("the editor command is empty", where="$EDITOR")
    return words


def edit_text(text: str, environ: Mapping[str, str] | None = None) -> str | None:
    """Open `text` in the editor and return what the file holds when it exits (its last
    newline dropped); None when the editor failed (the prompt is kept as it was)."""
    env = dict(os.environ if environ is None else environ)
    command = editor_command(env)
    fd, name = tempfile.mkstemp(prefix="prefixlock-prompt-", suffix=".md")
    path = Path(name)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
        try:
            done = subprocess.run([*command, str(path)], env=env, check=False)
        except OSError as exc:
            raise UserError(
                f"cannot start {command[0]!r}: {exc.strerror}", where="$EDITOR"
            ) from None
        if done.returncode != 0:
            return None
        edited = path.read_text("utf-8", errors="replace")
        return edited[:-1] if edited.endswith("\n") else edited
    finally:
        path.unlink(missing_ok=True)
