"""Images and documents in a prompt: what they are, and how many tokens each provider counts.

A picture or a PDF is sent as base64 (or a URL) inside a content block, so counting its tokens
as text would count the base64 characters: a 200 KB screenshot would read as ~90,000 tokens
where the providers bill ~1,600. The rules here are the providers' documented ones:

- Anthropic (vision docs): an image whose long edge is over 1568 px, or which would cost over
  about 1,600 tokens, is scaled down first (aspect kept); it then costs width*height/750 tokens.
  A PDF page is sent as its extracted text plus an image of the page: each page costs its text's
  tokens plus a page image (a letter page at the size limit: the 1,600-token cap).
- OpenAI (vision docs, the tile rule of gpt-4o, gpt-4.1 and gpt-5): `detail: "low"` costs 85
  tokens; high (and auto) first fits the image in 2048x2048, then scales its short side down to
  768 px, and costs 85 + 170 per 512 px tile. A PDF file costs its text plus a high-detail image
  of each page.

What a provider cannot see without fetching (an image given by URL, a file id) is counted at
the rule's ceiling: the emulator fetches nothing. `split_media` replaces each payload in a
content value with a short stand-in naming its digest (so two different pictures still hash and
tokenize differently at the same place) and returns what it found; `content_tokens` and
`content_token_ids` count the stand-in text as text and each medium by its rule. Pure.
"""

# pure: imports no I/O (tests/test_layout.py checks it)

from __future__ import annotations

import base64
import binascii
import contextlib
import hashlib
import math
import re
import struct
import zlib
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

from ..canonical import canonical_json
from ..tokenizer import count_tokens, tokenize

Rule = Literal["anthropic", "openai"]

IMAGE_MEDIA_TYPES = ("image/jpeg", "image/png", "image/gif", "image/webp")
PDF = "application/pdf"
ANTHROPIC_MAX_EDGE = 1568
ANTHROPIC_MAX_TOKENS = 1600
ANTHROPIC_PIXELS_PER_TOKEN = 750
OPENAI_LOW = 85
OPENAI_TILE = 170
OPENAI_TILE_PX = 512
OPENAI_FIT = 2048
OPENAI_SHORT_SIDE = 768
# A PDF page as an image: US letter at 150 dpi (what either rule then scales down to its limit).
PAGE_PX = (1275, 1650)

# A content value that may hold a medium says so in its JSON: the quick test before a walk.
_HINT = re.compile(rb'"type":\s*"(?:image|document|image_url|input_image|input_file|file)"')


# ---- what a payload is ------------------------------------------------------------------


@dataclass(frozen=True)
class ImageInfo:
    """The format and pixel size read from an image's first bytes."""

    media_type: str
    width: int
    height: int


def sniff_image(data: bytes) -> ImageInfo | None:
    """The media type and size of a PNG, JPEG, GIF or WebP image (None: not one of those, or
    too short to tell)."""
    if data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) >= 24:
        w, h = struct.unpack(">II", data[16:24])
        return ImageInfo("image/png", w, h)
    if data[:6] in (b"GIF87a", b"GIF89a") and len(data) >= 10:
        w, h = struct.unpack("<HH", data[6:10])
        return ImageInfo("image/gif", w, h)
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP" and len(data) >= 30:
        return _webp(data)
    if data[:2] == b"\xff\xd8":
        return _jpeg(data)
    return None


def _webp(data: bytes) -> ImageInfo | None:
    chunk = data[12:16]
    if chunk == b"VP8X":
        w = 1 + int.from_bytes(data[24:27], "little")
        h = 1 + int.from_bytes(data[27:30], "little")
        return ImageInfo("image/webp", w, h)
    if chunk == b"VP8L" and len(data) >= 25:
        bits = int.from_bytes(data[21:25], "little")
        return ImageInfo("image/webp", (bits & 0x3FFF) + 1, ((bits >> 14) & 0x3FFF) + 1)
    if chunk == b"VP8 " and len(data) >= 30:
        w, h = struct.unpack("<HH", data[26:30])
        return ImageInfo("image/webp", w & 0x3FFF, h & 0x3FFF)
    return None


def _jpeg(data: bytes) -> ImageInfo | None:
    i = 2
    while i + 9 <= len(data):
        if data[i] != 0xFF:
            return None
        marker = data[i + 1]
        if marker in (0xD8, 0x01) or 0xD0 <= marker <= 0xD7:  # markers without a length
            i += 2
            continue
        length = int.from_bytes(data[i + 2 : i + 4], "big")
        # Start-of-frame markers (C0-CF but DHT C4, JPG C8, DAC CC) carry the size.
        if 0xC0 <= marker <= 0xCF and marker not in (0xC4, 0xC8, 0xCC):
            h, w = struct.unpack(">HH", data[i + 5 : i + 9])
            return ImageInfo("image/jpeg", w, h)
        i += 2 + length
    return None


def decode_base64(text: str) -> bytes | None:
    """The bytes of standard base64 text (None: not base64)."""
    try:
        return base64.b64decode(text, validate=True)
    except (binascii.Error, ValueError):
        return None


def data_url(url: str) -> tuple[str, bytes] | None:
    """(media type, bytes) of a `data:<type>;base64,<data>` URL; None for any other URL or for
    one whose data is not base64."""
    if not url.startswith("data:"):
        return None
    head, sep, payload = url[5:].partition(",")
    if not sep or not head.endswith(";base64"):
        return None
    raw = decode_base64(payload)
    return None if raw is None else (head[: -len(";base64")], raw)


# ---- the documented token rules ----------------------------------------------------------


def anthropic_image_tokens(width: int, height: int) -> int:
    """Tokens of a width x height image on Anthropic, after its documented down-scaling."""
    if width <= 0 or height <= 0:
        return 0
    scale = min(1.0, ANTHROPIC_MAX_EDGE / max(width, height))
    pixels_cap = ANTHROPIC_MAX_TOKENS * ANTHROPIC_PIXELS_PER_TOKEN
    if width * height * scale * scale > pixels_cap:
        scale = math.sqrt(pixels_cap / (width * height))
    w, h = max(1, int(width * scale)), max(1, int(height * scale))
    return min(ANTHROPIC_MAX_TOKENS, math.ceil(w * h / ANTHROPIC_PIXELS_PER_TOKEN))


def openai_image_tokens(width: int, height: int, detail: str = "auto") -> int:
    """Tokens of a width x height image on OpenAI by the tile rule (`detail` low/high/auto)."""
    if detail == "low":
        return OPENAI_LOW
    w, h = float(width), float(height)
    if max(w, h) > OPENAI_FIT:
        fit = OPENAI_FIT / max(w, h)
        w, h = w * fit, h * fit
    if min(w, h) > OPENAI_SHORT_SIDE:
        short = OPENAI_SHORT_SIDE / min(w, h)
        w, h = w * short, h * short
    tiles = math.ceil(round(w) / OPENAI_TILE_PX) * math.ceil(round(h) / OPENAI_TILE_PX)
    return OPENAI_LOW + OPENAI_TILE * tiles


def image_tokens(rule: Rule, width: int, height: int, detail: str = "auto") -> int:
    if rule == "anthropic":
        return anthropic_image_tokens(width, height)
    return openai_image_tokens(width, height, detail)


def unseen_image_tokens(rule: Rule, detail: str = "auto") -> int:
    """An image the counter cannot see (a URL, a file id): the rule's ceiling."""
    if rule == "anthropic":
        return ANTHROPIC_MAX_TOKENS
    return openai_image_tokens(OPENAI_FIT, OPENAI_FIT, detail)


_PAGE = re.compile(rb"/Type\s*/Page(?![a-zA-Z])")
_STREAM = re.compile(rb"stream\r?\n(.*?)\r?\nendstream", re.S)
_SHOWN = re.compile(rb"\(((?:\\.|[^\\)])*)\)\s*(?:Tj|'|\")|\[((?:\\.|[^\]])*)\]\s*TJ", re.S)
_LITERAL = re.compile(rb"\(((?:\\.|[^\\)])*)\)", re.S)


def pdf_pages(data: bytes) -> int:
    """Number of pages of a PDF (its /Type /Page objects; at least 1)."""
    return max(1, len(_PAGE.findall(data)))


def pdf_text(data: bytes) -> str:
    """The text a PDF's content streams show (Tj/TJ operators; Flate streams inflated): what
    a provider extracts beside each page's image. Fonts with custom encodings read as their
    raw bytes, which a count of tokens tolerates."""
    out: list[str] = []
    for m in _STREAM.finditer(data):
        raw = m.group(1)
        with contextlib.suppress(zlib.error):  # else an uncompressed stream
            raw = zlib.decompress(raw)
        for shown in _SHOWN.finditer(raw):
            if shown.group(1) is not None:
                out.append(_unescape(shown.group(1)))
            else:
                out.extend(_unescape(s) for s in _LITERAL.findall(shown.group(2)))
    return " ".join(out)


def _unescape(literal: bytes) -> str:
    text = re.sub(rb"\\([()\\])", rb"\1", literal)
    return text.decode("latin-1")


def pdf_tokens(rule: Rule, data: bytes) -> int:
    """Tokens of a PDF: its text plus one page image per page."""
    page = image_tokens(rule, *PAGE_PX, "high")
    return count_tokens(pdf_text(data)) + pdf_pages(data) * page


# ---- media inside a content value --------------------------------------------------------


@dataclass(frozen=True)
class Medium:
    """One image or document found in a content value, with what its tokens depend on."""

    kind: Literal["image", "pdf", "text"]
    digest: str  # sha256 of the payload as sent (base64 text, URL or file id)
    data: bytes | None  # the decoded bytes, when sent inline
    detail: str = "auto"
    text: str = ""  # a plain-text document's text

    def tokens(self, rule: Rule) -> int:
        if self.kind == "text":
            return count_tokens(self.text)
        if self.kind == "pdf":
            return (
                pdf_tokens(rule, self.data)
                if self.data is not None
                else (image_tokens(rule, *PAGE_PX, "high"))
            )
        info = sniff_image(self.data) if self.data is not None else None
        if info is None:
            return unseen_image_tokens(rule, self.detail)
        return image_tokens(rule, info.width, info.height, self.detail)


_LETTERS = str.maketrans("0123456789abcdef", "abcdefghijklmnop")


def _stand_in(payload: str) -> tuple[str, str]:
    digest = hashlib.sha256(payload.encode("utf-8")).hexdigest()
    # In letters only: every stand-in is the same number of tokens (digits cut differently).
    return digest, f"media:{digest[:16].translate(_LETTERS)}"


def _inline(payload: str) -> bytes | None:
    found = data_url(payload)
    if found is not None:
        return found[1]
    return None if payload.startswith(("http://", "https://")) else decode_base64(payload)


def _take(
    found: list[Medium], kind: Literal["image", "pdf"], payload: Any, detail: Any = "auto"
) -> str:
    """Record the medium sent as `payload` and give its stand-in."""
    text = str(payload)
    digest, stand_in = _stand_in(text)
    data = _inline(text) if kind == "image" or not text.startswith("file-") else None
    if kind == "pdf" and data is not None and data[:4] != b"%PDF":
        # A non-PDF file (text, CSV): its text is what the model reads.
        found.append(Medium("text", digest, None, text=data.decode("utf-8", "replace")))
        return stand_in
    found.append(Medium(kind, digest, data, str(detail or "auto")))
    return stand_in


def _anthropic_block(block: Mapping[str, Any], found: list[Medium]) -> dict[str, Any] | None:
    kind = block.get("type")
    source = block.get("source")
    if kind not in ("image", "document") or not isinstance(source, Mapping):
        return None
    stype = source.get("type")
    src = dict(source)
    if kind == "document" and stype == "text":
        # A plain-text document: its text is read as text (counted as part of the block).
        return None
    key = {"base64": "data", "url": "url", "file": "file_id"}.get(str(stype))
    if key is None or key not in source:
        return None
    media: Literal["image", "pdf"] = "image" if kind == "image" else "pdf"
    src[key] = _take(found, media, source[key])
    return {**block, "source": src}


def _openai_part(part: Mapping[str, Any], found: list[Medium]) -> dict[str, Any] | None:
    kind = part.get("type")
    if kind == "image_url" and isinstance(part.get("image_url"), Mapping):
        inner = dict(part["image_url"])
        if "url" in inner:
            inner["url"] = _take(found, "image", inner["url"], inner.get("detail"))
            return {**part, "image_url": inner}
    if kind == "input_image":
        for key in ("image_url", "file_id"):
            if isinstance(part.get(key), str):
                return {**part, key: _take(found, "image", part[key], part.get("detail"))}
    if kind == "input_file":
        for key in ("file_data", "file_url", "file_id"):
            if isinstance(part.get(key), str):
                return {**part, key: _take(found, "pdf", part[key])}
    if kind == "file" and isinstance(part.get("file"), Mapping):
        inner = dict(part["file"])
        for key in ("file_data", "file_id"):
            if isinstance(inner.get(key), str):
                inner[key] = _take(found, "pdf", inner[key])
                return {**part, "file": inner}
    return None


def split_media(value: Any) -> tuple[Any, list[Medium]]:
    """`value` with each image or document payload replaced by a stand-in naming its digest,
    and the media found, in order (Anthropic blocks and OpenAI parts alike, however deep: a
    tool result may hold images)."""
    found: list[Medium] = []

    def walk(v: Any) -> Any:
        if isinstance(v, Mapping):
            replaced = _anthropic_block(v, found)
            if replaced is None:
                replaced = _openai_part(v, found)
            if replaced is not None:
                return replaced
            return {k: walk(x) for k, x in v.items()}
        if isinstance(v, (list, tuple)):
            return [walk(x) for x in v]
        return v

    return walk(value), found


def has_media(data: bytes) -> bool:
    """Might the JSON `data` hold an image or a document? (The quick test before a walk.)"""
    return _HINT.search(data) is not None


def content_tokens(value: Any, rule: Rule) -> int:
    """Tokens of a content value (a block, a message, an input item) holding media: its text
    with stand-ins, plus each medium by `rule`."""
    stripped, found = split_media(value)
    return count_tokens(canonical_json(stripped)) + sum(m.tokens(rule) for m in found)


def content_token_ids(value: Any, rule: Rule) -> list[int]:
    """Token ids of a content value holding media: its text's ids, then per medium as many
    ids as it costs, derived from its digest (the same picture gives the same ids)."""
    stripped, found = split_media(value)
    ids = tokenize(canonical_json(stripped))
    for m in found:
        seed = m.digest.encode("ascii")
        ids.extend(zlib.crc32(seed + i.to_bytes(4, "big")) for i in range(m.tokens(rule)))
    return ids


def unit_tokens(data: bytes, value: Any, rule: Rule, *, remember: bool = True) -> int:
    """Tokens of one cache unit: `data` are its bytes, `value` what they encode (walked only
    when the bytes say a medium may be inside). `remember`: see `count_tokens`."""
    if value is None or not has_media(data):
        return count_tokens(data.decode("utf-8"), remember=remember)
    return content_tokens(value, rule)


def unit_token_ids(data: bytes, value: Any, rule: Rule) -> list[int]:
    """Token ids of one cache unit (see `unit_tokens`)."""
    if value is None or not has_media(data):
        return tokenize(data.decode("utf-8"))
    return content_token_ids(value, rule)
