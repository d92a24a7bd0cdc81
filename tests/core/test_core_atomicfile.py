"""The one atomic write (prefixlock.atomicfile): exact bytes, the old file or the new one and
never half, no temporary file left behind, permissions as an ordinary write would leave them."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from prefixlock.atomicfile import replacing, replacing_text, write_bytes, write_text


def _mode(p: Path) -> int:
    return stat.S_IMODE(p.stat().st_mode)


def test_bytes_are_written_exactly_and_nothing_else_is_left(tmp_path: Path) -> None:
    target = tmp_path / "f.bin"
    data = b"\x00\xff\r\n\r\nlast line without newline\x80"
    write_bytes(target, data)
    assert target.read_bytes() == data
    assert [p.name for p in tmp_path.iterdir()] == ["f.bin"]


def test_text_keeps_its_newlines_as_given(tmp_path: Path) -> None:
    target = tmp_path / "f.txt"
    write_text(target, "a\r\nb\nc\r")
    assert target.read_bytes() == b"a\r\nb\nc\r"
    with replacing_text(target) as fh:
        fh.write("é\r\n")
    assert target.read_bytes() == "é\r\n".encode()


def test_a_failure_half_way_leaves_the_old_file_and_no_temporary(tmp_path: Path) -> None:
    target = tmp_path / "keep.txt"
    target.write_text("old\n")
    with pytest.raises(RuntimeError), replacing(target) as fh:
        fh.write(b"half of the new")
        raise RuntimeError("stopped")
    assert target.read_text() == "old\n"
    assert [p.name for p in tmp_path.iterdir()] == ["keep.txt"]


def test_an_existing_file_keeps_its_mode_and_a_new_one_gets_the_umask(tmp_path: Path) -> None:
    kept = tmp_path / "script.sh"
    kept.write_text("#!/bin/sh\n")
    kept.chmod(0o750)
    write_text(kept, "#!/bin/sh\necho new\n")
    assert _mode(kept) == 0o750
    mask = os.umask(0o022)
    try:
        fresh = tmp_path / "fresh.txt"
        write_text(fresh, "x")
        assert _mode(fresh) == 0o644  # not mkstemp's private 0600
    finally:
        os.umask(mask)


def test_a_folder_that_cannot_be_written_is_an_oserror(tmp_path: Path) -> None:
    with pytest.raises(OSError):
        write_bytes(tmp_path / "no-such-folder" / "f", b"x")


def test_a_symlink_is_written_through_and_stays_a_link(tmp_path: Path) -> None:
    real = tmp_path / "real.json"
    real.write_text("old")
    link = tmp_path / "link.json"
    link.symlink_to(real)
    write_text(link, "new")
    assert link.is_symlink() and os.readlink(link) == str(real)
    assert real.read_text() == "new"
    dangling = tmp_path / "dangling.json"
    dangling.symlink_to(tmp_path / "made.json")
    write_text(dangling, "made")
    assert dangling.is_symlink() and (tmp_path / "made.json").read_text() == "made"


def test_a_fifo_gets_the_bytes_and_stays_a_fifo(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    reader = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)  # a reader is there: no wait to open
    try:
        write_bytes(fifo, b"through the pipe")
        assert os.read(reader, 100) == b"through the pipe"
    finally:
        os.close(reader)
    assert stat.S_ISFIFO(fifo.lstat().st_mode)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["pipe"]


def test_a_device_is_written_into_not_replaced(tmp_path: Path) -> None:
    link = tmp_path / "null"
    link.symlink_to("/dev/null")
    write_text(link, "discarded")  # as root, renaming over /dev/null would replace it
    assert stat.S_ISCHR(os.stat("/dev/null").st_mode)
    assert link.is_symlink() and [p.name for p in tmp_path.iterdir()] == ["null"]


def test_a_directory_is_refused_and_left_as_it_was(tmp_path: Path) -> None:
    folder = tmp_path / "out"
    folder.mkdir()
    with pytest.raises(IsADirectoryError):
        write_text(folder, "x")
    assert folder.is_dir() and list(folder.iterdir()) == []
    assert [p.name for p in tmp_path.iterdir()] == ["out"]
