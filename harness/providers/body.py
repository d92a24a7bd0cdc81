"""A request body encoded once, as the official SDKs would encode it, a list item at a time.

Given a body, both SDKs (`client.post(body=...)`) copy it whole (the Anthropic SDK's
`prepare_request_data` rebuilds every dict and list of it) and then encode it in one shot
(`json.JSONEncoder.encode`, whose C encoder keeps every piece of the document, an object for each
key, string and separator, until it joins them), and the bytes are a third copy. A long
session's body is its whole conversation, so each request's passing peak grew with the
conversation, several times its size, in objects small enough for the allocator's arenas, which
keep their high-water mark. Sent as `content=` the SDK does neither: the bytes here are made one
item of each top-level list at a time into one growing buffer, so no more than one item's
pieces are alive at once.

The bytes are the SDKs' own: compact separators, `ensure_ascii=False`, `allow_nan=False`, keys in
the body's order, the encoder the standard library's (both SDKs subclass it only to take types
a plain JSON value does not hold). A body holding anything else (a pydantic model, a date, a
path or file to upload, an SDK sentinel such as `NOT_GIVEN`, a NaN) is not encoded here
(`encode_body` returns None) and goes to the SDK as a dict, as before.
"""

# Not marked pure only for `io.BytesIO`, an in-memory buffer: it reads and writes nothing else.

from __future__ import annotations

import io
import json
from collections.abc import Mapping
from typing import Any

from .lazy_body import MessagesRecipe, raw_items
from .wire_message import WireMessage

# The SDKs' settings (anthropic/_utils/_json.py and openai/_utils/_json.py: `openapi_dumps`).
_ENCODER = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), allow_nan=False)


def encode_body(body: Mapping[str, Any]) -> bytes | None:
    """`body` as the JSON bytes the SDK would send for it, or None where the SDK must encode it
    (a value that is not plain JSON: see the module's docstring)."""
    encode = _ENCODER.encode
    out = io.BytesIO()
    write = out.write
    try:
        write(b"{")
        # A body's message list held as its recipe (prefixlock.providers.lazy_body) is written
        # from the recipe, an item at a time, not made into its list first.
        for n, (key, value) in enumerate(raw_items(body)):
            if not isinstance(key, str):
                return None  # the encoder turns other keys into text: left to it
            if n:
                write(b",")
            write(encode(key).encode())
            write(b":")
            if type(value) is list or type(value) is tuple or type(value) is MessagesRecipe:
                write(b"[")
                for i, item in enumerate(value):
                    if i:
                        write(b",")
                    # A message held as its bytes goes as those bytes (the dict's own).
                    if type(item) is WireMessage:
                        write(item.json_bytes())
                    else:
                        write(encode(item).encode())
                write(b"]")
            else:
                write(encode(value).encode())
        write(b"}")
    except (TypeError, ValueError):  # not plain JSON (or a NaN, a cycle): the SDK's to refuse
        return None
    # BytesIO hands over its own buffer, trimmed, when nothing else shares it: no copy.
    return out.getvalue()
