"""Run the coding assistant's shell commands confined, bounded and without the user's secrets.

On Linux a command runs under bubblewrap (`bwrap`): the whole filesystem read-only, the
workspace (and any extra path the user names) writable, a private `/tmp` (the toolchains and
venvs its PATH names there shown read-only), an empty `/run` and every other unix socket outside
the workspace covered (abstract sockets go only with the network: `network=False`), the
credential stores in the home directory hidden, a new PID namespace (the command sees none of
our processes, so no `/proc/$PPID/environ`), no capabilities, and optionally no network. The
environment is built from an allow-list (PATH, HOME, LANG, ...), so no key of any spelling
reaches the command.

Where bubblewrap is missing or cannot run, a command is refused with one line that says why and
how to opt out; the user may choose `mode="off"` (no isolation, the environment still scrubbed),
but nothing falls back to it on its own:

    sandbox = Sandbox(root, SandboxOptions(network=False))
    sandbox.check()                                   # SandboxError: one line, if unusable
    result = await sandbox.run("pytest -q", timeout=60, limit=30_000)

Each command is bounded: its processes (`max_processes`), each process's memory, the private
/tmp's size, the largest file, and the bytes it writes to the workspace in all (`max_write_mb`,
stopped past it: `WriteWatch`).

Every run streams the output into a head and a tail of bounded size (a flood never sits in
memory), and ends the command's every process at the timeout, detached ones included: in the
sandbox the PID namespace dies with its first process; unsandboxed, the command runs under a
child-subreaper helper (prefixlock/reaper.py) that ends every process below it, detached ones
too, and the process group and every holder of the output pipe are killed as well.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import os
import shutil
import signal
import stat
import subprocess
import sys
import time
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Literal

from ..errors import PrefixlockError
from .environ_scrub import hide_initial_environ
from .proclimit import (
    DEFAULT_MAX_PROCESSES,
    PidsCgroup,
    pid_namespace_members,
    process_cap_problem,
    rlimit_shell,
)
from .sandbox_policy import home_secret_paths, network_failure, workspace_read_only_names

SandboxMode = Literal["bwrap", "off"]
MODES: tuple[SandboxMode, ...] = ("bwrap", "off")
HomeMode = Literal["secrets", "hidden", "visible"]
#: Strictest first.
HOME_MODES: tuple[HomeMode, ...] = ("hidden", "secrets", "visible")
#: The private /tmp's size and the largest file a command may write, in MiB, by default: room
#: for a build's temporaries and a large fixture, far below a machine's memory and disk.
DEFAULT_TMP_MB = 1024
DEFAULT_MAX_FILE_MB = 1024
#: How much one command may write to the workspace in all, in MiB, by default: a dependency
#: install fits (a virtualenv with a large framework, node_modules); a runaway loop is stopped.
DEFAULT_MAX_WRITE_MB = 2048

#: Variables a command sees (when set): what shells, compilers and test runners need to behave,
#: nothing that authenticates. Locale variables (LC_*) pass too.
ENV_ALLOW: tuple[str, ...] = (
    "PATH",
    "HOME",
    "USER",
    "LOGNAME",
    "SHELL",
    "LANG",
    "LANGUAGE",
    "TERM",
    "COLORTERM",
    "NO_COLOR",
    "TZ",
    "VIRTUAL_ENV",
)

# How long leftover output may take to drain once the command is dead or done.
_DRAIN_SECONDS = 2.0
# How often a running command's process count is looked at, and (RLIMIT_NPROC, where the count
# is of processes in its PID namespace, not the kernel's own) how near the cap counts as at it.
_CAP_POLL_SECONDS = 0.1
_RLIMIT_SLACK = 2
# Seconds the unsandboxed command's helper has to end its tree before it is killed itself.
_REAPER_GRACE = 2.0
_CHUNK = 1 << 16


class SandboxError(PrefixlockError):
    """The sandbox cannot run here (or its options are wrong); the message is one line."""


@dataclass(frozen=True)
class SandboxOptions:
    """How commands are confined.

    mode: "bwrap" (the default; refused where bubblewrap cannot run) or "off" (the user's
    explicit choice: commands run unconfined, with the scrubbed environment).
    network: False (the default) gives the command a network namespace with only a loopback
    device; True shares the host's network (all or nothing: there is no per-domain filter).
    With False, a command that failed for want of it runs once more with it only when the
    Sandbox's `ask_network` says yes (the chat's dialog).
    env: names of extra variables passed through (on top of ENV_ALLOW).
    writable: extra absolute paths the command may write (a cache directory, say).
    home: "secrets" (the default) hides the credential stores of common tools under $HOME
    (prefixlock.coding.sandbox_policy.HOME_SECRETS) and leaves the rest read-only, so
    toolchains installed there (pyenv, nvm, rustup) still run; "hidden" puts an empty directory
    over all of $HOME; "visible" hides nothing.
    program: the bubblewrap executable.
    max_processes: how many tasks (processes and threads) a command may have at once; a
    command that reaches it (a fork bomb) is stopped. 0: no cap. See prefixlock.coding.proclimit.
    memory_mb: each process's data size (RLIMIT_DATA: heap and private writable mappings);
    None: half the machine's memory; 0: no cap.
    tmp_mb: the size of the private `/tmp` (a tmpfs lives in memory); 0: the kernel's default.
    max_file_mb: the largest file a command may write (RLIMIT_FSIZE); 0: no cap.
    max_write_mb: how much one command may write to the workspace in all; a command that goes
    past it is stopped (see `write_watch`); 0: no cap.
    """

    mode: SandboxMode = "bwrap"
    network: bool = False
    env: tuple[str, ...] = ()
    writable: tuple[str, ...] = ()
    home: HomeMode = "secrets"
    program: str = "bwrap"
    max_processes: int = DEFAULT_MAX_PROCESSES
    memory_mb: int | None = None
    tmp_mb: int = DEFAULT_TMP_MB
    max_file_mb: int = DEFAULT_MAX_FILE_MB
    max_write_mb: int = DEFAULT_MAX_WRITE_MB

    def __post_init__(self) -> None:
        if self.home not in HOME_MODES:
            raise SandboxError(f"sandbox home {self.home!r} is not one of {', '.join(HOME_MODES)}")
        if self.mode not in MODES:
            raise SandboxError(f"sandbox mode {self.mode!r} is not one of {', '.join(MODES)}")
        for path in self.writable:
            if not os.path.isabs(path):
                raise SandboxError(f"sandbox writable path {path!r} must be absolute")
        if not isinstance(self.max_processes, int) or not (
            self.max_processes == 0 or self.max_processes >= 8
        ):
            raise SandboxError(
                f"sandbox max_processes {self.max_processes!r}: expected 0 (no cap) or 8 or more"
            )
        for key in BOUND_KEYS:
            value = getattr(self, key)
            if value is None and key == "memory_mb":
                continue
            if (
                not isinstance(value, int)
                or isinstance(value, bool)
                or not (value == 0 or value >= 16)
            ):
                raise SandboxError(
                    f"sandbox {key} {value!r}: expected 0 (no cap) or 16 (MiB) or more"
                )

    @classmethod
    def from_mapping(cls, data: Mapping[str, object], where: str = "sandbox") -> SandboxOptions:
        """Options from a settings table (`[sandbox]` in a TOML file, say); a wrong key or type
        is a SandboxError naming `where` and the field."""
        return cls(**_checked_table(data, where))  # type: ignore[arg-type]

    def memory_limit(self) -> int | None:
        """RLIMIT_DATA in bytes (None: no cap)."""
        if self.memory_mb == 0:
            return None
        if self.memory_mb is None:
            with contextlib.suppress(ValueError, OSError, AttributeError):
                return os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE") // 2
            return None
        return self.memory_mb << 20


#: The sizes in MiB a `[sandbox]` table may bound (0: no cap).
BOUND_KEYS = ("memory_mb", "tmp_mb", "max_file_mb", "max_write_mb")
#: Every key of a `[sandbox]` table.
TABLE_KEYS = ("mode", "network", "env", "writable", "home", "program", "max_processes",
              *BOUND_KEYS)  # fmt: skip


def _checked_table(data: Mapping[str, object], where: str) -> dict[str, object]:
    """A `[sandbox]` table's values, type-checked (a SandboxError names `where` and the key)."""
    for key in data:
        if key not in TABLE_KEYS:
            names = ", ".join(sorted(TABLE_KEYS))
            raise SandboxError(f"{where}: unknown key {key!r} (known: {names})")
    kwargs: dict[str, object] = {}
    for key in ("mode", "home", "program"):
        if key in data:
            if not isinstance(data[key], str):
                raise SandboxError(f"{where}.{key}: expected a string")
            kwargs[key] = data[key]
    if "network" in data:
        if not isinstance(data["network"], bool):
            raise SandboxError(f"{where}.network: expected true or false")
        kwargs["network"] = data["network"]
    for key in ("max_processes", *BOUND_KEYS):
        if key in data:
            value = data[key]
            if not isinstance(value, int) or isinstance(value, bool):
                raise SandboxError(f"{where}.{key}: expected a whole number")
            kwargs[key] = value
    for key in ("env", "writable"):
        if key in data:
            value = data[key]
            if not isinstance(value, list | tuple) or not all(isinstance(v, str) for v in value):
                raise SandboxError(f"{where}.{key}: expected a list of strings")
            kwargs[key] = tuple(value)
    return kwargs


def tightened(
    options: SandboxOptions, data: Mapping[str, object], where: str
) -> tuple[SandboxOptions, list[str]]:
    """`options` with a table from a file the user does not own (a repository's, or one a
    command could write) applied only where it makes the sandbox stricter; and one note per
    key left out. A bad key or type is still a SandboxError naming `where`."""
    table = _checked_table(data, where)
    changes: dict[str, object] = {}
    notes: list[str] = []

    def ignore(key: str, why: str) -> None:
        notes.append(f"{where}.{key} ignored: {why}")

    for key, value in table.items():
        if key == "mode":
            if value == "bwrap":
                changes["mode"] = value
            else:
                ignore(key, "only your own settings (~/.prefixlock) may turn the sandbox off")
        elif key == "network":
            if value is False:
                changes["network"] = False
            else:
                ignore(key, "only your own settings may open the network")
        elif key == "home":
            strict = HOME_MODES.index(str(value)) < HOME_MODES.index(options.home)
            if value == options.home or strict:
                changes["home"] = value
            else:
                ignore(key, "only your own settings may show more of the home folder")
        elif key in ("program", "env", "writable"):
            ignore(key, "only your own settings may set it")
        else:
            current = getattr(options, key)
            if current is None:  # the automatic memory cap
                current = (options.memory_limit() or 0) >> 20
            if isinstance(value, int) and value > 0 and (current == 0 or value <= current):
                changes[key] = value
            elif value != current:
                ignore(key, "only your own settings may raise a limit")
    return replace(options, **changes), notes  # type: ignore[arg-type]


@dataclass(frozen=True)
class RunOutcome:
    """What a bounded run saw: the output's head and tail, and how it ended."""

    exit_code: int | None  # None: killed at the timeout
    output: str
    timed_out: bool
    cut_bytes: int  # bytes dropped between head and tail (0: the whole output is there)
    total_bytes: int
    killed_for: str = ""  # why it was stopped before its end, other than the timeout


def scrubbed_env(
    environ: Mapping[str, str] | None = None, extra: tuple[str, ...] = ()
) -> dict[str, str]:
    """The allow-listed part of `environ` (os.environ by default)."""
    source = os.environ if environ is None else environ
    allowed = set(ENV_ALLOW) | set(extra)
    return {k: v for k, v in source.items() if k in allowed or k.startswith("LC_")}


def bwrap_problem(program: str = "bwrap") -> str | None:
    """Why bubblewrap cannot confine a command here, or None when it can (each executable is
    probed once per process)."""
    path = shutil.which(program)
    if path is None:
        return f"{program!r} is not installed (Debian/Ubuntu: apt-get install bubblewrap)"
    return _probe(path)


@functools.lru_cache(maxsize=8)
def _probe(path: str) -> str | None:
    probe = [path, "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--unshare-pid",
             "--die-with-parent", "--new-session", *_cap_drop(), "true"]  # fmt: skip
    name = os.path.basename(path)
    try:
        done = subprocess.run(probe, capture_output=True, timeout=20, check=False)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"{name} did not start: {exc}"
    if done.returncode != 0:
        why = done.stderr.decode("utf-8", "replace").strip().splitlines()
        return f"{name} cannot run here: {why[-1] if why else f'exit {done.returncode}'}"
    return None


def _reaper() -> list[str]:
    """The helper an unsandboxed command runs under (prefixlock/reaper.py, this Python, no
    site: it starts light); nothing off Linux (no subreapers) or where this Python cannot be
    named."""
    if not sys.executable or not sys.platform.startswith("linux"):
        return []
    return [sys.executable, "-I", "-S", str(Path(__file__).with_name("reaper.py"))]


@functools.lru_cache(maxsize=8)
def _userns_works(path: str) -> bool:
    """Whether bubblewrap can give a command a user namespace of its own here (not root; a
    setuid bwrap on a kernel without unprivileged user namespaces cannot)."""
    if os.geteuid() == 0:
        return False
    probe = [path, "--ro-bind", "/", "/", "--unshare-user", "--unshare-pid",
             "--die-with-parent", "true"]  # fmt: skip
    try:
        return subprocess.run(probe, capture_output=True, timeout=20, check=False).returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        return False


def _userns(program: str) -> list[str]:
    # Not root: a user namespace of its own (bwrap makes one anyway unless installed setuid),
    # so the RLIMIT_NPROC set inside counts the sandbox's tasks only.
    return ["--unshare-user"] if _userns_works(program) else []


def _cap_drop() -> list[str]:
    # As root bwrap keeps capabilities (it makes no user namespace): a command with
    # CAP_SYS_ADMIN could remount the read-only tree. Unprivileged, it has none to drop.
    return ["--cap-drop", "ALL"] if os.geteuid() == 0 else []


# Directories the sandbox replaces with empty ones; a socket under them needs no cover.
_TMP_DIRS = ("/tmp",)
_RUN_DIRS = ("/run", "/var/run")


def _hidden_dir(path: str) -> bool:
    return any(path == d or path.startswith(d + "/") for d in (*_TMP_DIRS, *_RUN_DIRS))


def _needed_under_hidden(env: Mapping[str, str]) -> list[str]:
    """Directories under /tmp or /run the command needs: each PATH entry's prefix (`bin`'s
    parent: a venv's or toolchain's lib/ comes with it), a venv's base interpreter
    (pyvenv.cfg's `home`), VIRTUAL_ENV, and the real /etc/resolv.conf. Real paths, existing
    directories (or that one file), never /tmp or /run as a whole."""
    wanted: list[str] = []

    def add(entry: str, *, prefix: bool) -> None:
        if not os.path.isabs(entry):
            return
        real = os.path.realpath(entry)
        if prefix and os.path.basename(real) == "bin":
            real = os.path.dirname(real)
        if not _hidden_dir(real) or real in (*_TMP_DIRS, *_RUN_DIRS) or real in wanted:
            return
        if not os.path.exists(real):
            return
        wanted.append(real)
        cfg = os.path.join(real, "pyvenv.cfg")
        with contextlib.suppress(OSError, UnicodeDecodeError), open(cfg, encoding="utf-8") as fh:
            for line in fh:
                key, _, value = line.partition("=")
                if key.strip() == "home" and value.strip():
                    add(value.strip(), prefix=True)

    for entry in env.get("PATH", "").split(os.pathsep):
        add(entry, prefix=True)
    add(env.get("VIRTUAL_ENV", ""), prefix=False)
    resolv = os.path.realpath("/etc/resolv.conf")
    if resolv != "/etc/resolv.conf" and os.path.isfile(resolv):
        add(resolv, prefix=False)
    return wanted


def _bound_sockets() -> list[str]:
    """Paths of the unix sockets bound on this machine (this network namespace's
    /proc/net/unix), that exist as sockets now. Abstract ones (`@name`) have no path: only a
    network namespace (network=False) hides those."""
    found: list[str] = []
    try:
        with open("/proc/net/unix", encoding="utf-8", errors="surrogateescape") as fh:
            next(fh, None)
            rows = [line.split(None, 7) for line in fh]
    except OSError:
        return found
    for row in rows:
        if len(row) < 8 or not row[7].startswith("/"):
            continue
        path = row[7].rstrip("\n")
        with contextlib.suppress(OSError):
            if stat.S_ISSOCK(os.lstat(path).st_mode) and path not in found:
                found.append(path)
    return found


def _homes(home_dir: str | None) -> list[str]:
    """The home folders whose secrets are covered: $HOME's, and the account's own when it
    differs."""
    found = [home_dir] if home_dir else []
    with contextlib.suppress(KeyError, ImportError):
        import pwd

        real = pwd.getpwuid(os.getuid()).pw_dir
        if real and real != "/" and os.path.isdir(real) and real not in found:
            found.append(real)
    return found


def _cover_secrets(root: Path, home_dir: str) -> list[str]:
    """bwrap arguments that cover each credential store under `home_dir` (an empty directory
    over a directory, /dev/null over a file); a workspace inside one stays visible."""
    args: list[str] = []
    for name in home_secret_paths():
        secret = os.path.join(home_dir, name)
        if root.is_relative_to(secret):
            continue  # a workspace under ~/.config stays visible (its own choice)
        if os.path.isdir(secret) and not os.path.islink(secret):
            args += ["--tmpfs", secret]
        elif os.path.lexists(secret):
            real = os.path.realpath(secret)
            if os.path.isdir(real):
                args += ["--tmpfs", real]
            elif os.path.exists(real):
                args += ["--ro-bind", "/dev/null", real]
    return args


def protected_paths(root: Path) -> list[str]:
    """The workspace's read-only entries that exist (sandbox_policy.WORKSPACE_READ_ONLY), as
    real paths inside the root (a link to elsewhere in it is followed; one out of it points
    at what is read-only anyway), with each direct subfolder's `.git` (a nested repository)."""
    found: list[str] = []

    def add(path: str) -> None:
        if not os.path.lexists(path):
            return
        real = os.path.realpath(path)
        inside = real == str(root) or Path(real).is_relative_to(root)
        if inside and real != str(root) and os.path.exists(real) and real not in found:
            found.append(real)

    for name in workspace_read_only_names():
        add(os.path.join(root, name))
    with contextlib.suppress(OSError), os.scandir(root) as entries:
        for entry in entries:
            if entry.is_dir(follow_symlinks=False) and entry.name != ".git":
                add(os.path.join(entry.path, ".git"))
    return found


def present_protected(root: Path) -> set[str]:
    """Which read-only names are present in the root now (links and broken links too)."""
    return {n for n in workspace_read_only_names() if os.path.lexists(os.path.join(root, n))}


def remove_created(root: Path, names: list[str]) -> None:
    """Remove what a command created under a read-only name (it ran and is gone: nothing
    races the removal). Links are removed, never followed."""
    for name in names:
        path = os.path.join(root, name)
        with contextlib.suppress(FileNotFoundError):
            if os.path.isdir(path) and not os.path.islink(path):
                shutil.rmtree(path)
            else:
                os.unlink(path)


@functools.lru_cache(maxsize=8)
def _sizes_tmpfs(program: str) -> bool:
    """Whether this bubblewrap knows `--size` (0.5 and later)."""
    try:
        done = subprocess.run([program, "--help"], capture_output=True, timeout=20, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return False
    return b"--size" in done.stdout + done.stderr


def _tmp_size(program: str, tmp_mb: int) -> list[str]:
    return ["--size", str(tmp_mb << 20)] if tmp_mb and _sizes_tmpfs(program) else []


def _set_limits(data: int | None, fsize: int | None) -> None:
    """In the child before exec: the memory and file-size caps (inherited by bwrap and all it
    starts; root is bound by both)."""
    import resource

    if data is not None:
        resource.setrlimit(resource.RLIMIT_DATA, (data, data))
    if fsize is not None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (fsize, fsize))


class _Capture:
    """The first `head` and the last `tail` bytes of a stream, and how many were seen."""

    def __init__(self, limit: int) -> None:
        self.head_limit = max(limit, 0) * 2 // 3
        self.tail_limit = max(limit, 0) - self.head_limit
        self.head = bytearray()
        self.tail = bytearray()
        self.total = 0

    def feed(self, data: bytes) -> None:
        self.total += len(data)
        room = self.head_limit - len(self.head)
        if room > 0:
            self.head += data[:room]
            data = data[room:]
        if data and self.tail_limit:
            self.tail += data
            if len(self.tail) > 2 * self.tail_limit:  # trim now and then, not per chunk
                del self.tail[: len(self.tail) - self.tail_limit]

    def text(self) -> tuple[str, int]:
        tail = bytes(self.tail[-self.tail_limit :]) if self.tail_limit else b""
        cut = self.total - len(self.head) - len(tail)
        head = bytes(self.head).decode("utf-8", "replace")
        if cut <= 0:
            return head + tail.decode("utf-8", "replace"), 0
        return f"{head}\n[... {cut:,} bytes cut ...]\n{tail.decode('utf-8', 'replace')}", cut


def _pipe_holders(inode: int) -> list[int]:
    """Processes (not this one) with the pipe `inode` open: what an unsandboxed command left
    behind that would keep its output open (Linux /proc; nothing elsewhere)."""
    me, target, found = os.getpid(), f"pipe:[{inode}]", []
    with contextlib.suppress(OSError), os.scandir("/proc") as procs:
        for entry in procs:
            if not entry.name.isdigit() or int(entry.name) == me:
                continue
            with contextlib.suppress(OSError), os.scandir(f"/proc/{entry.name}/fd") as fds:
                for fd in fds:
                    with contextlib.suppress(OSError):
                        if os.readlink(fd.path) == target:
                            found.append(int(entry.name))
                            break
    return found


@dataclass
class Sandbox:
    """Commands in one workspace, confined as `options` say."""

    root: Path
    options: SandboxOptions = field(default_factory=SandboxOptions)
    environ: Mapping[str, str] | None = None  # None: os.environ at each run
    # Asked, with the command line, when a command failed for want of the network the sandbox
    # keeps off: True runs it once more with the host's network (the chat's dialog). None
    # (headless): never; the output says how the user's own settings open it.
    ask_network: Callable[[str], Awaitable[bool]] | None = field(default=None, compare=False)

    def problem(self) -> str | None:
        """Why a command would be refused (None: it would run)."""
        if self.options.mode == "off":
            return None
        return bwrap_problem(self.options.program)

    def check(self) -> None:
        """Raise SandboxError (one line, with the way out) if commands cannot run."""
        why = self.problem()
        if why:
            raise SandboxError(
                f"commands run in a bubblewrap sandbox, which is not available: {why}; "
                "install it, or run commands unsandboxed by choosing sandbox mode 'off'"
            )

    def describe(self) -> str:
        """One line for a status bar or a log: how commands run."""
        why = self.cap_problem()
        cap = (
            f"; processes not capped: {why}"
            if why
            else (f", at most {self.options.max_processes} processes")
        )
        bounds = self._bounds()
        if self.options.mode == "off":
            return f"sandbox off: commands run unconfined (environment scrubbed){cap}{bounds}"
        net = "network on" if self.options.network else "no network"
        return (
            "bubblewrap sandbox: workspace writable (except .git and tool settings), rest "
            f"read-only, {net}{cap}{bounds}"
        )

    def _bounds(self) -> str:
        memory = self.options.memory_limit()
        parts = [f"{memory >> 20} MiB of memory a process" if memory else "memory not capped"]
        if self.options.mode == "bwrap":
            program = shutil.which(self.options.program) or self.options.program
            tmp = self.options.tmp_mb
            parts.append(
                f"{tmp} MiB /tmp" if tmp and _sizes_tmpfs(program) else "/tmp size not capped"
            )
        file_mb = self.options.max_file_mb
        parts.append(f"files up to {file_mb} MiB" if file_mb else "file size not capped")
        write_mb = self.options.max_write_mb
        parts.append(
            f"{write_mb} MiB written to the workspace a command"
            if write_mb
            else "workspace writes not capped"
        )
        return "; " + ", ".join(parts)

    def cap_problem(self) -> str | None:
        """Why a command's process count is not capped here (None: it is)."""
        if self.options.max_processes == 0:
            return "max_processes is 0"
        return process_cap_problem(sandboxed=self._rlimit())

    def _rlimit(self) -> bool:
        """The cap is RLIMIT_NPROC inside the sandbox's user namespace (not root)."""
        program = shutil.which(self.options.program) or self.options.program
        return (
            self.options.mode == "bwrap"
            and self.options.max_processes > 0
            and (_userns_works(program))
        )

    def env(self) -> dict[str, str]:
        """The command's environment: the allow-listed variables only."""
        return scrubbed_env(self.environ, self.options.env)

    def argv(self, command: str, *, network: bool | None = None) -> list[str]:
        """The program line that runs `command` (a shell command line); `network` overrides
        the options' for this one command."""
        shell = ["/bin/sh", "-c", command]
        if self.options.mode == "off":
            # Under the subreaper helper: what the command detaches is still found and ended.
            return [*_reaper(), *shell]
        if self._rlimit():
            shell = rlimit_shell(command, self.options.max_processes)
        program = shutil.which(self.options.program) or self.options.program
        root = str(self.root)
        args = [program, "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc",
                *_tmp_size(program, self.options.tmp_mb), "--tmpfs", "/tmp"]  # fmt: skip
        env = self.env()
        # Daemons' sockets (docker.sock, dbus, systemd's, the user's runtime dir) live in /run:
        # an empty one. /var/run is a link to it nearly everywhere; a real directory is covered.
        for run in _RUN_DIRS:
            if os.path.isdir(run) and not os.path.islink(run):
                args += ["--tmpfs", run]
        # What the command needs from the hidden places, back read-only: a toolchain or venv
        # its PATH names, and the resolver configuration /etc/resolv.conf may point into /run.
        for path in _needed_under_hidden(env):
            args += ["--ro-bind", path, path]
        # Sockets bound elsewhere (a database's in /var/lib, say) are covered with /dev/null:
        # connect() needs a socket there. Those in the workspace are the project's own.
        for sock in _bound_sockets():
            if not Path(sock).is_relative_to(self.root) and not _hidden_dir(sock):
                args += ["--ro-bind", "/dev/null", sock]
        home = env.get("HOME")
        home_dir = home if home and home != "/" and os.path.isdir(home) else None
        if self.options.home == "hidden" and home_dir:
            args += ["--tmpfs", home_dir]
        # Writable binds after the tmpfs mounts, so they show through /tmp and a hidden home.
        for path in self.options.writable:
            if os.path.exists(path):
                args += ["--bind", path, path]
        args += ["--bind", root, root]
        # What configures programs the host runs (git hooks, settings, MCP servers) stays
        # read-only; what the command creates of it is removed when it ends (`run`).
        for path in protected_paths(self.root):
            args += ["--ro-bind", path, path]
        if self.options.home == "secrets":
            # Last, so no bind above can uncover them; the real home too, if HOME points away.
            for base in _homes(home_dir):
                args += _cover_secrets(self.root, base)
            histfile = (self.environ if self.environ is not None else os.environ).get("HISTFILE")
            if histfile and os.path.isabs(histfile) and os.path.isfile(histfile):
                args += ["--ro-bind", "/dev/null", histfile]
        args += ["--chdir", root, "--setenv", "TMPDIR", "/tmp"]
        args += ["--unshare-pid", "--unshare-ipc", "--unshare-uts", "--die-with-parent",
                 "--new-session", *_cap_drop(), *_userns(program)]  # fmt: skip
        if not (self.options.network if network is None else network):
            args.append("--unshare-net")
        return [*args, "--", *shell]

    async def run(self, command: str, *, timeout: float, limit: int) -> RunOutcome:
        """Run `command` in the root; output capped at `limit` bytes (head and tail kept);
        every process of it ended at `timeout` seconds, when it is cancelled, or when it
        reaches the process cap (`max_processes`). One that failed for want of the network
        (off in the sandbox) runs once more with it only when `ask_network` says yes; the
        network is all or nothing for that command (no per-host filter)."""
        outcome = await self._run(command, timeout=timeout, limit=limit, network=None)
        sign = self._network_refusal(outcome)
        if sign is None:
            return outcome
        if self.ask_network is not None and await self.ask_network(command):
            again = await self._run(command, timeout=timeout, limit=limit, network=True)
            said = f"[prefixlock: run again with the network, as approved, after: {sign}]\n"
            return replace(again, output=said + again.output)
        said = (
            f"\n[prefixlock: {sign}: the network is off in the sandbox; the user may run it "
            "with the network when asked, or open it for every command with network = true "
            "under [sandbox] in their own ~/.prefixlock/settings.toml]\n"
        )
        return replace(outcome, output=outcome.output + said)

    def _network_refusal(self, outcome: RunOutcome) -> str | None:
        """The output's line saying the network was out of reach, for a sandboxed command
        that failed without it; else None."""
        if self.options.mode != "bwrap" or self.options.network:
            return None
        if outcome.exit_code in (0, None) or outcome.killed_for:
            return None
        return network_failure(outcome.output)

    async def _run(
        self, command: str, *, timeout: float, limit: int, network: bool | None
    ) -> RunOutcome:
        self.check()
        if self.options.mode == "off":
            # Unconfined, the command can read our /proc/PID/environ: keys out of it first.
            hide_initial_environ(self.env())
        cap = self.options.max_processes
        cgroup = PidsCgroup.create(cap) if cap else None
        argv = self.argv(command, network=network)
        if cgroup is not None:
            argv = cgroup.wrap(argv)
        before = present_protected(self.root) if self.options.mode == "bwrap" else None
        file_mb = self.options.max_file_mb
        limits = functools.partial(
            _set_limits, self.options.memory_limit(), file_mb << 20 if file_mb else None
        )
        read_fd, write_fd = os.pipe()
        inode = os.fstat(read_fd).st_ino
        try:
            proc = await asyncio.create_subprocess_exec(
                *argv,
                cwd=self.root,
                env=self.env(),
                stdin=asyncio.subprocess.DEVNULL,
                stdout=write_fd,
                stderr=write_fd,
                start_new_session=True,  # its own process group and session
                preexec_fn=limits,
            )
        except BaseException:
            os.close(read_fd)
            if cgroup is not None:
                cgroup.remove()
            raise
        finally:
            os.close(write_fd)
        loop = asyncio.get_running_loop()
        reader = asyncio.StreamReader()
        pipe = os.fdopen(read_fd, "rb", buffering=0)
        transport: asyncio.BaseTransport | None = None
        capture = _Capture(limit)
        deadline = loop.time() + timeout
        waiter = asyncio.ensure_future(proc.wait())
        kill = functools.partial(self._kill, proc, inode, cgroup)
        capped: list[str] = []
        watch = (
            asyncio.ensure_future(self._watch_cap(proc, cgroup, kill, capped))
            if cgroup is not None or self._rlimit()
            else None
        )
        writes = WriteWatch.start(self.root, self.options.max_write_mb)
        disk = (
            asyncio.ensure_future(self._watch_writes(proc, writes, kill, capped))
            if writes is not None
            else None
        )
        timed_out = False
        try:
            transport, _ = await loop.connect_read_pipe(
                lambda: asyncio.StreamReaderProtocol(reader), pipe
            )
            ended = await _pump(reader, capture, deadline, waiter)
            if ended == "exited":
                # The command is done; what it started may still hold the output open.
                ended = await _pump(reader, capture, loop.time() + 0.2, None)
                if ended != "eof":
                    kill()
            elif ended == "timeout":
                timed_out = True
                kill()
            if not timed_out:
                # The output closed but the command may still run (it closed its stdout).
                try:
                    await asyncio.wait_for(
                        asyncio.shield(waiter), timeout=max(deadline - loop.time(), 0.0)
                    )
                except TimeoutError:
                    timed_out = True
                    kill()
            await _pump(reader, capture, loop.time() + _DRAIN_SECONDS, None)
            await waiter
        except BaseException:  # cancelled (the user stopped the turn), or anything unexpected
            kill()
            with contextlib.suppress(ProcessLookupError, asyncio.CancelledError):
                await asyncio.shield(waiter)
            raise
        finally:
            if watch is not None:
                watch.cancel()
            if disk is not None:
                disk.cancel()
            if transport is not None:
                transport.close()
            else:
                pipe.close()
            if cgroup is not None:
                if not capped and cgroup.reached():
                    # It hit the cap and ended before the watch looked (a refused fork can end
                    # the shell at once): still the cap's doing, and said so.
                    capped.append(_cap_reached(cap))
                # What the command left running (detached, its output closed) goes with it,
                # as it does with the sandbox's PID namespace.
                cgroup.kill()
                await _remove(cgroup)
            if before is not None:
                created = sorted(present_protected(self.root) - before)
                remove_created(self.root, created)
                if created:
                    capture.feed(
                        f"\n[prefixlock removed {', '.join(created)}: the sandbox keeps git "
                        "metadata and tool settings read-only; run that step yourself]\n".encode()
                    )
        if writes is not None and not capped:
            # Between two looks it may have ended past the bound: said, with what to do.
            over = await asyncio.to_thread(functools.partial(writes.over, final=True))
            if over is not None:
                capture.feed(f"\n[prefixlock: {writes.describe(over)}]\n".encode())
        text, cut = capture.text()
        if capped and not timed_out:
            return RunOutcome(None, text, False, cut, capture.total, capped[0])
        return RunOutcome(None if timed_out else proc.returncode, text, timed_out, cut,
                          capture.total)  # fmt: skip

    async def _watch_cap(
        self,
        proc: asyncio.subprocess.Process,
        cgroup: PidsCgroup | None,
        kill: Callable[[], None],
        capped: list[str],
    ) -> None:
        """Stop the command once it reaches the process cap: at the wall a fork bomb only
        spins (each fork refused, retried) until its timeout."""
        cap = self.options.max_processes
        while proc.returncode is None:
            await asyncio.sleep(_CAP_POLL_SECONDS)
            if cgroup is not None:
                reached = cgroup.reached()
            else:  # RLIMIT_NPROC: the wall is where the namespace's count stops growing
                members = pid_namespace_members(proc.pid)
                reached = members is not None and members >= cap - _RLIMIT_SLACK
            if reached:
                capped.append(_cap_reached(cap))
                kill()
                return

    async def _watch_writes(
        self,
        proc: asyncio.subprocess.Process,
        writes: WriteWatch,
        kill: Callable[[], None],
        capped: list[str],
    ) -> None:
        """Stop the command once it has written more than `max_write_mb` to the workspace."""
        while proc.returncode is None:
            await asyncio.sleep(_CAP_POLL_SECONDS)
            over = await asyncio.to_thread(writes.over)
            if over is not None and proc.returncode is None:
                capped.append(writes.describe(over))
                kill()
                return

    def _kill(
        self, proc: asyncio.subprocess.Process, inode: int, cgroup: PidsCgroup | None = None
    ) -> None:
        """End the command and all it started. Sandboxed, killing bwrap takes its PID
        namespace down with it; unsandboxed, the group and every holder of the output pipe;
        with a pids cgroup, every process in it too."""
        if self.options.mode == "off" and _reaper() and proc.returncode is None:
            # The helper ends the whole tree, orphans included, then itself; SIGKILL would
            # leave the orphans to init. If it has not gone in a moment, it is killed anyway.
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(proc.pid, signal.SIGTERM)
            asyncio.get_running_loop().call_later(_REAPER_GRACE, _killpg, proc)
        else:
            _killpg(proc)
        if cgroup is not None:
            cgroup.kill()
        if self.options.mode == "off":
            for pid in _pipe_holders(inode):
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.kill(pid, signal.SIGKILL)


@dataclass
class WriteWatch:
    """How much a command has written to the workspace, looked at cheaply and often.

    The bound is on bytes written in all, not a quota: the filesystem's free space is read
    (one statvfs) at every look, and only when it has fallen by more than the bound since the
    command started is the workspace walked, counting the blocks of the files changed since
    then (so what other programs write elsewhere on the disk is never charged to the command).
    A walk is done at most once a second. Per file, RLIMIT_FSIZE (`max_file_mb`) holds too.
    """

    root: Path
    bound: int  # bytes
    started: float  # wall-clock time the command started (file mtimes are compared to it)
    free: int  # the filesystem's free bytes then
    next_walk: float = 0.0

    @classmethod
    def start(cls, root: Path, bound_mb: int) -> WriteWatch | None:
        """A watch from now; None where there is no bound, or the free space cannot be read."""
        if not bound_mb:
            return None
        try:
            free = _free_bytes(root)
        except OSError:
            return None
        return cls(root, bound_mb << 20, time.time() - 1.0, free)

    def over(self, *, final: bool = False) -> int | None:
        """The bytes written, when more than the bound; None while under it. `final`: the
        look after the command ended (a walk done just before does not put it off)."""
        try:
            fallen = self.free - _free_bytes(self.root)
        except OSError:
            return None
        now = time.monotonic()
        if fallen <= self.bound or (now < self.next_walk and not final):
            return None
        self.next_walk = now + 1.0
        written = written_since(self.root, self.started)
        return written if written > self.bound else None

    def describe(self, written: int) -> str:
        return (
            f"it wrote {written >> 20} MiB to the workspace, more than the sandbox's "
            f"max_write_mb ({self.bound >> 20} MiB): what it wrote is still there; raise "
            "max_write_mb in your own settings if it needs more"
        )


def _free_bytes(path: Path) -> int:
    st = os.statvfs(path)
    return st.f_bavail * st.f_frsize


def written_since(root: Path, since: float) -> int:
    """Bytes (allocated blocks) of the files under `root` changed since `since` (wall clock),
    links not followed."""
    total = 0
    folders = [str(root)]
    while folders:
        try:
            entries = os.scandir(folders.pop())
        except OSError:
            continue
        with entries:
            for entry in entries:
                try:
                    if entry.is_dir(follow_symlinks=False):
                        folders.append(entry.path)
                        continue
                    st = entry.stat(follow_symlinks=False)
                except OSError:
                    continue
                if max(st.st_mtime, st.st_ctime) >= since:
                    total += st.st_blocks * 512
    return total


def _killpg(proc: asyncio.subprocess.Process) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(proc.pid, signal.SIGKILL)


async def _remove(cgroup: PidsCgroup) -> None:
    """Remove a killed command's cgroup once its processes have exited (a moment)."""
    for _ in range(100):
        if cgroup.remove():
            return
        cgroup.kill()
        await asyncio.sleep(0.02)


async def _pump(
    reader: asyncio.StreamReader,
    capture: _Capture,
    deadline: float,
    waiter: asyncio.Future[int] | None,
) -> Literal["eof", "exited", "timeout"]:
    """Feed `capture` until the output ends, the process exits (`waiter`) or `deadline`."""
    loop = asyncio.get_running_loop()
    while not reader.at_eof():
        left = deadline - loop.time()
        if left <= 0:
            return "timeout"
        read = asyncio.ensure_future(reader.read(_CHUNK))
        watch: set[asyncio.Future[object]] = {read}  # type: ignore[arg-type]
        if waiter is not None:  # done already: wait() returns at once, and so do we
            watch.add(waiter)  # type: ignore[arg-type]
        done, _ = await asyncio.wait(watch, timeout=left, return_when=asyncio.FIRST_COMPLETED)
        if read in done:
            capture.feed(read.result())
            continue
        read.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            capture.feed(await read)  # it may have finished just before the cancel
        return "exited" if waiter is not None and waiter in done else "timeout"
    return "eof"


def _cap_reached(cap: int) -> str:
    """Why a command was stopped at the process cap, with what to do."""
    return (
        f"it reached the limit of {cap} processes (a fork bomb?); raise the sandbox's "
        "max_processes if it needs more"
    )
