"""Images in the chat: an `@shot.png` mention or a dropped file's path (as a terminal types it,
outside the workspace too) goes with the message as an image block, never into the prefix;
other files outside the workspace stay refused."""

from __future__ import annotations

from pathlib import Path

from prefixlock.coding.workspace import Workspace
from prefixlock.testing import sample_png
from prefixlock.tui.mentions import dropped_images, expand_mentions
from tests.helpers.tui_drive import AppFactory, ready, settle, type_keys


def test_dropped_paths_as_terminals_type_them(tmp_path: Path) -> None:
    shot = tmp_path / "Screen Shot 1.png"
    shot.write_bytes(sample_png(20, 10))
    plain = tmp_path / "shot.jpg"
    plain.write_bytes(b"not an image")
    escaped = str(shot).replace(" ", "\\ ")
    text = f"what is wrong here {escaped} and '{shot}' and {plain} and /etc/passwd"
    assert dropped_images(text) == [shot, plain]
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "ui.png").write_bytes(sample_png(30, 30))
    got = expand_mentions(f"see @ui.png and {escaped} and {plain}", Workspace(ws, sandbox="off"))
    assert [i.width for i in got.images] == [20, 30]
    assert got.attached == [f"{shot} (image)", "ui.png (image)"]
    assert any("shot.jpg" in p and "not attached" in p for p in got.problems)
    assert "PNG" not in got.message  # the bytes go as image blocks, not text


async def test_a_dropped_image_goes_with_the_message(make_app: AppFactory, tmp_path: Path) -> None:
    shot = tmp_path / "bug.png"
    shot.write_bytes(sample_png(40, 20))
    app = make_app()
    async with app.run_test(size=(120, 30)) as pilot:
        await ready(app, pilot)
        system = app.backend.session.prefix.system
        await type_keys(pilot, *f"hello, see {shot}")
        await pilot.press("enter")
        await settle(app, pilot)
        user = next(m for m in app.backend.session.transcript.messages if m.role == "user")
        kinds = [b.get("type") for b in user.blocks]
        assert "image" in kinds and kinds[0] == "text"
        assert app.backend.session.prefix.system == system
