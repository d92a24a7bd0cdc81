"""Image and document intake: the checks the real APIs make of a picture or a file in a
message, with their status and wording. Pure.

Anthropic reads an inline image's bytes and refuses one whose format is not the media type it
was sent as, and base64 that is not base64; a base64 document must be a PDF, a text document
text. OpenAI refuses an image part without its URL (Chat `image_url.url`, Responses
`image_url` or `file_id`), a `detail` other than low/high/auto, a data URL that is not an
image of the four formats, and a file part without its data, URL or id. What the providers
fetch themselves (URLs, file ids) is taken as given: the emulator fetches nothing.
"""

# pure: imports no I/O (tests/test_layout.py checks it)

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..cache.media import IMAGE_MEDIA_TYPES, PDF, data_url, decode_base64, sniff_image
from .apierror import ApiError

DETAILS = ("low", "high", "auto")
_FORMATS = "['png', 'jpeg', 'gif', 'webp']"


def check_anthropic_base64(kind: str, source: Mapping[str, Any], where: str) -> None:
    """A base64 `image` or `document` source whose media type is known to be allowed."""
    raw = decode_base64(str(source.get("data", "")))
    at = f"{where}.{kind}.source.base64"
    if raw is None:
        raise ApiError(400, f"{at}.data: Invalid base64 data")
    media = source.get("media_type")
    if kind == "image":
        info = sniff_image(raw)
        seen = "an unknown format" if info is None else f"a {info.media_type} image"
        if info is None or info.media_type != media:
            raise ApiError(
                400,
                f"{at}: The image was specified using the {media} media type, but the image "
                f"appears to be {seen}",
            )
    elif media != PDF:
        raise ApiError(400, f"{at}.media_type: Input should be '{PDF}'")
    elif raw[:5] != b"%PDF-":
        raise ApiError(400, f"{at}.data: The PDF specified was not valid.")


def check_anthropic_text_document(source: Mapping[str, Any], where: str) -> None:
    if source.get("media_type", "text/plain") != "text/plain":
        raise ApiError(400, f"{where}.document.source.text.media_type: Input should be "
                       "'text/plain'")  # fmt: skip
    if not isinstance(source.get("data"), str):
        raise ApiError(400, f"{where}.document.source.text.data: Field required")


def _image_url(url: Any, param: str) -> None:
    if not isinstance(url, str) or not url:
        raise ApiError(400, f"Missing required parameter: '{param}'.", param=param)
    if url.startswith("data:"):
        found = data_url(url)
        if found is None:
            raise ApiError(400, f"Invalid '{param}': expected a base64-encoded data URL.",
                           param=param, code="invalid_value")  # fmt: skip
        info = sniff_image(found[1])
        if info is None or info.media_type not in IMAGE_MEDIA_TYPES:
            raise ApiError(
                400,
                "You uploaded an unsupported image. Please make sure your image has one of "
                f"the following formats: {_FORMATS}.",
                param=param,
                code="invalid_image_format",
            )
    elif not url.startswith(("http://", "https://")):
        raise ApiError(400, f"Invalid '{param}': expected a URL.", param=param,
                       code="invalid_value")  # fmt: skip


def _detail(value: Any, param: str) -> None:
    if value is not None and value not in DETAILS:
        raise ApiError(
            400,
            f"Invalid value: '{value}'. Supported values are: 'low', 'high', and 'auto'.",
            param=param,
            code="invalid_value",
        )


def _file(part: Mapping[str, Any], keys: tuple[str, ...], param: str) -> None:
    if not any(isinstance(part.get(k), str) and part[k] for k in keys):
        names = ", ".join(f"'{param}.{k}'" for k in keys)
        raise ApiError(400, f"Missing required parameter: one of {names}.", param=param)
    data = part.get("file_data")
    if isinstance(data, str) and data.startswith("data:") and data_url(data) is None:
        raise ApiError(400, f"Invalid '{param}.file_data': expected a base64-encoded data URL.",
                       param=f"{param}.file_data", code="invalid_value")  # fmt: skip


def check_openai_part(part: Mapping[str, Any], where: str) -> None:
    """An image or file content part of a Chat message or a Responses input message."""
    kind = part.get("type")
    if kind == "image_url":
        inner = part.get("image_url")
        if not isinstance(inner, Mapping):
            raise ApiError(400, f"Missing required parameter: '{where}.image_url'.",
                           param=f"{where}.image_url")  # fmt: skip
        _image_url(inner.get("url"), f"{where}.image_url.url")
        _detail(inner.get("detail"), f"{where}.image_url.detail")
    elif kind == "input_image":
        if part.get("file_id") is None:
            _image_url(part.get("image_url"), f"{where}.image_url")
        _detail(part.get("detail"), f"{where}.detail")
    elif kind == "input_file":
        _file(part, ("file_data", "file_url", "file_id"), where)
    elif kind == "file":
        inner = part.get("file")
        if not isinstance(inner, Mapping):
            raise ApiError(400, f"Missing required parameter: '{where}.file'.",
                           param=f"{where}.file")  # fmt: skip
        _file(inner, ("file_data", "file_id"), f"{where}.file")
