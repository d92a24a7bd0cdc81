"""The proxy's client for its upstream: one small interface over aiohttp (llhttp, a C parser; the
`[proxy]` extra) or httpx2 (pure Python; the fallback), so that the relay is the same on both.

aiohttp hands over all that has arrived since the last read as one chunk: a stream whose events
come faster than the proxy relays them goes out in fewer, larger writes, not one write per event,
and no Python parses each HTTP chunk. Neither client decodes the answer (the proxy asks for
`identity` and decompresses nothing), follows a redirect, re-quotes the path or adds a header the
client did not send, beyond Host, Content-Length and Accept-Encoding.
"""

from __future__ import annotations

import importlib.util
from collections.abc import AsyncIterator, Mapping
from typing import Any

CLIENTS = ("auto", "aiohttp", "httpx")


class UpstreamTimeout(Exception):
    """The upstream did not answer in time; `which` is "connect", "read" or "write"."""

    def __init__(self, which: str) -> None:
        super().__init__(which)
        self.which = which


class UpstreamError(Exception):
    """The upstream could not be reached, or broke off the exchange (`str` says how)."""


def _why(exc: BaseException) -> UpstreamError:
    return UpstreamError(f"{type(exc).__name__}: {exc}")


class Reply:
    """An upstream's answer: status, headers as they came, and the body as it arrives."""

    status: int
    headers: list[tuple[bytes, bytes]]

    def header(self, name: bytes) -> str:
        """The first header `name` (lower case), or ""."""
        for key, value in self.headers:
            if key.lower() == name:
                return value.decode("latin-1")
        return ""

    def chunks(self) -> AsyncIterator[bytes]:
        raise NotImplementedError

    async def close(self) -> None:
        raise NotImplementedError

    async def read(self) -> bytes:
        """The whole body (a keep-alive ping's answer, small)."""
        try:
            return b"".join([chunk async for chunk in self.chunks()])
        finally:
            await self.close()


class Upstream:
    """A pool of connections to upstreams: `send` a request, read its `Reply`."""

    async def send(self, method: str, url: str, headers: Mapping[str, str], data: bytes) -> Reply:
        raise NotImplementedError

    async def aclose(self) -> None:
        raise NotImplementedError


def client(kind: str, connect_timeout: float, read_timeout: float) -> Upstream:
    """The upstream client `kind` (`auto`: aiohttp when installed, else httpx2), made inside the
    running event loop it serves."""
    if kind not in CLIENTS:
        raise ValueError(f"unknown upstream client {kind!r} (known: {', '.join(CLIENTS)})")
    fast = kind != "httpx" and importlib.util.find_spec("aiohttp") is not None
    if kind == "aiohttp" and not fast:
        raise ValueError("the aiohttp client is not installed (pip install prefixlock[proxy])")
    if fast:
        return _AiohttpUpstream(connect_timeout, read_timeout)
    return _HttpxUpstream(connect_timeout, read_timeout)


# ---- aiohttp -----------------------------------------------------------------------------------


class _AiohttpReply(Reply):
    def __init__(self, response: Any) -> None:
        self._response = response
        self.status = int(response.status)
        self.headers = list(response.raw_headers)

    async def chunks(self) -> AsyncIterator[bytes]:
        import aiohttp

        try:
            async for chunk in self._response.content.iter_any():
                yield chunk
        except aiohttp.ServerTimeoutError:
            raise UpstreamTimeout("read") from None
        except aiohttp.ClientError as exc:
            raise _why(exc) from None

    async def close(self) -> None:
        self._response.release()  # back to the pool when read whole, else closed


class _AiohttpUpstream(Upstream):
    def __init__(self, connect_timeout: float, read_timeout: float) -> None:
        import aiohttp

        self._session = aiohttp.ClientSession(
            timeout=aiohttp.ClientTimeout(
                total=None, connect=connect_timeout, sock_read=read_timeout
            ),
            auto_decompress=False,
            trust_env=False,
            # Only what the client sent: no User-Agent, Accept or Content-Type of aiohttp's.
            skip_auto_headers=("User-Agent", "Accept", "Content-Type"),
        )

    async def send(self, method: str, url: str, headers: Mapping[str, str], data: bytes) -> Reply:
        import aiohttp
        from yarl import URL

        try:
            response = await self._session.request(
                method,
                URL(url, encoded=True),  # the path and query as the client wrote them
                headers=dict(headers),
                data=data or None,
                allow_redirects=False,
            )
        except aiohttp.ConnectionTimeoutError:
            raise UpstreamTimeout("connect") from None
        except aiohttp.ServerTimeoutError:
            raise UpstreamTimeout("read") from None
        except aiohttp.ClientError as exc:
            raise _why(exc) from None
        return _AiohttpReply(response)

    async def aclose(self) -> None:
        await self._session.close()


# ---- httpx2 ------------------------------------------------------------------------------------


def _httpx_timeout(exc: Exception) -> UpstreamTimeout:
    import httpx2

    if isinstance(exc, httpx2.ConnectTimeout | httpx2.PoolTimeout):
        return UpstreamTimeout("connect")
    if isinstance(exc, httpx2.WriteTimeout):
        return UpstreamTimeout("write")
    return UpstreamTimeout("read")


class _HttpxReply(Reply):
    def __init__(self, response: Any) -> None:
        self._response = response
        self.status = int(response.status_code)
        self.headers = list(response.headers.raw)

    async def chunks(self) -> AsyncIterator[bytes]:
        import httpx2

        try:
            async for chunk in self._response.aiter_raw():
                yield chunk
        except httpx2.TimeoutException as exc:
            raise _httpx_timeout(exc) from None
        except httpx2.HTTPError as exc:
            raise _why(exc) from None

    async def close(self) -> None:
        await self._response.aclose()


class _HttpxUpstream(Upstream):
    def __init__(self, connect_timeout: float, read_timeout: float) -> None:
        import httpx2

        self._client = httpx2.AsyncClient(
            timeout=httpx2.Timeout(read_timeout, connect=connect_timeout, pool=connect_timeout),
            trust_env=False,
        )

    async def send(self, method: str, url: str, headers: Mapping[str, str], data: bytes) -> Reply:
        import httpx2

        request = self._client.build_request(method, url, headers=dict(headers), content=data)
        try:
            response = await self._client.send(request, stream=True)
        except httpx2.TimeoutException as exc:
            raise _httpx_timeout(exc) from None
        except httpx2.HTTPError as exc:
            raise _why(exc) from None
        return _HttpxReply(response)

    async def aclose(self) -> None:
        await self._client.aclose()
