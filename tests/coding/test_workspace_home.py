"""A path starting with `~user` names a home folder: one that does not exist is a clear
WorkspaceError the model can read, not a raw RuntimeError out of pathlib."""

from __future__ import annotations

from pathlib import Path

import pytest

from prefixlock.coding.workspace import Workspace, WorkspaceError


def test_an_unknown_users_home_is_one_clear_error(tmp_path: Path) -> None:
    ws = Workspace(tmp_path, sandbox="off")
    with pytest.raises(WorkspaceError, match="home folder that does not exist") as caught:
        ws.read("~nosuchuser-prefixlock/x", 1, 10)
    assert "~nosuchuser-prefixlock/x" in str(caught.value)
    assert "\n" not in str(caught.value)
