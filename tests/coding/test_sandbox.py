"""The command sandbox's security suite: every attempt to read a key, write outside the
workspace, escape through a symlink, outlive the timeout or flood the output is refused or
bounded. Where bubblewrap cannot run, the bwrap cases skip with its reason and the refusal path
(a clear line, no silent fallback) is what is tested."""

from __future__ import annotations

import asyncio
import contextlib
import os
import socket
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import pytest

from prefixlock.coding.sandbox import (
    ENV_ALLOW,
    Sandbox,
    SandboxError,
    SandboxMode,
    SandboxOptions,
    scrubbed_env,
)
from prefixlock.coding.workspace import ApprovalRequest, Decision, Workspace, WorkspaceError
from tests.helpers.sandbox import MODES, needs_bwrap

SECRETS = {
    "ANTHROPIC_API_KEY": "sk-ant-leak-1",
    "OPENAI_KEY": "sk-openai-leak-2",
    "AWS_ACCESS_KEY_ID": "AKIA-leak-3",
    "DATABASE_URL": "postgres://u:pw-leak-4@db/x",
}


@pytest.fixture
def ws_root(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    root.mkdir()
    return root


def _survivors(marker: str) -> list[int]:
    """Processes on this machine whose command line holds `marker`."""
    found = []
    for entry in os.scandir("/proc"):
        if entry.name.isdigit():
            try:
                with open(f"/proc/{entry.name}/cmdline", "rb") as fh:
                    if marker.encode() in fh.read():
                        found.append(int(entry.name))
            except OSError:
                continue
    return found


def _gone(marker: str, within: float = 5.0) -> bool:
    """True once no process holds `marker` (SIGKILLed processes take a moment to be reaped)."""
    end = time.monotonic() + within
    while _survivors(marker):
        if time.monotonic() > end:
            return False
        time.sleep(0.02)
    return True


# -- the environment ----------------------------------------------------------------------------


def test_environment_is_an_allow_list() -> None:
    env = scrubbed_env({**SECRETS, "PATH": "/bin", "LC_ALL": "C", "GITHUB_TOKEN": "x"})
    assert env == {"PATH": "/bin", "LC_ALL": "C"}
    assert scrubbed_env({"MY_VAR": "1"}, extra=("MY_VAR",)) == {"MY_VAR": "1"}
    assert "PATH" in ENV_ALLOW and not any("KEY" in name for name in ENV_ALLOW)


@pytest.mark.parametrize("mode", MODES)
async def test_no_key_of_any_spelling_reaches_the_command(
    ws_root: Path, mode: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name, value in SECRETS.items():
        monkeypatch.setenv(name, value)
    ws = Workspace(ws_root, allow={"run"}, sandbox=mode)  # type: ignore[arg-type]
    res = await ws.run("env; echo PATH=$PATH")
    assert res.exit_code == 0 and "PATH=/" in res.output
    for value in SECRETS.values():
        assert value not in res.output


CHILD = textwrap.dedent(
    """
    import asyncio, sys
    from prefixlock.coding.workspace import Workspace
    ws = Workspace(sys.argv[1], allow={"run"}, sandbox=sys.argv[2])
    res = asyncio.run(ws.run(
        "cat /proc/$PPID/environ /proc/[0-9]*/environ 2>/dev/null | tr '\\\\0' '\\\\n' | grep KEY"
    ))
    sys.stdout.write(res.output)
    import os
    assert os.environ["ANTHROPIC_API_KEY"] == "sk-ant-in-the-parent"
    assert os.getenv("ANTHROPIC_API_KEY") == "sk-ant-in-the-parent"
    """
)


def _parent_environ_read(root: Path, mode: str) -> str:
    """What a command prints of the /proc environ files when its parent process (a Python
    started here with a key in its initial environment) runs it."""
    env = {**os.environ, "ANTHROPIC_API_KEY": "sk-ant-in-the-parent"}
    done = subprocess.run(
        [sys.executable, "-c", CHILD, str(root), mode],
        env=env, capture_output=True, text=True, timeout=60, check=True,
    )  # fmt: skip
    return done.stdout


@needs_bwrap
def test_the_key_in_the_parents_proc_environ_is_out_of_reach(ws_root: Path) -> None:
    assert "sk-ant-in-the-parent" not in _parent_environ_read(ws_root, "bwrap")


def test_unsandboxed_the_key_is_out_of_the_parents_proc_environ(ws_root: Path) -> None:
    """A scrubbed environment alone would not do: /proc/$PPID/environ shows the block the
    parent started with. Unsandboxed, the parent blanks the keys there before the command
    runs (prefixlock.coding.environ_scrub), and still reads them itself."""
    assert "sk-ant-in-the-parent" not in _parent_environ_read(ws_root, "off")


# -- the filesystem -----------------------------------------------------------------------------


@needs_bwrap
async def test_writes_land_in_the_workspace_only(tmp_path: Path, ws_root: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (ws_root / "escape").symlink_to(outside)
    ws = Workspace(ws_root, allow={"run"})
    res = await ws.run(
        f"echo in > inside.txt; echo out > {outside}/a.txt; echo link > escape/b.txt; "
        "touch /usr/prefixlock-probe; mount -o remount,rw / 2>&1; echo done"
    )
    assert "done" in res.output
    assert (ws_root / "inside.txt").read_text() == "in\n"
    assert list(outside.iterdir()) == []
    assert not Path("/usr/prefixlock-probe").exists()


@needs_bwrap
async def test_credential_stores_in_home_are_hidden(
    tmp_path: Path, ws_root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = tmp_path / "home"
    (home / ".aws").mkdir(parents=True)
    (home / ".aws" / "credentials").write_text("aws_secret_access_key = leak-5\n")
    (home / ".netrc").write_text("machine x password leak-6\n")
    (home / "notes.txt").write_text("visible\n")
    monkeypatch.setenv("HOME", str(home))
    # `writable` brings the home (under /tmp, which the sandbox replaces) into view, as a user
    # making ~/.cache writable would; the credential stores stay hidden all the same.
    ws = Workspace(ws_root, allow={"run"}, sandbox=SandboxOptions(writable=(str(home),)))
    res = await ws.run("cat ~/.aws/credentials ~/.netrc ~/notes.txt; ls -A ~/.aws")
    assert "leak-5" not in res.output and "leak-6" not in res.output
    assert "visible" in res.output
    shown = await Workspace(
        ws_root, allow={"run"}, sandbox=SandboxOptions(writable=(str(home),), home="visible")
    ).run("cat ~/.aws/credentials")
    assert "leak-5" in shown.output  # the option does what it says


def test_a_workspace_inside_a_hidden_store_stays_visible(tmp_path: Path) -> None:
    home = tmp_path / "home"
    root = home / ".config" / "tool"
    root.mkdir(parents=True)
    (home / ".ssh").mkdir()
    joined = " ".join(Sandbox(root, environ={"HOME": str(home)}).argv("ls"))
    assert f"--tmpfs {home}/.ssh" in joined and f"--tmpfs {home}/.config" not in joined


def test_a_hidden_home_is_an_empty_directory_under_the_workspace(tmp_path: Path) -> None:
    home = tmp_path / "home"
    root = home / "project"
    root.mkdir(parents=True)
    argv = Sandbox(root, SandboxOptions(home="hidden"), environ={"HOME": str(home)}).argv("ls")
    joined = " ".join(argv)
    assert f"--tmpfs {home} " in joined and f"--bind {root} {root}" in joined
    assert joined.index(f"--tmpfs {home} ") < joined.index(f"--bind {root}")  # root shows


@needs_bwrap
async def test_the_network_is_off_by_default_even_loopback(ws_root: Path) -> None:
    server = socket.create_server(("127.0.0.1", 0))
    port = server.getsockname()[1]

    def accept() -> None:
        with contextlib.suppress(OSError):  # closed unvisited when the probe cannot connect
            server.accept()[0].close()

    threading.Thread(target=accept, daemon=True).start()
    # bash's /dev/tcp, not this venv's Python: the sandbox's private /tmp hides a venv that
    # lives there (a CI checkout in /tmp, say).
    probe = f"bash -c 'exec 3<>/dev/tcp/127.0.0.1/{port}'"
    try:
        on = await Sandbox(ws_root, SandboxOptions(network=True)).run(probe, timeout=30, limit=4000)
        off = await Sandbox(ws_root).run(probe, timeout=30, limit=4000)
    finally:
        server.close()
    assert on.exit_code == 0, on.output
    assert off.exit_code != 0 and "connect" in off.output


# -- processes ----------------------------------------------------------------------------------


@pytest.mark.parametrize("mode", MODES)
async def test_detached_children_die_at_the_timeout(ws_root: Path, mode: str) -> None:
    """`setsid` and a double fork leave the process group and keep the output pipe open: the
    run still returns at its timeout and nothing it started is left."""
    marker = f"3599.{os.getpid()}{len(mode)}1"
    # 2 s: time for the shell to start the children on a loaded machine, not a sleep.
    ws = Workspace(ws_root, allow={"run"}, run_timeout=2, sandbox=mode)  # type: ignore[arg-type]
    started = time.monotonic()
    res = await ws.run(
        f"setsid sleep {marker} & (sh -c 'sleep {marker} &' &) ; echo up; sleep {marker}"
    )
    assert res.timed_out and "up" in res.output
    assert time.monotonic() - started < 2 + 5
    assert _gone(marker)


@pytest.mark.parametrize("mode", MODES)
async def test_a_finished_command_leaves_nothing_holding_its_output(
    ws_root: Path, mode: str
) -> None:
    marker = f"3599.{os.getpid()}{len(mode)}2"
    ws = Workspace(ws_root, allow={"run"}, run_timeout=30, sandbox=mode)  # type: ignore[arg-type]
    started = time.monotonic()
    res = await ws.run(f"setsid sleep {marker} & echo bye")
    assert not res.timed_out and res.exit_code == 0 and "bye" in res.output
    assert time.monotonic() - started < 5
    assert _gone(marker)


@pytest.mark.parametrize("mode", MODES)
async def test_a_detached_child_that_closed_its_output_dies_too(ws_root: Path, mode: str) -> None:
    """Nothing holds the output and it left the process group: the PID namespace takes it
    (bwrap); unsandboxed, the subreaper helper finds it (max_processes=0: no cgroup to help)."""
    marker = f"3599.{os.getpid()}{len(mode)}3"
    options = SandboxOptions(mode=mode, max_processes=0)  # type: ignore[arg-type]
    res = await Workspace(ws_root, allow={"run"}, run_timeout=30, sandbox=options).run(
        f"setsid sh -c 'exec >/dev/null 2>&1 </dev/null; sleep {marker}' & echo bye"
    )
    assert res.exit_code == 0 and "bye" in res.output and _gone(marker)


@pytest.mark.parametrize("mode", MODES)
async def test_a_silent_detached_child_dies_at_the_timeout(ws_root: Path, mode: str) -> None:
    marker = f"3599.{os.getpid()}{len(mode)}7"
    options = SandboxOptions(mode=mode, max_processes=0)  # type: ignore[arg-type]
    # 2 s: time for the shell to start the child on a loaded machine, not a sleep.
    res = await Workspace(ws_root, allow={"run"}, run_timeout=2, sandbox=options).run(
        f"setsid sh -c 'exec >/dev/null 2>&1 </dev/null; sleep {marker}' & sleep {marker}"
    )
    assert res.timed_out and _gone(marker)


@needs_bwrap
async def test_many_background_processes_are_bounded_by_the_timeout(ws_root: Path) -> None:
    """A (mild) fork storm: 60 detached sleepers, all gone with the namespace."""
    marker = f"3599.{os.getpid()}4"
    res = await Workspace(ws_root, allow={"run"}, run_timeout=3).run(
        f"for i in $(seq 60); do (setsid sleep {marker} &); done; echo spawned; sleep {marker}"
    )
    assert res.timed_out and "spawned" in res.output
    assert _gone(marker)


@pytest.mark.parametrize("mode", MODES)
async def test_a_cancelled_run_kills_the_command(ws_root: Path, mode: str) -> None:
    marker = f"3599.{os.getpid()}{len(mode)}5"
    ws = Workspace(ws_root, allow={"run"}, sandbox=mode)  # type: ignore[arg-type]
    task = asyncio.ensure_future(ws.run(f"echo go > go; sleep {marker}"))
    while not (ws_root / "go").exists():
        await asyncio.sleep(0.01)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert _gone(marker)


# -- output -------------------------------------------------------------------------------------


@pytest.mark.parametrize("mode", MODES)
async def test_a_flood_is_capped_while_it_streams(ws_root: Path, mode: str) -> None:
    """20 MB of output: the head and the tail come back, the middle is counted, not kept."""
    sandbox = Sandbox(ws_root, SandboxOptions(mode=mode))  # type: ignore[arg-type]
    out = await sandbox.run(
        "echo FIRST; head -c 20000000 /dev/zero | tr '\\0' x; echo; echo LAST",
        timeout=60,
        limit=3000,
    )
    assert out.exit_code == 0 and out.total_bytes == 20_000_000 + len("FIRST\n\nLAST\n")
    assert out.output.startswith("FIRST\n") and out.output.endswith("LAST\n")
    assert f"[... {out.cut_bytes:,} bytes cut ...]" in out.output
    assert len(out.output) < 3100


@pytest.mark.parametrize("mode", MODES)
async def test_an_endless_flood_is_bounded_by_the_timeout(ws_root: Path, mode: str) -> None:
    sandbox = Sandbox(ws_root, SandboxOptions(mode=mode))  # type: ignore[arg-type]
    out = await sandbox.run("yes", timeout=0.5, limit=1000)
    assert out.timed_out and out.cut_bytes > 0 and len(out.output) < 1100


# -- no sandbox: a refusal, never a fallback ----------------------------------------------------


async def test_without_bubblewrap_commands_are_refused_in_one_line(ws_root: Path) -> None:
    asked: list[ApprovalRequest] = []

    async def approve(request: ApprovalRequest) -> Decision:
        asked.append(request)
        return True

    ws = Workspace(ws_root, approve=approve, sandbox=SandboxOptions(program="/nonexistent/bwrap"))
    with pytest.raises(WorkspaceError) as caught:
        await ws.run("touch ran")
    message = str(caught.value)
    assert "\n" not in message and "not available" in message and "'off'" in message
    assert "apt-get install bubblewrap" in message
    assert asked == [] and not (ws_root / "ran").exists()
    with pytest.raises(SandboxError, match="not available"):
        ws.sandbox.check()
    # The opt-out is the user's explicit choice, and it runs.
    off = Workspace(ws_root, allow={"run"}, sandbox="off")
    assert (await off.run("touch ran")).exit_code == 0 and (ws_root / "ran").exists()
    assert "unconfined" in off.sandbox.describe()


def test_options_from_a_settings_table() -> None:
    opts = SandboxOptions.from_mapping(
        {
            "mode": "off",
            "network": False,
            "env": ["CARGO_HOME"],
            "writable": ["/var/cache/x"],
            "home": "hidden",
        }
    )
    assert opts == SandboxOptions("off", False, ("CARGO_HOME",), ("/var/cache/x",), "hidden")
    with pytest.raises(SandboxError, match=r"settings.sandbox: unknown key 'net'"):
        SandboxOptions.from_mapping({"net": False}, "settings.sandbox")
    with pytest.raises(SandboxError, match=r"sandbox.network: expected true or false"):
        SandboxOptions.from_mapping({"network": "no"})
    with pytest.raises(SandboxError, match="not one of bwrap, off"):
        SandboxOptions.from_mapping({"mode": "docker"})
    with pytest.raises(SandboxError, match="must be absolute"):
        SandboxOptions(writable=("rel",))


# -- sockets: unix sockets outside the workspace are out of reach --------------------------------


def _listening(path: str) -> socket.socket:
    server = socket.socket(socket.AF_UNIX)
    server.bind(path)
    server.listen()
    return server


@needs_bwrap
async def test_unix_sockets_outside_the_workspace_are_hidden(ws_root: Path) -> None:
    """A daemon's socket (docker's /var/run/docker.sock, say) is not a socket in the sandbox:
    /run is an empty tmpfs, and a socket bound anywhere else outside the workspace is covered
    with /dev/null. One in the workspace stays (the project's own server)."""
    places = [d for d in ("/run", "/var/tmp") if os.access(d, os.W_OK)]
    if not places:
        pytest.skip("neither /run nor /var/tmp is writable here")
    paths = [f"{d}/prefixlock-test-{os.getpid()}.sock" for d in places]
    servers = [_listening(p) for p in paths]
    inside = _listening(str(ws_root / "own.sock"))
    try:
        checks = "; ".join(f"test -S {p} && echo reachable {p}" for p in paths)
        res = await Sandbox(ws_root).run(
            f"{checks}; test -S own.sock && echo own-ok", timeout=30, limit=4000
        )
    finally:
        for server, path in zip([*servers, inside], [*paths, "own.sock"], strict=True):
            server.close()
            with contextlib.suppress(OSError):
                os.unlink(path if os.path.isabs(path) else ws_root / path)
    assert "reachable" not in res.output and "own-ok" in res.output, res.output


@needs_bwrap
async def test_abstract_sockets_only_vanish_without_network(ws_root: Path) -> None:
    """Abstract unix sockets live in the network namespace: `network=False` hides them (the
    sandbox's /proc/net/unix no longer lists ours, the default); with the network on they are
    reachable."""
    name = f"prefixlock-test-{os.getpid()}"
    server = socket.socket(socket.AF_UNIX)
    server.bind("\0" + name)
    server.listen()
    probe = f"grep -c @{name} /proc/net/unix"
    try:
        on = await Sandbox(ws_root, SandboxOptions(network=True)).run(probe, timeout=30, limit=4000)
        off = await Sandbox(ws_root).run(probe, timeout=30, limit=4000)  # off by default
    finally:
        server.close()
    assert on.output.strip() == "1" and off.output.strip() == "0", (on.output, off.output)


# -- toolchains under /tmp ----------------------------------------------------------------------


@needs_bwrap
async def test_a_toolchain_under_tmp_still_runs_while_tmp_stays_private(tmp_path: Path) -> None:
    """A CI checkout in /tmp whose venv is in /tmp too: the PATH entry's prefix (bin/'s parent,
    with its lib/) shows read-only; the rest of /tmp stays private."""
    assert str(tmp_path).startswith("/tmp/"), "pytest's tmp_path is expected under /tmp"
    tool = tmp_path / "ci" / ".venv"
    (tool / "bin").mkdir(parents=True)
    (tool / "lib").mkdir()
    (tool / "lib" / "data.txt").write_text("lib-ok\n")
    script = tool / "bin" / "hello-tool"
    script.write_text(f"#!/bin/sh\ncat {tool}/lib/data.txt\n")
    script.chmod(0o755)
    (tmp_path / "private.txt").write_text("not for the sandbox\n")
    root = tmp_path / "ws"
    root.mkdir()
    environ = {"PATH": f"{tool / 'bin'}:/usr/bin:/bin", "HOME": "/"}
    res = await Sandbox(root, environ=environ).run(
        f"hello-tool; cat {tmp_path}/private.txt; touch {tool}/lib/new && echo wrote; "
        "touch made-here && echo ws-writable",
        timeout=30,
        limit=4000,
    )
    assert "lib-ok" in res.output and "ws-writable" in res.output, res.output
    assert "not for the sandbox" not in res.output and "wrote" not in res.output
    assert not (tool / "lib" / "new").exists()


# -- the process cap: a fork bomb meets a wall and is stopped ------------------------------------


@pytest.mark.parametrize("mode", MODES)
async def test_a_fork_bomb_is_stopped_at_the_process_cap(ws_root: Path, mode: str) -> None:
    """The classic `:(){ :|:& };:` while the command waits: it stops at the cap (64 here),
    is killed well before the timeout, says why, and leaves nothing behind."""
    sandbox = Sandbox(ws_root, SandboxOptions(mode=mode, max_processes=64))  # type: ignore[arg-type]
    why = sandbox.cap_problem()
    if why:  # never run a fork bomb nothing caps: it would take the machine
        pytest.skip(f"no process cap here: {why}")
    marker = f"3599.{os.getpid()}{len(mode)}6"
    started = time.monotonic()
    out = await sandbox.run(f"bash -c ':(){{ :|:& }};:'; sleep {marker}", timeout=60, limit=4000)
    took = time.monotonic() - started
    assert "limit of 64 processes" in out.killed_for, out
    assert not out.timed_out and out.exit_code is None
    assert took < 20, took
    assert _gone(marker)
    assert subprocess.run(["true"], check=False).returncode == 0  # the machine still forks


async def test_a_build_under_the_cap_is_untouched(ws_root: Path) -> None:
    """Many processes, one after another, never more than a few at once: no stop."""
    sandbox = Sandbox(ws_root, SandboxOptions(mode="off", max_processes=16))
    out = await sandbox.run("for i in $(seq 40); do true & wait; done; echo fine", timeout=60,
                            limit=4000)  # fmt: skip
    assert out.exit_code == 0 and out.killed_for == "" and "fine" in out.output


async def test_a_command_that_ends_at_the_cap_before_the_watch_looks_is_still_reported(
    ws_root: Path,
) -> None:
    """A refused fork can end the shell at once, before the first poll: the cgroup's count of
    refused forks still says why (this was a flaky CI failure under load)."""
    sandbox = Sandbox(ws_root, SandboxOptions(mode="off", max_processes=8))
    if why := sandbox.cap_problem():
        pytest.skip(f"no process cap here: {why}")
    from prefixlock.coding import proclimit

    if proclimit._hierarchy() is None:
        pytest.skip("the after-the-end check reads the pids cgroup")
    out = await sandbox.run("for i in $(seq 40); do sleep 30 & done 2>/dev/null; true",
                            timeout=60, limit=4000)  # fmt: skip
    assert out.killed_for.startswith("it reached the limit of 8 processes"), out


def test_the_cap_option_is_checked() -> None:
    assert SandboxOptions.from_mapping({"max_processes": 200}).max_processes == 200
    with pytest.raises(SandboxError, match=r"sandbox.max_processes: expected a whole number"):
        SandboxOptions.from_mapping({"max_processes": "many"})
    with pytest.raises(SandboxError, match=r"expected 0 \(no cap\) or 8 or more"):
        SandboxOptions(max_processes=3)
    assert "processes" in Sandbox(Path("/"), SandboxOptions(mode="off")).describe()


async def test_the_run_tool_reports_the_cap_as_an_error(ws_root: Path) -> None:
    from tests.helpers.sandbox import BWRAP_PROBLEM

    mode: SandboxMode = "bwrap" if BWRAP_PROBLEM is None else "off"
    ws = Workspace(ws_root, allow={"run"}, sandbox=SandboxOptions(mode=mode, max_processes=32))
    if why := ws.sandbox.cap_problem():
        pytest.skip(f"no process cap here: {why}")
    run = next(t for t in ws.tools() if t.name == "run_command")
    with pytest.raises(WorkspaceError, match=r"\[killed: it reached the limit of 32 processes"):
        await run.fn(command="bash -c ':(){ :|:& };:'; sleep 60", timeout=60)


@needs_bwrap
async def test_the_command_cannot_leave_its_cgroup(ws_root: Path) -> None:
    sandbox = Sandbox(ws_root, SandboxOptions(max_processes=64))
    if os.geteuid() != 0 or sandbox.cap_problem():
        pytest.skip("the cap is a pids cgroup only as root")
    out = await sandbox.run(
        "for f in $(find /sys/fs/cgroup -maxdepth 3 -name cgroup.procs); do echo 0 > $f; done "
        "2>/dev/null; grep -E '(pids|^0:)' /proc/self/cgroup",
        timeout=30,
        limit=4000,
    )
    assert "prefixlock-" in out.output, out.output


def test_cgroups_left_by_a_killed_process_are_swept(ws_root: Path) -> None:
    from prefixlock.coding import proclimit

    where = proclimit._hierarchy()
    if where is None:
        pytest.skip("no pids cgroup can be made here")
    gone = subprocess.Popen(["true"])
    gone.wait()
    stale = where.parent / f"prefixlock-{gone.pid}-0"
    stale.mkdir()
    proclimit._swept.discard(where.parent)
    made = proclimit.PidsCgroup.create(64)
    assert made is not None and made.remove()
    assert not stale.exists()
