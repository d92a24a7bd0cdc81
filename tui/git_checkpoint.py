"""Git checkpoints of a workspace's files for /undo: what a command changed.

A checkpoint is a git tree of every file under the workspace that git does not ignore (tracked
or not), built with a private index and a private object store (`GIT_INDEX_FILE`,
`GIT_OBJECT_DIRECTORY` in the journal's folder): the user's repository, index and HEAD are never
written. Blobs are hashed with `--no-filters`, so a restore gives back the very bytes (no
end-of-line or clean/smudge filter in between). Symlinks and files git cannot name are left out.
"""

from __future__ import annotations

import os
import subprocess
from dataclasses import dataclass
from pathlib import Path

MAX_FILES = 20_000  # a bigger tree is not checkpointed (hashing it per command would crawl)


@dataclass(frozen=True)
class Change:
    rel: str  # workspace-relative
    before: str | None  # blob id before, None: the file did not exist
    mode: int | None  # its mode before (0o755 / 0o644)


class GitCheckpoint:
    def __init__(self, top: Path, prefix: str, store: Path) -> None:
        self.top = top  # the repository's top level
        self.prefix = prefix  # the workspace's path inside it ("" or "sub/dir/")
        self.store = store
        (store / "objects").mkdir(parents=True, exist_ok=True)

    @classmethod
    def find(cls, root: Path, store: Path) -> GitCheckpoint | None:
        """The checkpointer for `root`, or None when it is not in a git work tree (or git is
        not installed)."""
        try:
            out = subprocess.run(
                ["git", "rev-parse", "--show-toplevel", "--show-prefix"],
                cwd=root,
                capture_output=True,
                text=True,
                timeout=30,
                check=True,
            ).stdout.splitlines()
        except (OSError, subprocess.SubprocessError):
            return None
        if not out:
            return None
        return cls(Path(out[0]), out[1] if len(out) > 1 else "", store)

    def _git(self, *args: str, data: bytes | None = None) -> bytes:
        env = {
            **os.environ,
            "GIT_INDEX_FILE": str(self.store / "index"),
            "GIT_OBJECT_DIRECTORY": str(self.store / "objects"),
        }
        return subprocess.run(
            ["git", *args],
            cwd=self.top,
            input=data,
            capture_output=True,
            env=env,
            timeout=120,
            check=True,
        ).stdout

    def snapshot(self) -> str | None:
        """A tree of the workspace's files now; None when there are too many to hash."""
        (self.store / "index").unlink(missing_ok=True)  # empty: every file is "other"
        listed = self._git("ls-files", "-z", "-co", "--exclude-standard", "--", self.prefix or ".")
        paths: list[str] = []
        for raw in listed.split(b"\0"):
            if not raw:
                continue
            name = os.fsdecode(raw)
            full = self.top / name
            if "\n" in name or full.is_symlink() or not full.is_file():
                continue  # deleted, a symlink, or a name --stdin-paths cannot carry
            paths.append(name)
        if len(paths) > MAX_FILES:
            return None
        if not paths:
            return self._git("write-tree").decode().strip()
        blobs = (
            self._git(
                "hash-object", "-w", "--no-filters", "--stdin-paths", data="\n".join(paths).encode()
            )
            .decode()
            .split()
        )
        entries = b"".join(
            f"{'100755' if os.access(self.top / p, os.X_OK) else '100644'} {b}\t".encode()
            + os.fsencode(p)
            + b"\0"
            for p, b in zip(paths, blobs, strict=True)
        )
        self._git("update-index", "--add", "-z", "--index-info", data=entries)
        return self._git("write-tree").decode().strip()

    def changes(self, before: str, after: str) -> list[Change]:
        """Each workspace file that differs between two snapshots, with its state before."""
        out = self._git("diff-tree", "-r", "-z", "--no-renames", before, after).split(b"\0")
        found: list[Change] = []
        for head, name in zip(out[0::2], out[1::2], strict=False):
            if not head.startswith(b":"):
                continue
            old_mode, _new_mode, old_sha, _new_sha, _status = head[1:].decode().split()
            rel = os.fsdecode(name)[len(self.prefix) :]
            if set(old_sha) == {"0"}:
                found.append(Change(rel, None, None))
            else:
                found.append(Change(rel, old_sha, 0o755 if old_mode == "100755" else 0o644))
        return found

    def blob_to(self, sha: str, dest: Path) -> None:
        dest.write_bytes(self._git("cat-file", "blob", sha))
