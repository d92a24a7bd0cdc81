"""The file tools check the path again when they open it: a directory swapped for a symlink, or
a file swapped for a FIFO, after the path was checked cannot leak outside content, write outside
the workspace or hang a tool; a symlink loop breaks nothing but itself."""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from prefixlock.coding.workspace import Workspace, WorkspaceError


@pytest.fixture
def layout(tmp_path: Path) -> tuple[Path, Path]:
    root = tmp_path / "ws"
    (root / "d").mkdir(parents=True)
    (root / "d" / "f.txt").write_text("inside\n")
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "f.txt").write_text("SECRET\n")
    return root, outside


class SwapAfterCheck(Workspace):
    """A workspace whose every path check is followed at once by `swap`: the attacker's
    best timing, made deterministic."""

    swap: Callable[[], None] = staticmethod(lambda: None)
    checks = 0
    swap_at = 1  # which path check the swap follows (grep checks its path twice)

    def resolve(self, path: str) -> Path:
        real = super().resolve(path)
        self.checks += 1
        if self.checks == self.swap_at:
            self.swap()
        return real


def _dir_to_link(root: Path, outside: Path) -> Callable[[], None]:
    def swap() -> None:
        if not (root / "d").is_symlink():
            (root / "d").rename(root / "d.real")
            (root / "d").symlink_to(outside)

    return swap


async def test_a_directory_swapped_for_a_link_after_the_check_is_refused(
    layout: tuple[Path, Path],
) -> None:
    root, outside = layout
    ws = SwapAfterCheck(root, allow={"write"})
    ws.swap = _dir_to_link(root, outside)
    with pytest.raises(WorkspaceError, match="changed while in use"):
        ws.read("d/f.txt")
    (root / "d").unlink()
    (root / "d.real").rename(root / "d")
    here = SwapAfterCheck(root, grep_process=False)  # the search as grep's child runs it
    here.swap, here.swap_at = _dir_to_link(root, outside), 2
    assert here.grep("CRET|inside", "d/f.txt") == "no matches for 'CRET|inside'"  # skipped
    (root / "d").unlink()
    (root / "d.real").rename(root / "d")
    ws.swap, ws.checks = _dir_to_link(root, outside), 0
    with pytest.raises(WorkspaceError, match="changed while in use"):
        await ws.write("d/f.txt", "pwned\n")
    (root / "d").unlink()
    (root / "d.real").rename(root / "d")
    ws.swap, ws.checks = _dir_to_link(root, outside), 0
    with pytest.raises(WorkspaceError, match="changed while in use"):
        await ws.edit("d/f.txt", "inside", "pwned")
    assert (outside / "f.txt").read_text() == "SECRET\n"
    assert sorted(p.name for p in outside.iterdir()) == ["f.txt"]


def test_a_grep_over_a_tree_skips_what_was_swapped(layout: tuple[Path, Path]) -> None:
    root, outside = layout
    (root / "top.txt").write_text("inside top\n")
    ws = SwapAfterCheck(root, grep_process=False)
    ws.swap, ws.swap_at = _dir_to_link(root, outside), 2  # after the checks, before the opens
    out = ws.grep("CRET|inside")  # the pattern itself must not hold the word
    assert "SECRET" not in out and "top.txt:1: inside top" in out


def test_a_file_swapped_for_a_fifo_is_refused_without_blocking(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    root.mkdir()
    (root / "a.txt").write_text("hello\n")

    def to_fifo() -> None:
        (root / "a.txt").unlink()
        os.mkfifo(root / "a.txt")

    ws = SwapAfterCheck(root)
    ws.swap = to_fifo
    result: list[object] = []
    worker = threading.Thread(target=lambda: result.append(_refusal(ws.read, "a.txt")))
    worker.start()
    worker.join(10)
    if worker.is_alive():  # unblock the read so the test ends, then fail
        with open(root / "a.txt", "wb"):
            pass
        pytest.fail("read_file blocked on a FIFO")
    assert "not a regular file" in str(result[0])


def _refusal(call: Callable[[str], str], arg: str) -> str:
    try:
        return "returned: " + call(arg)
    except WorkspaceError as exc:
        return str(exc)


async def test_fifos_and_devices_are_refused_by_every_file_tool(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    root.mkdir()
    os.mkfifo(root / "pipe")
    (root / "ok.txt").write_text("pipe dream\n")
    ws = Workspace(root, allow={"write"})
    assert "not a regular file" in _refusal(ws.read, "pipe")
    assert ws.grep("pipe").splitlines() == ["ok.txt:1: pipe dream"]  # skipped, no hang
    with pytest.raises(WorkspaceError, match="not a regular file"):
        await ws.write("pipe", "x")
    with pytest.raises(WorkspaceError, match="not a regular file"):
        await ws.edit("pipe", "a", "b")


def test_swapping_in_a_loop_never_leaks_outside_content(layout: tuple[Path, Path]) -> None:
    """The race as it happens: a thread flips `d` between a directory and a link to outside
    while reads run; every read is the inside content or a refusal, never the outside one."""
    root, outside = layout
    ws = Workspace(root)
    stop = threading.Event()

    def flip() -> None:
        while not stop.is_set():
            (root / "d").rename(root / "d.real")
            (root / "d").symlink_to(outside)
            (root / "d").unlink()
            (root / "d.real").rename(root / "d")

    flipper = threading.Thread(target=flip)
    flipper.start()
    seen: set[str] = set()
    try:
        # 1.5 s of races, and on a loaded machine on until one read landed inside (bounded).
        end, give_up = time.monotonic() + 1.5, time.monotonic() + 60
        while time.monotonic() < end or (
            not any("inside" in s for s in seen) and time.monotonic() < give_up
        ):
            seen.add(_refusal(ws.read, "d/f.txt").split("\n")[0][:40])
            seen.add(_refusal(lambda p: ws.grep("CRET|inside", p), "d")[:40])
    finally:
        stop.set()
        flipper.join()
    assert not any("SECRET" in s for s in seen), seen
    assert any("inside" in s for s in seen)


def test_a_symlink_loop_breaks_nothing_but_itself(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    (root / "src").mkdir(parents=True)
    (root / "src" / "a.py").write_text("x = 1\n")
    (root / "src" / "loop1").symlink_to(root / "src" / "loop2")
    (root / "src" / "loop2").symlink_to(root / "src" / "loop1")
    ws = Workspace(root)
    assert ws.glob("**/*.py") == "src/a.py"
    assert ws.grep("x =") == "src/a.py:1: x = 1"
    assert ws.list_dir("src").splitlines()[0] == "a.py"
    with pytest.raises(WorkspaceError):
        ws.read("src/loop1")


def test_names_from_outside_never_show_in_a_listing(layout: tuple[Path, Path]) -> None:
    """list_dir and glob walk from directory descriptors opened without following links: a
    directory swapped for a link after its check lists nothing from outside."""
    root, outside = layout
    (outside / "outside-name.txt").write_text("x\n")
    for call in (lambda ws: ws.list_dir("d"), lambda ws: ws.glob("*", "d")):
        ws = SwapAfterCheck(root)
        ws.swap = _dir_to_link(root, outside)
        shown = _refusal(call, ws)  # type: ignore[arg-type]
        assert "outside-name" not in shown, shown
        assert "changed while in use" in shown
        (root / "d").unlink()
        (root / "d.real").rename(root / "d")


def test_a_listing_during_a_swap_loop_never_names_outside(layout: tuple[Path, Path]) -> None:
    root, outside = layout
    (outside / "outside-name.txt").write_text("x\n")
    (root / "d" / "sub").mkdir()
    ws = Workspace(root)
    stop = threading.Event()

    def flip() -> None:
        while not stop.is_set():
            (root / "d" / "sub").rename(root / "d" / "sub.real")
            (root / "d" / "sub").symlink_to(outside)
            (root / "d" / "sub").unlink()
            (root / "d" / "sub.real").rename(root / "d" / "sub")

    flipper = threading.Thread(target=flip)
    flipper.start()
    seen: list[str] = []
    try:
        end = time.monotonic() + 1.5
        while time.monotonic() < end:
            seen.append(_refusal(ws.list_dir, "d/sub"))
            seen.append(_refusal(lambda p: ws.glob("**/*", p), "d"))
    finally:
        stop.set()
        flipper.join()
    assert not any("outside-name" in s for s in seen), [s for s in seen if "outside" in s][:3]


# -- read deny rules (`Read(.env)`) hold for folder-wide tools too -------------------------------


@pytest.fixture
def with_secrets(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    (root / "keys").mkdir(parents=True)
    (root / ".env").write_text("API_TOKEN=secret-1\n")
    (root / "keys" / "server.pem").write_text("TOKEN secret-2\n")
    (root / "app.py").write_text("TOKEN = os.environ['API_TOKEN']\n")
    return root


def _deny(rel: str) -> str | None:
    """A deny matcher as the settings give one: the rule's text, or None."""
    if rel == ".env":
        return "Read(.env)"
    if rel == "keys" or rel.startswith("keys/"):
        return "Read(keys/)"
    return None


@pytest.mark.parametrize("child", [True, False])
def test_denied_paths_are_left_out_of_grep_glob_and_list_dir(
    with_secrets: Path, child: bool
) -> None:
    ws = Workspace(with_secrets, read_denied=_deny, grep_process=child)
    found = ws.grep("TOKEN")
    assert "secret" not in found and "app.py:1:" in found
    assert "2 paths left out (denied by Read(.env), Read(keys/))" in found
    globbed = ws.glob("**/*")
    assert ".env" not in globbed.split("\n") and "server.pem" not in globbed
    assert "app.py" in globbed and "left out (denied by" in globbed
    listed = ws.list_dir(".")
    assert ".env" not in listed.split("\n") and "keys/" not in listed.split("\n")
    assert "2 entries left out (denied by Read(.env), Read(keys/))" in listed
    with pytest.raises(WorkspaceError, match=r"denied by Read\(\.env\)"):
        ws.read(".env")
    with pytest.raises(WorkspaceError, match=r"denied by Read\(keys/\)"):
        ws.grep("TOKEN", "keys/server.pem")
    nothing = ws.grep("secret")
    assert "secret-" not in nothing and nothing.startswith("no matches")


def test_the_chat_wires_its_read_rules_into_the_workspace(with_secrets: Path) -> None:
    from prefixlock.coding.settings_files import ChatSettings, Rule
    from prefixlock.tui.backend import BackendOptions, ChatBackend

    deny = (Rule("Read", ".env", "Read(.env)", "settings.toml (permissions.deny[0])"),)
    backend = ChatBackend(
        BackendOptions(workspace=with_secrets, chat_settings=ChatSettings(deny=deny))
    )
    assert "secret-1" not in backend.workspace.grep("TOKEN")
