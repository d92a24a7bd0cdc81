"""`Image` and `Document`: pictures and files a user turn carries beside its text.

`s.send(["What is wrong in this screenshot?", Image.from_path("shot.png")])`. Each is checked
when made (a PNG, JPEG, GIF or WebP image; a PDF or UTF-8 text document; an http(s) URL), and
becomes one content block of the user message in Anthropic's shape, which the transcript keeps
and the OpenAI builders convert (`image_url`/`input_image`, `file`/`input_file`). The bytes are
base64 once, here: every later request sends the same text, so the block is cached like any
other (and the store keeps it once, prefixlock.store.database). Tokens are counted by each
provider's documented rule (prefixlock.cache.media), not by the base64's length.
"""

from __future__ import annotations

import base64
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from .cache.media import IMAGE_MEDIA_TYPES, PDF, ImageInfo, sniff_image
from .errors import UserError

TEXT_MEDIA_TYPES = ("text/plain", "text/markdown", "text/csv")
Detail = Literal["low", "high", "auto"]
_DETAILS = ("low", "high", "auto")


def _detail(detail: Detail | None) -> Detail | None:
    if detail is not None and detail not in _DETAILS:  # a caller without a type checker
        raise UserError(
            f"detail must be 'low', 'high' or 'auto', not {detail!r}", where="image.detail"
        )
    return detail


def _check_url(url: str, where: str) -> str:
    if not url.startswith(("https://", "http://")):
        raise UserError(f"not an http(s) URL: {url[:80]!r}", where=where)
    return url


@dataclass(frozen=True)
class Image:
    """A picture in a user turn: inline bytes (`from_path`, `from_bytes`) or a URL
    (`from_url`: the provider fetches it)."""

    media_type: str
    data: str = ""  # base64, when inline
    url: str = ""
    width: int = 0
    height: int = 0
    # OpenAI's `detail` ("low": 85 tokens whatever the size; "high"/"auto": by 512 px tiles).
    # Anthropic has no such field: its builder leaves it out. None: the provider's default.
    detail: Detail | None = None

    @classmethod
    def from_bytes(
        cls, data: bytes, media_type: str | None = None, *, detail: Detail | None = None
    ) -> Image:
        """An image from its bytes; the format is read from them (a `media_type` that
        disagrees is refused, as the providers refuse it)."""
        info = _image_info(data, "image")
        if media_type is not None and media_type != info.media_type:
            raise UserError(
                f"the image is {info.media_type}, not {media_type}", where="image.media_type"
            )
        return cls(info.media_type, base64.b64encode(data).decode("ascii"), "",
                   info.width, info.height, _detail(detail))  # fmt: skip

    @classmethod
    def from_path(cls, path: str | Path, *, detail: Detail | None = None) -> Image:
        """An image from a file (its type from the bytes)."""
        return cls.from_bytes(_read(path, "image"), detail=detail)

    @classmethod
    def from_url(cls, url: str, *, detail: Detail | None = None) -> Image:
        """An image the provider downloads (its size is unknown here: the guard counts it at
        the rule's ceiling until the provider reports)."""
        return cls("", url=_check_url(url, "image.url"), detail=_detail(detail))

    def block(self) -> dict[str, Any]:
        """The content block, in Anthropic's shape (plus `detail`, for OpenAI only)."""
        if self.url:
            block: dict[str, Any] = {"type": "image", "source": {"type": "url", "url": self.url}}
        else:
            source = {"type": "base64", "media_type": self.media_type, "data": self.data}
            block = {"type": "image", "source": source}
        if self.detail is not None:
            block["detail"] = self.detail
        return block


@dataclass(frozen=True)
class Document:
    """A document in a user turn: a PDF (pages read as text and images by the provider) or
    plain text, inline, or a PDF by URL. `title` names it (OpenAI's filename)."""

    media_type: str
    data: str = ""  # base64 for a PDF, the text itself for text
    url: str = ""
    title: str | None = None

    @classmethod
    def from_bytes(
        cls, data: bytes, media_type: str | None = None, *, title: str | None = None
    ) -> Document:
        """A PDF document from its bytes."""
        if media_type is None:
            media_type = PDF if data[:5] == b"%PDF-" else "text/plain"
        if media_type == PDF:
            if data[:5] != b"%PDF-":
                raise UserError("not a PDF (it does not start with %PDF-)", where="document")
            return cls(PDF, base64.b64encode(data).decode("ascii"), title=title)
        if media_type not in TEXT_MEDIA_TYPES:
            allowed = ", ".join((PDF, *TEXT_MEDIA_TYPES))
            raise UserError(
                f"unsupported document type {media_type!r} (one of {allowed})",
                where="document.media_type",
            )
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise UserError(
                f"a text document must be UTF-8 (byte {exc.start} is not)", where="document"
            ) from None
        return cls.from_text(text, title=title)

    @classmethod
    def from_text(cls, text: str, *, title: str | None = None) -> Document:
        """A plain-text document."""
        if not text:
            raise UserError("the document is empty", where="document")
        return cls("text/plain", text, title=title)

    @classmethod
    def from_path(cls, path: str | Path, *, title: str | None = None) -> Document:
        """A document from a file (PDF, or plain text)."""
        p = Path(path)
        media = PDF if p.suffix.lower() == ".pdf" else None
        return cls.from_bytes(_read(p, "document"), media, title=p.name if title is None else title)

    @classmethod
    def from_url(cls, url: str, *, title: str | None = None) -> Document:
        """A PDF the provider downloads."""
        return cls(PDF, url=_check_url(url, "document.url"), title=title)

    def block(self) -> dict[str, Any]:
        """The content block, in Anthropic's shape."""
        if self.url:
            source: dict[str, Any] = {"type": "url", "url": self.url}
        elif self.media_type == PDF:
            source = {"type": "base64", "media_type": PDF, "data": self.data}
        else:
            source = {"type": "text", "media_type": "text/plain", "data": self.data}
        block: dict[str, Any] = {"type": "document", "source": source}
        if self.title:
            block["title"] = self.title
        return block


UserPart = str | Image | Document
"""One part of a user turn: text, a picture or a document."""


def _image_info(data: bytes, where: str) -> ImageInfo:
    info = sniff_image(data)
    if info is None:
        allowed = ", ".join(IMAGE_MEDIA_TYPES)
        raise UserError(f"not an image the providers take ({allowed})", where=where)
    return info


def _read(path: str | Path, where: str) -> bytes:
    try:
        return Path(path).read_bytes()
    except OSError as exc:
        raise UserError(f"cannot read {path}: {exc.strerror or exc}", where=where) from None


def user_blocks(content: str | Sequence[UserPart], where: str = "text") -> list[dict[str, Any]]:
    """The content blocks of a user turn given as text or as parts (text, Image, Document)."""
    if isinstance(content, str):
        return [{"type": "text", "text": content}] if content else []
    blocks: list[dict[str, Any]] = []
    for i, part in enumerate(content):
        if isinstance(part, str):
            if part:
                blocks.append({"type": "text", "text": part})
        elif isinstance(part, (Image, Document)):
            blocks.append(part.block())
        else:
            raise UserError(
                f"a user turn's parts are str, Image or Document, not {type(part).__name__}",
                where=f"{where}[{i}]",
            )
    return blocks
