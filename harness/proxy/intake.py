"""What the proxy refuses before forwarding, and the error bodies it answers with.

Pure. A request body the proxy reads (to repair it, or to account it) must be a JSON object
that Python's parser reads without a RecursionError and text a store can hold (no lone UTF-16
surrogate escape; the check is a substring search unless the body escapes a surrogate at all).
Bodies are parsed by msgspec (C, about twice as fast as `json`); what it refuses and Python's
parser reads (NaN, a lone surrogate escape) gets Python's parser's verdict, as before.
Errors take the shape of the API the client speaks, so its SDK raises its own
`BadRequestError` with the proxy's message.
"""

# pure: imports no I/O (tests/test_layout.py checks it)

from __future__ import annotations

import json
import re
from typing import Any

import msgspec

# A surrogate escape with the backslashes before it: an odd run makes it an escape, an even one
# literal text (an escaped backslash, then "u...").
_SURROGATE = re.compile(rb"\\+u[dD][89a-fA-F][0-9a-fA-F]{2}")


def lone_surrogate(raw: bytes) -> bool:
    """Whether `raw` escapes a UTF-16 surrogate that has no pair (text no store can hold)."""
    if b"\\ud" not in raw and b"\\uD" not in raw:
        return False
    paired_until = -1  # the end of the low half of the last pair
    for m in _SURROGATE.finditer(raw):
        esc = m.group(0)
        if (len(esc) - 5) % 2 == 0:
            continue  # literal text
        start = m.end() - 6
        if start < paired_until:
            continue
        if int(esc[-4:], 16) >= 0xDC00:
            return True  # a low half that no high half paired
        low = raw[m.end() : m.end() + 6]
        if len(low) == 6 and low[:3] in (b"\\ud", b"\\uD") and low[3:4] in b"cdefCDEF":
            paired_until = m.end() + 6
            continue
        return True
    return False


TOO_DEEP = "the request body nests too deeply to read (a RecursionError)"


def parse_body(raw: bytes) -> tuple[dict[str, Any] | None, str | None]:
    """(the body, None) or (None, why it is not a JSON object the proxy can read and store)."""
    try:
        doc = msgspec.json.decode(raw)  # it refuses a lone surrogate escape itself
    except RecursionError:
        return None, TOO_DEEP
    except msgspec.DecodeError:
        try:
            doc = json.loads(raw)
        except RecursionError:
            return None, TOO_DEEP
        except ValueError as exc:
            return None, f"the request body is not valid JSON: {exc}"
        if lone_surrogate(raw):
            return None, "the request body holds a lone UTF-16 surrogate (\\ud800-\\udfff) escape"
    if not isinstance(doc, dict):
        return None, "the request body is not a JSON object"
    return doc, None


def error_body(api: str | None, kind: str, message: str, code: str = "") -> bytes:
    """An error document in the shape the client's API uses (`kind`: the provider's type)."""
    text = f"prefixlock proxy: {message}"
    if api == "anthropic" or api is None:
        doc: dict[str, Any] = {"type": "error", "error": {"type": kind, "message": text}}
    else:
        doc = {"error": {"message": text, "type": kind, "param": None, "code": code or None}}
    return json.dumps(doc).encode()
