"""Provider-shaped API errors: the status, the JSON body and the headers each provider sends."""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

_ANTHROPIC_TYPES = {
    400: "invalid_request_error",
    401: "authentication_error",
    403: "permission_error",
    404: "not_found_error",
    413: "request_too_large",
    429: "rate_limit_error",
    500: "api_error",
    529: "overloaded_error",
}

_OPENAI_TYPES = {
    400: ("invalid_request_error", None),
    401: ("invalid_request_error", "invalid_api_key"),
    404: ("invalid_request_error", "model_not_found"),
    413: ("invalid_request_error", "request_too_large"),
    429: ("rate_limit_error", "rate_limit_exceeded"),
    500: ("server_error", None),
    529: ("server_error", "overloaded"),
}


@dataclass
class ApiError(Exception):
    """An error response. `param` names the offending field where there is one."""

    status: int
    message: str
    param: str | None = None
    headers: Mapping[str, str] = field(default_factory=dict)
    # OpenAI's `code` where it is not the status's usual one ("": none, null on the wire).
    code: str | None = None

    def __str__(self) -> str:
        return f"{self.status}: {self.message}"


def retry_headers(seconds: float) -> dict[str, str]:
    """`retry-after` (seconds; fractional kept so tests stay fast) and `retry-after-ms`."""
    secs = str(int(seconds)) if seconds == math.floor(seconds) else f"{seconds:g}"
    return {"retry-after": secs, "retry-after-ms": str(round(seconds * 1000))}


def anthropic_error_body(err: ApiError, request_id: str) -> dict[str, Any]:
    kind = _ANTHROPIC_TYPES.get(err.status, "api_error")
    return {
        "type": "error",
        "error": {"type": kind, "message": err.message},
        "request_id": request_id,
    }


def openai_error_body(err: ApiError) -> dict[str, Any]:
    kind, code = _OPENAI_TYPES.get(err.status, ("server_error", None))
    return {
        "error": {
            "message": err.message,
            "type": kind,
            "param": err.param,
            "code": (err.code or None) if err.code is not None else code,
        }
    }
