"""The workspace tools stay inside the root, ask before writing or running, and tell the model why
they refused."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from prefixlock.canonical import canonical_json
from prefixlock.coding.sandbox import SandboxMode
from prefixlock.coding.workspace import ApprovalRequest, Decision, Workspace, WorkspaceError
from tests.helpers.sandbox import MODES


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    (root / "src").mkdir(parents=True)
    (root / "src" / "app.py").write_text("def main():\n    return 1\n")
    (root / "README.md").write_text("# demo\nTODO: docs\n")
    (tmp_path / "secret.txt").write_text("top secret\n")
    return root


class Recorder:
    """An approval callback that answers a fixed decision and remembers what it was asked."""

    def __init__(self, answer: Decision) -> None:
        self.answer = answer
        self.asked: list[ApprovalRequest] = []

    async def __call__(self, request: ApprovalRequest) -> Decision:
        self.asked.append(request)
        return self.answer


async def test_dotdot_escape_is_refused_with_a_message_for_the_model(tree: Path) -> None:
    ws = Workspace(tree)
    tools = {t.name: t for t in ws.tools()}
    with pytest.raises(WorkspaceError, match="outside the workspace"):
        await tools["read_file"].invoke({"path": "../secret.txt"})
    with pytest.raises(WorkspaceError, match="outside the workspace"):
        await tools["read_file"].invoke({"path": "src/../../secret.txt"})


async def test_absolute_paths_outside_are_refused_inside_are_fine(tree: Path) -> None:
    ws = Workspace(tree)
    with pytest.raises(WorkspaceError, match="outside the workspace"):
        ws.read(str(tree.parent / "secret.txt"))
    with pytest.raises(WorkspaceError, match="outside the workspace"):
        ws.read("/etc/passwd")
    assert "return 1" in ws.read(str(tree / "src" / "app.py"))


@pytest.mark.skipif(sys.platform == "win32", reason="symlinks")
async def test_symlink_escape_is_refused_for_every_tool(tree: Path) -> None:
    (tree / "leak.txt").symlink_to(tree.parent / "secret.txt")
    (tree / "outdir").symlink_to(tree.parent)
    ws = Workspace(tree, allow={"write"})
    with pytest.raises(WorkspaceError, match="outside the workspace"):
        ws.read("leak.txt")
    with pytest.raises(WorkspaceError, match="outside the workspace"):
        ws.read("outdir/secret.txt")
    with pytest.raises(WorkspaceError, match="outside the workspace"):
        await ws.write("outdir/new.txt", "x")
    with pytest.raises(WorkspaceError, match="outside the workspace"):
        await ws.write("leak.txt", "overwrite")
    assert not (tree.parent / "new.txt").exists()
    assert (tree.parent / "secret.txt").read_text() == "top secret\n"
    # Searching never follows a link out of the workspace.
    assert "top secret" not in ws.grep("secret")
    assert "secret.txt" not in ws.glob("**/*.txt")
    assert "(outside the workspace)" in ws.list_dir(".")


async def test_symlink_inside_the_workspace_is_followed(tree: Path) -> None:
    (tree / "alias.py").symlink_to(tree / "src" / "app.py")
    assert "return 1" in Workspace(tree).read("alias.py")


async def test_approval_denied_writes_nothing(tree: Path) -> None:
    deny = Recorder(False)
    ws = Workspace(tree, approve=deny, sandbox="off")  # asked even where bwrap cannot run
    tools = {t.name: t for t in ws.tools()}
    with pytest.raises(WorkspaceError, match="declined"):
        await tools["write_file"].invoke({"path": "new.py", "content": "x = 1\n"})
    with pytest.raises(WorkspaceError, match="declined"):
        await tools["edit_file"].invoke(
            {"path": "src/app.py", "old_string": "return 1", "new_string": "return 2"}
        )
    with pytest.raises(WorkspaceError, match="declined"):
        await tools["run_command"].invoke({"command": "touch ran.txt"})
    assert not (tree / "new.py").exists()
    assert not (tree / "ran.txt").exists()
    assert (tree / "src" / "app.py").read_text() == "def main():\n    return 1\n"
    assert [r.tool for r in deny.asked] == ["write_file", "edit_file", "run_command"]
    # The user saw the diff before deciding.
    assert "-    return 1" in deny.asked[1].detail and "+    return 2" in deny.asked[1].detail
    assert deny.asked[2].detail == "touch ran.txt"


async def test_no_callback_and_not_allowed_refuses(tree: Path) -> None:
    ws = Workspace(tree)
    with pytest.raises(WorkspaceError, match="not allowed"):
        await ws.write("a.txt", "a")
    assert not (tree / "a.txt").exists()


async def test_session_allowance_stops_asking(tree: Path) -> None:
    rec = Recorder("session")
    ws = Workspace(tree, approve=rec)
    await ws.write("a.txt", "a\n")
    await ws.write("b.txt", "b\n")
    assert len(rec.asked) == 1 and "write" in ws.allowed
    assert (tree / "b.txt").read_text() == "b\n"
    ws2 = Workspace(tree, approve=Recorder(False), allow={"write", "run"})
    await ws2.write("c.txt", "c")
    assert (tree / "c.txt").read_text() == "c"


async def test_edit_returns_a_unified_diff_and_checks_uniqueness(tree: Path) -> None:
    ws = Workspace(tree, allow={"write"})
    out = await ws.edit("src/app.py", "return 1", "return 42")
    assert "--- a/src/app.py" in out and "+++ b/src/app.py" in out
    assert "-    return 1" in out and "+    return 42" in out
    assert (tree / "src" / "app.py").read_text() == "def main():\n    return 42\n"
    (tree / "dup.txt").write_text("a a a\n")
    with pytest.raises(WorkspaceError, match="3 times"):
        await ws.edit("dup.txt", "a", "b")
    await ws.edit("dup.txt", "a", "b", replace_all=True)
    assert (tree / "dup.txt").read_text() == "b b b\n"
    with pytest.raises(WorkspaceError, match="not found"):
        await ws.edit("dup.txt", "zzz", "y")


async def test_read_list_glob_grep(tree: Path) -> None:
    ws = Workspace(tree)
    assert ws.read("src/app.py") == "1\tdef main():\n2\t    return 1"
    assert ws.read("src/app.py", offset=2, limit=1) == "2\t    return 1"
    assert ws.list_dir(".") == "README.md\nsrc/"
    assert ws.glob("**/*.py") == "src/app.py"
    assert ws.glob("*.md") == "README.md"
    assert ws.grep("TODO") == "README.md:2: TODO: docs"
    assert ws.grep("return", glob="*.py") == "src/app.py:2: return 1"
    with pytest.raises(WorkspaceError, match="no such file"):
        ws.read("missing.py")
    with pytest.raises(WorkspaceError, match="bad regular expression"):
        ws.grep("(")


@pytest.mark.parametrize("mode", MODES)
async def test_run_captures_output_exit_code_and_hides_keys(
    tree: Path, monkeypatch: pytest.MonkeyPatch, mode: SandboxMode
) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-should-not-leak")
    ws = Workspace(tree, allow={"run"}, sandbox=mode)
    res = await ws.run("echo hello; echo ${ANTHROPIC_API_KEY:-unset}; exit 3")
    assert res.exit_code == 3 and not res.timed_out
    assert "hello" in res.output and "unset" in res.output
    assert "sk-ant" not in res.render()
    assert res.render().endswith("[exit code 3]")


@pytest.mark.parametrize("mode", MODES)
async def test_run_timeout_kills_and_output_is_capped(tree: Path, mode: SandboxMode) -> None:
    ws = Workspace(tree, allow={"run"}, run_timeout=0.5, output_limit=200, sandbox=mode)
    res = await ws.run("sleep 30")
    assert res.timed_out and res.exit_code is None
    ws.run_timeout = 60  # a loaded machine may take more than 0.5 s to start the pipe
    # Plain tools, not this venv's Python: the sandbox's private /tmp hides a venv there.
    big = await ws.run("head -c 5000 /dev/zero | tr '\\0' x")
    assert big.truncated and len(big.output) < 300 and "bytes cut" in big.output


def test_tool_specs_are_stable_and_machine_independent(tree: Path, tmp_path: Path) -> None:
    other = tmp_path / "elsewhere"
    other.mkdir()
    a = canonical_json([t.spec.to_dict() for t in Workspace(tree).tools()])
    b = canonical_json([t.spec.to_dict() for t in Workspace(other).tools()])
    assert a == b
    assert str(tree) not in a
    names = [t.name for t in Workspace(tree).read_only_tools()]
    assert names == ["read_file", "list_dir", "glob", "grep"]
    assert [t.name for t in Workspace(tree).tools()][4:] == [
        "edit_file",
        "write_file",
        "run_command",
    ]


def test_root_must_be_a_directory(tmp_path: Path) -> None:
    with pytest.raises(WorkspaceError):
        Workspace(tmp_path / "nope")
    assert os.path.isdir(tmp_path)


@pytest.mark.parametrize("mode", MODES)
async def test_a_timed_out_command_is_a_failed_tool_call(tree: Path, mode: SandboxMode) -> None:
    """The model and the screen see a failure (is_error, ✗), not a ✓ with '[timed out]'."""
    ws = Workspace(tree, allow={"run"}, run_timeout=2, sandbox=mode)
    run = {t.name: t for t in ws.tools()}["run_command"]
    with pytest.raises(WorkspaceError, match=r"timed out \(killed\)") as caught:
        await run.invoke({"command": "echo started; sleep 30"})
    assert "started" in str(caught.value)
    assert (await run.invoke({"command": "echo ok"})).endswith("[exit code 0]")
