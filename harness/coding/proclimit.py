"""Cap how many processes a command may have at once, so a fork bomb meets a wall, is seen there
and is stopped, long before its timeout and with the machine still usable.

Two kernel mechanisms, whichever this machine offers (`process_cap` picks):

- a pids cgroup of the command's own (`pids.max`), when this process may create one: root on
  cgroup v1's pids hierarchy, or on cgroup v2 where `pids` is enabled for the children of its
  cgroup (or of the root). Every task counts, the command cannot leave it (the cgroup files are
  read-only in the sandbox), `pids.events` says when a fork was refused, and `cgroup.procs`
  lists every process left, detached or not, for the kill.
- RLIMIT_NPROC, set inside bubblewrap's user namespace, when we are not root: the kernel
  counts a user's tasks per user namespace, so only the sandbox's own count; the wall is seen
  by counting the processes of the sandbox's PID namespace.

Root is exempt from RLIMIT_NPROC (whatever the namespace), so as root without a writable pids
cgroup nothing caps the count and only the timeout bounds a fork bomb; `process_cap` says why.
"""

from __future__ import annotations

import contextlib
import functools
import itertools
import os
import signal
from dataclasses import dataclass
from pathlib import Path

#: How many tasks (processes and threads) a command may have at once by default: room for a
#: parallel build or test run, a wall far below the machine's pid_max.
DEFAULT_MAX_PROCESSES = 1024

_names = itertools.count()


@dataclass(frozen=True)
class _Hierarchy:
    parent: Path  # where our cgroups are made
    v2: bool


def _mounts() -> list[tuple[str, str, set[str]]]:
    """(mount point, fs type, super options) of each cgroup mount (/proc/self/mountinfo)."""
    found = []
    with contextlib.suppress(OSError), open("/proc/self/mountinfo", encoding="utf-8") as fh:
        for line in fh:
            left, _, right = line.partition(" - ")
            fields, tail = left.split(), right.split()
            if len(fields) >= 5 and len(tail) >= 3 and tail[0] in ("cgroup", "cgroup2"):
                point = fields[4].replace("\\040", " ")
                found.append((point, tail[0], set(tail[2].split(","))))
    return found


def _own_paths() -> tuple[str | None, str | None]:
    """This process's cgroup path in the v2 hierarchy and in v1's pids hierarchy."""
    v2 = v1 = None
    with contextlib.suppress(OSError), open("/proc/self/cgroup", encoding="utf-8") as fh:
        for line in fh:
            _, controllers, path = line.rstrip("\n").split(":", 2)
            if controllers == "":
                v2 = path
            elif "pids" in controllers.split(","):
                v1 = path
    return v2, v1


def _writable_dir(path: Path) -> bool:
    return path.is_dir() and os.access(path, os.W_OK)


@functools.lru_cache(maxsize=1)
def _hierarchy() -> _Hierarchy | None:
    """Where this process may make a pids cgroup, if anywhere (looked up once)."""
    v2_path, v1_path = _own_paths()
    for point, kind, options in _mounts():
        if kind == "cgroup2" and v2_path is not None:
            # A child of our own cgroup, or of the root (where processes may sit beside
            # children): where `pids` is handed down to children.
            for parent in (Path(point + v2_path.rstrip("/")), Path(point)):
                with contextlib.suppress(OSError):
                    control = (parent / "cgroup.subtree_control").read_text().split()
                    if "pids" in control and _writable_dir(parent):
                        return _Hierarchy(parent, v2=True)
        if kind == "cgroup" and "pids" in options and v1_path is not None:
            parent = Path(point + v1_path.rstrip("/"))
            if _writable_dir(parent):
                return _Hierarchy(parent, v2=False)
    return None


class PidsCgroup:
    """One command's pids cgroup: made before it starts, removed after it ends."""

    def __init__(self, path: Path, limit: int, v2: bool) -> None:
        self.path = path
        self.limit = limit
        self.v2 = v2

    @classmethod
    def create(cls, limit: int) -> PidsCgroup | None:
        """A new cgroup capped at `limit` tasks, or None where none can be made."""
        where = _hierarchy()
        if where is None:
            return None
        _sweep(where.parent)
        path = where.parent / f"prefixlock-{os.getpid()}-{next(_names)}"
        try:
            path.mkdir()
        except OSError:
            return None
        try:
            (path / "pids.max").write_text(f"{limit}\n")
        except OSError:
            with contextlib.suppress(OSError):
                path.rmdir()
            return None
        return cls(path, limit, where.v2)

    def wrap(self, argv: list[str]) -> list[str]:
        """`argv` started inside the cgroup: a shell moves itself in ("0" is the writer),
        then becomes the program, so nothing it starts is ever outside."""
        enter = 'echo 0 > "$0/cgroup.procs" && exec "$@"'
        return ["/bin/sh", "-c", enter, str(self.path), *argv]

    def reached(self) -> bool:
        """True once a fork was refused at the cap."""
        try:
            events = (self.path / "pids.events").read_text().split()
        except OSError:
            return False
        return "max" in events and events[events.index("max") + 1] != "0"

    def peak(self) -> int | None:
        """The most tasks it held at once (kernels with pids.peak), for reports."""
        try:
            return int((self.path / "pids.peak").read_text())
        except (OSError, ValueError):
            return None

    def pids(self) -> list[int]:
        try:
            return [int(p) for p in (self.path / "cgroup.procs").read_text().split()]
        except (OSError, ValueError):
            return []

    def kill(self) -> None:
        """SIGKILL every process in it, detached ones too; rounds until none is left (a
        process may fork while the kill goes round; the cap bounds how many)."""
        if self.v2:
            with contextlib.suppress(OSError):
                (self.path / "cgroup.kill").write_text("1\n")
                return
        for _ in range(100):
            pids = self.pids()
            if not pids:
                return
            for pid in pids:
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.kill(pid, signal.SIGKILL)

    def remove(self) -> bool:
        """Remove it once empty (killed processes leave it as they exit); False if it is
        still in use."""
        try:
            self.path.rmdir()
        except FileNotFoundError:
            return True
        except OSError:
            return False
        return True


_swept: set[Path] = set()


def _sweep(parent: Path) -> None:
    """Remove, once per process, the empty cgroups of ours whose process is gone (killed
    before it could remove them)."""
    if parent in _swept:
        return
    _swept.add(parent)
    with contextlib.suppress(OSError):
        for entry in parent.iterdir():
            owner = entry.name.split("-")
            ours = len(owner) == 3 and owner[0] == "prefixlock" and owner[1].isdigit()
            if ours and not os.path.exists(f"/proc/{owner[1]}"):
                with contextlib.suppress(OSError):  # busy: left alone
                    entry.rmdir()


def pid_namespace_members(pid: int) -> int | None:
    """How many processes share the PID namespace of `pid`'s first child (bubblewrap's
    sandbox), or None while it has none."""
    try:
        with open(f"/proc/{pid}/task/{pid}/children", encoding="ascii") as fh:
            children = fh.read().split()
        if not children:
            return None
        target = os.readlink(f"/proc/{children[0]}/ns/pid")
    except OSError:
        return None
    if target == os.readlink("/proc/self/ns/pid"):
        return None  # not in a namespace of its own (yet)
    count = 0
    with os.scandir("/proc") as procs:
        for entry in procs:
            if entry.name.isdigit():
                with contextlib.suppress(OSError):
                    if os.readlink(f"/proc/{entry.name}/ns/pid") == target:
                        count += 1
    return count


def rlimit_shell(command: str, limit: int) -> list[str]:
    """`/bin/sh -c command` with RLIMIT_NPROC set first, in the shell that will run it (bash
    spells it -u, dash -p); inside bubblewrap's user namespace it counts the sandbox only."""
    setup = f'ulimit -u {limit} 2>/dev/null || ulimit -p {limit} 2>/dev/null; exec /bin/sh -c "$1"'
    return ["/bin/sh", "-c", setup, "sh", command]


def process_cap_problem(*, sandboxed: bool) -> str | None:
    """Why a command's process count cannot be capped here (None: it can). `sandboxed`: the
    command gets a user namespace of its own (where RLIMIT_NPROC counts it alone)."""
    if _hierarchy() is not None:
        return None
    if os.geteuid() == 0:
        return (
            "root is exempt from RLIMIT_NPROC and no pids cgroup can be made here (cgroup "
            "filesystem read-only, or pids not enabled)"
        )
    if sandboxed:
        return None
    return (
        "no user namespace of the command's own (unsandboxed, or bubblewrap cannot make one), "
        "so RLIMIT_NPROC would count all of this user's processes; and no pids cgroup can be "
        "made here"
    )
