"""`edit_file` and `write_file` change only the bytes they are asked to: a file that is not
UTF-8 (Latin-1, a stray byte), CRLF line ends and a BOM come back byte-identical outside the
edit, and the approval diff shows what will really be written."""

from __future__ import annotations

from pathlib import Path

import pytest

from prefixlock.coding.workspace import ApprovalRequest, Decision, Workspace, WorkspaceError


class Recorder:
    def __init__(self) -> None:
        self.asked: list[ApprovalRequest] = []

    async def __call__(self, request: ApprovalRequest) -> Decision:
        self.asked.append(request)
        return True


async def test_a_latin1_file_keeps_its_untouched_bytes(tmp_path: Path) -> None:
    path = tmp_path / "notes.txt"
    before = "caf\xe9 au lait\r\nprice = 1\r\nna\xefve\r\n".encode("latin-1")
    path.write_bytes(before)
    asked = Recorder()
    ws = Workspace(tmp_path, approve=asked)
    await ws.edit("notes.txt", "price = 1", "price = 2")
    assert path.read_bytes() == before.replace(b"price = 1", b"price = 2")
    (req,) = asked.asked
    # The diff changes one line, and shows the undecodable byte as an escape, not as U+FFFD.
    assert "-price = 1" in req.detail and "+price = 2" in req.detail
    assert "\ufffd" not in req.detail
    assert "caf\\xe9" in req.detail and req.summary.endswith("(+1 -1)")


async def test_utf8_bom_crlf_and_no_final_newline_survive(tmp_path: Path) -> None:
    path = tmp_path / "a.cs"
    before = b"\xef\xbb\xbfclass A {\r\n  int x = 1;\r\n}"
    path.write_bytes(before)
    ws = Workspace(tmp_path, allow={"write"})
    await ws.edit("a.cs", "x = 1", "x = 2")
    assert path.read_bytes() == before.replace(b"x = 1", b"x = 2")


async def test_an_edit_that_would_split_an_undecodable_byte_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "b.txt"
    path.write_bytes(b"caf\xe9\n")
    ws = Workspace(tmp_path, allow={"write"})
    # The model copied the line as read_file showed it (with U+FFFD): not in the file.
    with pytest.raises(WorkspaceError, match="not valid UTF-8"):
        await ws.edit("b.txt", "caf\ufffd", "cafe")
    assert path.read_bytes() == b"caf\xe9\n"


async def test_new_text_with_lone_surrogates_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "c.txt"
    path.write_bytes(b"abc\n")
    ws = Workspace(tmp_path, allow={"write"})
    with pytest.raises(WorkspaceError, match="cannot be written as UTF-8"):
        await ws.edit("c.txt", "abc", "a\udce9c")
    with pytest.raises(WorkspaceError, match="cannot be written as UTF-8"):
        await ws.write("d.txt", "x\ud800")
    assert path.read_bytes() == b"abc\n" and not (tmp_path / "d.txt").exists()
