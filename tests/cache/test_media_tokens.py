"""The providers' documented token rules for images and documents (prefixlock.cache.media), the
image headers they read, and the store's one copy of each medium (prefixlock.store.mediablobs)."""

from __future__ import annotations

import base64
from typing import Any

import pytest

from prefixlock.cache.media import (
    anthropic_image_tokens,
    content_token_ids,
    content_tokens,
    openai_image_tokens,
    pdf_pages,
    pdf_text,
    sniff_image,
)
from prefixlock.cache.units import anthropic_units, openai_units
from prefixlock.store.mediablobs import MARK, extern, restore
from prefixlock.testing import sample_pdf, sample_png


@pytest.mark.parametrize(
    ("size", "tokens"),
    [
        ((200, 200), 54),  # Anthropic's table: 200x200 ~ 54 tokens
        ((1000, 1000), 1334),  # 1000x1000 ~ 1,334
        ((1092, 1092), 1590),  # the largest square kept as is (~1,590)
        ((3000, 2000), 1568),  # scaled down first: long edge 1568, then the ~1,600 cap
        ((8000, 50), 19),  # long edge to 1568: 1568x9
    ],
)
def test_anthropic_rule(size: tuple[int, int], tokens: int) -> None:
    assert abs(anthropic_image_tokens(*size) - tokens) <= 40


@pytest.mark.parametrize(
    ("size", "detail", "tokens"),
    [
        ((1024, 1024), "high", 765),  # OpenAI's example: 768x768, 4 tiles
        ((2048, 4096), "high", 1105),  # fit 1024x2048, short side 768: 768x1536, 6 tiles
        ((4096, 8192), "low", 85),  # low detail: always 85
        ((512, 512), "auto", 255),  # one tile
    ],
)
def test_openai_tile_rule(size: tuple[int, int], detail: str, tokens: int) -> None:
    assert openai_image_tokens(*size, detail) == tokens


def test_image_headers() -> None:
    info = sniff_image(sample_png(321, 123))
    assert info is not None
    assert (info.media_type, info.width, info.height) == ("image/png", 321, 123)
    gif = b"GIF89a" + (40).to_bytes(2, "little") + (30).to_bytes(2, "little") + b"\x00" * 8
    found_gif = sniff_image(gif)
    assert found_gif is not None and found_gif.width == 40
    jpeg = (
        b"\xff\xd8\xff\xe0\x00\x10"
        + b"J" * 14
        + b"\xff\xc0\x00\x11\x08"
        + (480).to_bytes(2, "big")
        + (640).to_bytes(2, "big")
        + b"\x03"
        + b"\x00" * 9
    )
    found = sniff_image(jpeg)
    assert found is not None and (found.width, found.height) == (640, 480)
    assert sniff_image(b"plain text, no picture") is None


def test_pdf_pages_and_text() -> None:
    pdf = sample_pdf(["Invoice (draft) INV-7", "Total 123.45"])
    assert pdf_pages(pdf) == 2
    assert pdf_text(pdf) == "Invoice (draft) INV-7 Total 123.45"


def _anthropic_image(png: bytes) -> dict[str, Any]:
    data = base64.b64encode(png).decode()
    return {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": data}}


def test_an_image_counts_by_rule_not_by_its_base64() -> None:
    png = sample_png(1000, 800)
    block = _anthropic_image(png)
    body = {"model": "m", "max_tokens": 1, "messages": [{"role": "user", "content": [block]}]}
    (unit,) = anthropic_units(body)
    assert unit.tokens - anthropic_image_tokens(1000, 800) < 80  # + the block's JSON
    url = "data:image/png;base64," + block["source"]["data"]
    item = {"role": "user", "content": [{"type": "image_url", "image_url": {"url": url}}]}
    units = openai_units({"model": "gpt-5", "messages": [item]})
    assert units[-1].tokens - openai_image_tokens(1000, 800) < 80
    assert len(content_token_ids(item, "openai")) == content_tokens(item, "openai")


def test_two_pictures_of_one_size_tokenize_differently() -> None:
    a = _anthropic_image(sample_png(300, 300, seed=1))
    b = _anthropic_image(sample_png(300, 300, seed=2))
    assert content_tokens(a, "anthropic") == content_tokens(b, "anthropic")
    assert content_token_ids(a, "openai") != content_token_ids(b, "openai")
    one = {"model": "m", "max_tokens": 1, "messages": [{"role": "user", "content": [a]}]}
    two = {"model": "m", "max_tokens": 1, "messages": [{"role": "user", "content": [b]}]}
    assert anthropic_units(one)[0].chain != anthropic_units(two)[0].chain


def test_store_keeps_each_payload_once_and_restores_it_exactly() -> None:
    png = sample_png(6000, 60, seed=4)
    block = _anthropic_image(png)
    url = "data:image/png;base64," + block["source"]["data"]
    value = {
        "content": [
            block,
            {"type": "image_url", "image_url": {"url": url}},
            {"type": "text", "text": "\x00media:deadbeef:"},
            "\x00\x00x",
        ]
    }
    kept: dict[str, str] = {}
    out = extern(value, kept.__setitem__)
    assert len(kept) == 1  # the raw base64 and the data URL share one blob
    assert out["content"][0]["source"]["data"].startswith(MARK)
    assert restore(out, kept.__getitem__) == value  # user text that looks like a mark survives
