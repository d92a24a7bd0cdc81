"""Route the official SDKs' HTTP (httpx2) through a respx router (httpx).

respx patches httpx, not httpx2. The SDK gets `http_client=httpx2.AsyncClient(transport=
httpx2.MockTransport(handler))`; the handler converts each httpx2 request to an httpx one, asks
the router, and converts the response back, so every respx route and assertion works.
"""

from __future__ import annotations

from typing import Any

import httpx
import httpx2
import respx


def _to_httpx(request: httpx2.Request) -> httpx.Request:
    return httpx.Request(
        request.method,
        str(request.url),
        headers=list(request.headers.multi_items()),
        content=request.content,
    )


async def _from_httpx(response: httpx.Response) -> httpx2.Response:
    body = await response.aread() if not response.is_closed else response.content
    headers = [(k, v) for k, v in response.headers.multi_items() if k.lower() != "content-length"]
    stream = getattr(response, "cut_stream", None)
    if stream is not None:
        return httpx2.Response(response.status_code, headers=headers, stream=stream)
    return httpx2.Response(response.status_code, headers=headers, content=body)


def async_client(router: respx.Router) -> httpx2.AsyncClient:
    """An httpx2 async client whose requests the respx `router` answers."""

    async def handler(request: httpx2.Request) -> httpx2.Response:
        try:
            response = router.handler(_to_httpx(request))
        except httpx.TransportError as exc:
            # A route's side effect raised httpx's error: the SDK expects httpx2's of that name.
            kind = getattr(httpx2, type(exc).__name__, httpx2.TransportError)
            raise kind(str(exc)) from exc
        if hasattr(response, "__await__"):
            response = await response
        return await _from_httpx(response)

    return httpx2.AsyncClient(transport=httpx2.MockTransport(handler))


class CutStream(httpx2.AsyncByteStream):
    """A response body that sends `data` and then fails like a dropped connection."""

    def __init__(self, data: bytes) -> None:
        self.data = data

    async def __aiter__(self) -> Any:
        yield self.data
        raise httpx2.RemoteProtocolError("peer closed connection without sending complete body")


def cut_response(
    status: int, data: bytes, content_type: str = "text/event-stream"
) -> httpx.Response:
    """A respx-side response whose body will be cut after `data` on the httpx2 side."""
    response = httpx.Response(status, headers={"content-type": content_type}, content=data)
    response.cut_stream = CutStream(data)  # type: ignore[attr-defined]
    return response
