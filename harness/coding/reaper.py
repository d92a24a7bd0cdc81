"""The unsandboxed command's keeper: a small process that runs it as a child subreaper, so
nothing it starts can slip away, and ends all of it when it ends or when told to.

Run as a script (`python -I -S reaper.py PROGRAM ARGS...`, standard library only, so it starts
light and leaves the main process unchanged): it marks itself a child subreaper
(PR_SET_CHILD_SUBREAPER), so a process the command detaches (a double fork, `setsid`, its output
closed) is re-parented to it instead of to init, where only /proc could find it. When the
command's first process exits, or on SIGTERM (the timeout, a cancel) or its parent's death, it
SIGKILLs every descendant, rounds until none is left, reaps them and exits with the command's
status (128 + signal when killed). This is what the PID namespace gives a sandboxed command.
"""

# Few imports, none heavy (no contextlib, no __future__): this starts before every command.
import ctypes
import os
import signal
import sys

PR_SET_PDEATHSIG = 1
PR_SET_CHILD_SUBREAPER = 36


class _Stop(Exception):
    """SIGTERM arrived: end everything now."""


def _stop(signum: int, frame: object) -> None:
    raise _Stop


def _descendants(me: int) -> list[int]:
    """Every process below `me`, from /proc's parent links."""
    parents: dict[int, list[int]] = {}
    with os.scandir("/proc") as procs:
        for entry in procs:
            if not entry.name.isdigit():
                continue
            try:
                with open(f"/proc/{entry.name}/stat", "rb") as fh:
                    # "pid (comm) state ppid ...": comm may hold spaces and parentheses.
                    ppid = int(fh.read().rpartition(b")")[2].split()[1])
            except (OSError, ValueError, IndexError):
                continue  # gone since the listing
            parents.setdefault(ppid, []).append(int(entry.name))
    found, todo = [], [me]
    while todo:
        for child in parents.get(todo.pop(), []):
            found.append(child)
            todo.append(child)
    return found


def _reap() -> bool:
    """Reap the children that have exited; False once there is no child at all (then there
    is no descendant either: an orphan below comes to us, a subreaper)."""
    try:
        while os.waitpid(-1, os.WNOHANG)[0] > 0:
            pass
    except ChildProcessError:
        return False
    return True


def _end_all() -> None:
    """SIGKILL every descendant until none is left (one may fork while the round goes)."""
    me = os.getpid()
    for _ in range(10_000):
        if not _reap():
            return
        below = _descendants(me)
        if not below:
            return
        for pid in below:
            try:
                os.kill(pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                continue  # gone already


def _status(wait_status: int) -> int:
    if os.WIFSIGNALED(wait_status):
        return 128 + os.WTERMSIG(wait_status)
    return os.waitstatus_to_exitcode(wait_status)


def main(argv: list[str]) -> int:
    signal.signal(signal.SIGTERM, _stop)
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0:
        sys.stderr.write("reaper: PR_SET_CHILD_SUBREAPER refused\n")
        return 125
    parent = os.getppid()
    libc.prctl(PR_SET_PDEATHSIG, signal.SIGTERM, 0, 0, 0)
    if os.getppid() != parent:  # the parent died before the line above
        return 125
    status = 128 + signal.SIGKILL
    try:
        child = os.fork()
        if child == 0:
            try:
                signal.signal(signal.SIGTERM, signal.SIG_DFL)
                os.execvp(argv[0], argv)
            finally:
                os._exit(127)
        # The output pipe stays with the command only: its end is the command's end.
        null = os.open(os.devnull, os.O_RDWR)
        for fd in (0, 1, 2):
            os.dup2(null, fd)
        while True:
            pid, wait_status = os.wait()  # reaps adopted orphans as they die, too
            if pid == child:
                status = _status(wait_status)
                break
    except _Stop:
        pass
    signal.signal(signal.SIGTERM, signal.SIG_IGN)  # the cleanup is not cut short
    _end_all()
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
