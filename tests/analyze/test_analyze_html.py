"""The HTML report: one self-contained page (nothing fetched), rendered in a real headless
Chromium (Debian's `chromium`; the test skips, saying why, where none is installed) and checked
on the screenshot's pixels: the stacked read/write bars, the idle gap shaded past the TTL, and
the break marker in its cause's colour are drawn, not only written into the HTML."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

from prefixlock.analyze.analysis import analyze
from prefixlock.analyze.html import COLORS, page
from tests.analyze.logkit import cc_assistant, cc_user, write

CHROMIUM = next(
    (p for p in map(shutil.which, ("chromium", "chromium-browser", "google-chrome")) if p), None
)


def _ttl_page(tmp_path: Path) -> str:
    log = write(tmp_path / "logs" / "ttl.jsonl", [
        cc_user(1, 0), cc_assistant(1, 5, w5=30000),
        cc_user(2, 60), cc_assistant(2, 60, read=30000, w5=500),
        cc_user(3, 485), cc_assistant(3, 485, w5=31000),  # 7 minutes idle: the 5m TTL expired
    ])  # fmt: skip
    return page(analyze([log], jobs=1).report)


def test_page_is_self_contained_and_marks_the_break(tmp_path: Path) -> None:
    html = _ttl_page(tmp_path)
    # No fetch of anything: no src/href, no CSS url() or @import, no script.
    assert not re.search(r"\b(src|href)\s*=|url\(|@import|<script|<link", html, re.I)
    assert 'class="break ttl_expiry"' in html and 'class="gap over"' in html
    assert html.count('class="read"') == 1 and html.count('class="write"') == 3
    assert "secret answer" not in html


def _rgb(hex_color: str) -> tuple[int, int, int]:
    return int(hex_color[1:3], 16), int(hex_color[3:5], 16), int(hex_color[5:7], 16)


@pytest.mark.skipif(CHROMIUM is None, reason="no chromium binary (apt-get install chromium)")
def test_page_renders_in_headless_chromium(tmp_path: Path) -> None:
    from matplotlib.image import imread

    html = tmp_path / "report.html"
    html.write_text(_ttl_page(tmp_path), encoding="utf-8")
    shot = tmp_path / "shot.png"
    assert CHROMIUM is not None
    subprocess.run(
        [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
         "--force-device-scale-factor=1", "--window-size=1200,1100",
         f"--screenshot={shot}", html.as_uri()],
        check=True, capture_output=True, timeout=120,
    )  # fmt: skip
    img = (imread(shot)[:, :, :3] * 255).round().astype(np.int16)
    assert img.shape[:2] == (1100, 1200)

    def pixels(color: str) -> int:
        return int((np.abs(img - np.array(_rgb(color))).max(axis=2) <= 2).sum())

    assert pixels(COLORS["read"]) > 200  # the warm request's read bar
    assert pixels(COLORS["write"]) > 400  # the cold start and the re-write after the idle
    assert pixels(COLORS["ttl_expiry"]) > 30  # the break marker (and its legend swatch)
    assert pixels("#fbe3e3") > 500  # the idle gap past the TTL, shaded
