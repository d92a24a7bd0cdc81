"""From an HTTP request to an API request: route, size limit, API key, content type, JSON body.

Pure: the server hands in what it read (path, headers, the body's bytes) and gets back the
request to plan, or the ApiError to answer. Each step notes what it learned on the request's
RecordedRequest, so the record of a rejected request shows how far it got.
"""

# pure: imports no I/O (tests/test_layout.py checks it)

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from .apierror import ApiError
from .promptcache import key_id


@dataclass
class RecordedRequest:
    """One request as the emulator saw it, and what it reported."""

    path: str
    body: Any
    status: int
    time: float  # the emulator clock at arrival
    api: str  # anthropic | openai-chat | openai-responses | anthropic-count | other
    model: str | None = None
    stream: bool = False
    usage: dict[str, Any] | None = None  # exactly as reported to the client
    machine: int | None = None  # OpenAI-style routing: which simulated machine served it
    key_id: str | None = None  # one-way id of the API key (never the key)
    fault: str | None = None
    error: str | None = None
    # A Responses reply that compacted server-side: its `compaction` output item (its usage
    # adds the compaction pass and the inference on the pruned prompt).
    compaction: dict[str, Any] | None = None


@dataclass(frozen=True)
class Route:
    api: str
    flavor: str  # error shape: anthropic | openai


ROUTES = {
    "/v1/messages": Route("anthropic", "anthropic"),
    "/v1/messages/count_tokens": Route("anthropic-count", "anthropic"),
    "/v1/chat/completions": Route("openai-chat", "openai"),
    "/v1/responses": Route("openai-responses", "openai"),
    "/v1/conversations": Route("openai-conversations", "openai"),
}


@dataclass(frozen=True)
class ApiRequest:
    """A POST that passed the HTTP-level checks: which API, whose key, the parsed body."""

    route: Route
    api_key: str
    body: Any

    @property
    def stream(self) -> bool:
        return isinstance(self.body, dict) and bool(self.body.get("stream"))


def post_path(target: str) -> str:
    """The path a POST is routed by: no query, no trailing slash."""
    return target.split("?", 1)[0].rstrip("/")


def flavor_of(path: str) -> str:
    """Whose error shape a POST to `path` gets (an unknown path: a guess from the path)."""
    route = ROUTES.get(path)
    if route is not None:
        return route.flavor
    return "openai" if "chat" in path else "anthropic"


def arrival(path: str, now: float) -> RecordedRequest:
    """The record of a POST as it arrives (status 0 until it is answered)."""
    route = ROUTES.get(path)
    return RecordedRequest(path, None, 0, now, route.api if route else "other")


def length_error(length: int, limit: int) -> ApiError | None:
    """The error for a body of `length` bytes (-1: an unreadable content-length), if any. The
    server closes the connection after either (and drains a body that is too large first)."""
    if length < 0:
        return ApiError(400, "invalid content-length")
    if length > limit:
        return ApiError(413, f"Request exceeds the maximum allowed size of {limit} bytes")
    return None


def api_key(headers: Mapping[str, str]) -> str:
    """The key from `x-api-key` or `authorization: Bearer ...` (header names lower-case)."""
    key = headers.get("x-api-key") or ""
    if not key:
        auth = headers.get("authorization") or ""
        if auth.lower().startswith("bearer "):
            key = auth[7:].strip()
    return key.strip()


def parse(path: str, key: str, content_type: str, raw: bytes, rec: RecordedRequest) -> ApiRequest:
    """The API request in a POST to `path`, or the ApiError that answers it."""
    route = ROUTES.get(path)
    if route is None:
        raise ApiError(404, f"Not found: POST {path}")
    if not key:
        raise ApiError(
            401,
            "x-api-key header is required"
            if route.flavor == "anthropic"
            else "You didn't provide an API key.",
        )
    rec.key_id = key_id(key)
    ctype = content_type.lower()
    if "application/json" not in ctype:
        raise ApiError(400, f"unsupported content type {ctype or '(none)'}: send application/json")
    body = parse_json(raw)
    rec.body = body
    if isinstance(body, dict):
        rec.model = body.get("model") if isinstance(body.get("model"), str) else None
        rec.stream = bool(body.get("stream"))
    return ApiRequest(route, key, body)


# A \u escape of a high or low surrogate: the only way a JSON text spells a lone surrogate.
_SURROGATE_ESCAPE = re.compile(rb"\\u[dD][89a-fA-F]")


def parse_json(raw: bytes) -> Any:
    """The JSON value of a body, or a 400: not JSON, not UTF-8, nested too deep for any API
    (a 100,000-deep array), or a string with a lone surrogate (text no API can tokenize)."""
    try:
        body = json.loads(raw)
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise ApiError(400, f"There was an error parsing the body: {exc}") from None
    except RecursionError:
        raise ApiError(400, "There was an error parsing the body: nested too deeply") from None
    if _SURROGATE_ESCAPE.search(raw):
        # Pairs decode to one character; a lone half stays a surrogate that UTF-8 cannot hold.
        try:
            json.dumps(body, ensure_ascii=False).encode("utf-8")
        except UnicodeEncodeError:
            raise ApiError(
                400, "There was an error parsing the body: a string holds a lone surrogate"
            ) from None
    return body


def served_in_full(rec: RecordedRequest, api: str | None = None) -> bool:
    """Answered with a whole response (not an error, not cut short by a fault), of `api`."""
    return (
        rec.status == 200
        and rec.fault not in ("cut", "sse-error")
        and (api is None or rec.api == api)
    )
