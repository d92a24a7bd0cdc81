"""Transport: one streamed request through the official SDK's async client, with our retries.

The SDK's own retries are off (`max_retries=0`) so nothing retries twice. Ours (tenacity) retry
429, 529, other 5xx, 408/409, connection errors, a stream cut before its final event and an SSE
`error` event in the middle of a 200 stream, waiting what `retry-after-ms` / `retry-after` ask
(capped) or an exponential backoff. The sleep is injectable, so tests never sleep for real.
Nothing is appended to a transcript here: the caller appends only a finished `Reply`, so a retried
turn can neither duplicate nor lose an entry. Every fault is yielded as a `ProviderFault`; when
retries run out the stream raises `ProviderError`. The API key never enters a message.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import random
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from tenacity import AsyncRetrying, RetryCallState, retry_if_exception, stop_after_attempt

from ..billing.usage import Usage
from ..canonical import canonical_json
from ..errors import ProviderError
from ..events import ProviderFault, TextDelta
from ..redact import redact
from ..settings import Settings
from ..tokenizer import count_tokens
from .anthropic import AnthropicStream
from .base import AttemptProgress, Reply, StreamItem, StreamProgress
from .body import encode_body
from .diagnostics import diagnostics_request
from .lazy_body import copy_body
from .openai import ChatStream, ResponsesStream

if TYPE_CHECKING:
    import httpx2

Sleep = Callable[[float], Awaitable[None]]

RETRYABLE_STATUS = frozenset({408, 409, 429})
# Error types carried by a mid-stream SSE `error` event (HTTP status 200), mapped to the status
# the same error has when it comes before the stream starts.
_ERROR_TYPES = {
    "overloaded_error": 529,
    "rate_limit_error": 429,
    "rate_limit_exceeded": 429,
    "api_error": 500,
    "server_error": 500,
    "internal_server_error": 500,
    "timeout_error": 504,
    "invalid_request_error": 400,
    "authentication_error": 401,
    "permission_error": 403,
    "not_found_error": 404,
    "request_too_large": 413,
}


class Fault(Exception):
    """One failed attempt, classified."""

    def __init__(
        self, message: str, status: int | None, retryable: bool, retry_after: float | None = None
    ) -> None:
        super().__init__(message)
        self.message = message
        self.status = status
        self.retryable = retryable
        self.retry_after = retry_after


def is_retryable(status: int | None) -> bool:
    return status is None or status in RETRYABLE_STATUS or status >= 500


def retry_after(headers: Mapping[str, str] | None) -> float | None:
    """Seconds asked by `retry-after-ms` (preferred, more precise) or `retry-after`."""
    if not headers:
        return None
    for name, scale in (("retry-after-ms", 0.001), ("retry-after", 1.0)):
        raw = headers.get(name)
        if raw is None:
            continue
        try:
            seconds = float(raw) * scale
        except ValueError:
            continue  # an HTTP date: rare from these APIs; fall back to backoff
        if seconds >= 0:
            return seconds
    return None


def _error_of(body: Any) -> tuple[str | None, str | None]:
    """(type, message) of an API error body in either provider's shape."""
    if isinstance(body, Mapping):
        err = body.get("error", body)
        if isinstance(err, Mapping):
            kind = err.get("type") or err.get("code")
            msg = err.get("message")
            return (str(kind) if kind else None), (str(msg) if msg else None)
    return None, None


def classify(exc: BaseException, api: str, secret: str | None = None) -> Fault:
    """Turn an SDK or HTTP exception into a `Fault`; re-raise anything that is not one."""
    import anthropic
    import httpx2
    import openai

    if isinstance(exc, Fault):
        return exc
    if isinstance(exc, (anthropic.APIStatusError, openai.APIStatusError)):
        status: int | None = exc.status_code
        kind, msg = _error_of(exc.body)
        if status == 200 or status is None:  # an SSE `error` event in a 200 stream
            status = _ERROR_TYPES.get(kind or "", 500)
        headers = exc.response.headers if exc.response is not None else None
        text = f"{api}: HTTP {status} {kind or ''}: {msg or 'error'}".replace("  ", " ")
        return Fault(redact(text, [secret]), status, is_retryable(status), retry_after(headers))
    if isinstance(exc, (anthropic.APIConnectionError, openai.APIConnectionError)):
        name = "timeout" if "Timeout" in type(exc).__name__ else "connection error"
        # Which server could not be reached: the base URL is the usual mistake (a typo, a
        # gateway that is down, the emulator not started). The query is dropped, the key is
        # never in a URL we build, and the text is scrubbed anyway.
        request = getattr(exc, "request", None)
        url = getattr(request, "url", None)
        where = f" to {str(url).split('?')[0]}" if url is not None else ""
        return Fault(redact(f"{api}: {name}{where}", [secret]), None, True)
    if isinstance(exc, (anthropic.APIError, openai.APIError)):  # mid-stream error, no status
        kind, msg = _error_of(getattr(exc, "body", None))
        status = _ERROR_TYPES.get(kind or "", 500)
        text = f"{api}: stream error {kind or ''}: {msg or 'error'}"
        return Fault(redact(text, [secret]), status, is_retryable(status))
    if isinstance(exc, (httpx2.TransportError, asyncio.IncompleteReadError, ConnectionError)):
        return Fault(f"{api}: stream cut ({type(exc).__name__})", None, True)
    if isinstance(exc, json.JSONDecodeError):  # the SDK could not read an SSE event's data
        return Fault(f"{api}: malformed response: an event is not JSON ({exc.msg})", None, False)
    raise exc


class Transport:
    """Streams a `WireRequest` through an SDK client, retrying per `settings`."""

    def __init__(
        self,
        api: str,
        api_key: str,
        base_url: str | None,
        settings: Settings,
        *,
        http_client: httpx2.AsyncClient | None = None,
        sleep: Sleep | None = None,
    ) -> None:
        self.api = api
        self._key = api_key
        self.base_url = base_url
        self.settings = settings
        self._http_client = http_client
        self._sleep: Sleep = sleep or asyncio.sleep
        self._client: Any = None
        # Set by `ask_diagnostics` for the next request only: (asked, previous response id).
        self._diagnostics: tuple[bool, str | None] = (False, None)

    def ask_diagnostics(self, previous_id: str | None) -> None:
        """Ask the provider, on the next request, why it missed against `previous_id`."""
        self._diagnostics = (True, previous_id)

    def __repr__(self) -> str:  # never show the key
        return f"Transport({self.api}, base_url={self.base_url!r})"

    def client(self) -> Any:
        """The SDK's async client, made on first use with its own retries switched off."""
        if self._client is None:
            common: dict[str, Any] = {
                "api_key": self._key,
                "max_retries": 0,
                "timeout": self.settings.timeout,
            }
            if self._http_client is not None:
                common["http_client"] = self._http_client
            if self.api == "anthropic":
                import anthropic

                self._client = anthropic.AsyncAnthropic(
                    base_url=_anthropic_base(self.base_url), **common
                )
            else:
                import openai

                self._client = openai.AsyncOpenAI(base_url=_openai_base(self.base_url), **common)
        return self._client

    async def aclose(self) -> None:
        if self._client is not None:
            await self._client.close()
            self._client = None

    def _wait(self, state: RetryCallState) -> float:
        cap = self.settings.retry_max_wait
        exc = state.outcome.exception() if state.outcome else None
        if isinstance(exc, Fault) and exc.retry_after is not None:
            return float(min(exc.retry_after, cap))
        base = float(min(cap, 0.5 * 2 ** (state.attempt_number - 1)))
        return base + random.uniform(0, base / 4)  # jitter: retries of many clients spread out

    async def stream(
        self, request: Any, progress: StreamProgress | None = None
    ) -> AsyncIterator[StreamItem]:
        """Yield text deltas and faults, then one `Reply`; raise ProviderError when out of tries.
        Each attempt is recorded in `progress` (when given) as it streams."""
        waits: list[float] = []
        asked, previous_id = self._diagnostics
        self._diagnostics = (False, None)
        # A copy that keeps a body's message recipe (prefixlock.providers.lazy_body): `dict()`
        # would make its list, one dict a message, alive for the whole request.
        body: dict[str, Any] = copy_body(request.body)
        headers: dict[str, str] = {}
        if asked:
            body, headers = diagnostics_request(self.api, body, previous_id)
        # Encoded once for every attempt, an item at a time, as the SDK would encode it: the
        # SDK given the dict copies it whole and encodes it in one piece, a passing peak several
        # times the conversation's size (prefixlock.providers.body).
        content = encode_body(body)

        async def record(seconds: float) -> None:
            waits.append(seconds)  # slept below, after the fault has been reported

        retrying = AsyncRetrying(
            stop=stop_after_attempt(self.settings.retries + 1),
            wait=self._wait,
            retry=retry_if_exception(lambda e: isinstance(e, Fault) and e.retryable),
            sleep=record,
            reraise=True,
        )
        last: Fault | None = None
        number = 0
        try:
            async for attempt in retrying:
                number = attempt.retry_state.attempt_number
                if last is not None and waits:
                    yield ProviderFault(last.status, last.message, number - 1, retrying=True)
                    await self._sleep(waits.pop())
                failure: Fault | None = None
                try:
                    # Yield outside tenacity's attempt context: it would swallow GeneratorExit.
                    async for item in self._attempt(request, body, content, headers, progress):
                        yield item
                except Exception as exc:  # classified below; non-faults re-raise
                    failure = classify(exc, self.api, self._key)
                last = failure
                with attempt:
                    if failure is not None:
                        raise failure
        except Fault as fault:
            yield ProviderFault(fault.status, fault.message, number, retrying=False)
            raise ProviderError(
                fault.message, status=fault.status, retryable=fault.retryable
            ) from None

    async def _attempt(
        self,
        request: Any,
        body: dict[str, Any],
        content: bytes | None,
        headers: dict[str, str],
        progress: StreamProgress | None = None,
    ) -> AsyncIterator[TextDelta | Reply]:
        client = self.client()
        if self.api == "anthropic":
            from anthropic import AsyncStream as AnthropicSSE

            stream_cls: Any = AnthropicSSE[object]
            parser: Any = AnthropicStream()
            path = request.path
        else:
            from openai import AsyncStream as OpenAISSE

            stream_cls = OpenAISSE[object]
            parser = ResponsesStream() if self.api == "openai-responses" else ChatStream()
            path = request.path.removeprefix("/v1")  # the OpenAI client's base_url ends in /v1
        # The body's bytes as the SDK would make them (`content`), or the dict for the SDK to
        # encode where it holds what only the SDK can encode.
        sent: dict[str, Any] = {"content": content} if content is not None else {"body": body}
        sse = await client.post(
            path,
            **sent,
            cast_to=object,
            stream=True,
            stream_cls=stream_cls,
            options={"headers": headers} if headers else {},
        )
        seen = AttemptProgress(parser, started=True)  # the response began: it is billed
        if progress is not None:
            progress.attempts.append(seen)
        # The SDK's stream is a chain of async generators down to the HTTP connection. Left
        # suspended (a fault raised here, a caller that stops reading) they are closed only
        # when the event loop shuts down, all at once, and the inner ones then fail with
        # "aclose(): asynchronous generator is already running". Closed here, in order.
        events = sse.__aiter__()
        try:
            async for event in events:
                delta = self._event(parser, event)
                seen.events += 1  # a well-formed event of the answer: the provider began it
                if delta is not None:
                    seen.text.append(delta.text)
                    yield delta
        finally:
            await events.aclose()
            await sse.close()
        if not parser.done:
            raise Fault(f"{self.api}: stream cut before its final event", None, True)
        reply = parser.reply()
        seen.finished = True
        yield reply if reply.raw_usage else _estimated(reply, request.input_tokens)

    def _event(self, parser: Any, event: Any) -> TextDelta | None:
        """One SSE event fed to the parser: a text delta or None; an error event is a Fault."""
        if not isinstance(event, Mapping):
            return None
        kind = event.get("type")
        if kind in ("error", "response.failed"):
            failed = event.get("response", event) if kind == "response.failed" else event
            err_kind, msg = _error_of(failed)
            status = _ERROR_TYPES.get(err_kind or "", 500)
            raise Fault(
                redact(f"{self.api}: stream error {err_kind}: {msg}", [self._key]),
                status,
                is_retryable(status),
            )
        try:
            delta = parser.feed(event)
        except (AttributeError, TypeError, LookupError, ValueError) as exc:
            # An event of the wrong shape (a proxy's garbage, a server that is not quite
            # compatible): a provider fault to report, not a traceback from our parser.
            raise Fault(
                f"{self.api}: malformed response: unexpected {kind or 'event'} "
                f"({type(exc).__name__})",
                None,
                False,
            ) from exc
        return delta if isinstance(delta, TextDelta) else None


ESTIMATE_KEY = "prefixlock_estimate"


def _estimated(reply: Reply, input_tokens: int) -> Reply:
    """A reply from a server that reported no usage (some OpenAI-compatible servers ignore
    `stream_options.include_usage`): counted with the local tokenizer, all input as uncached
    (the upper bound), and flagged, rather than ledgered as 0 tokens and $0."""
    output = sum(
        count_tokens(str(b.get("text", "")) if b.get("type") == "text" else canonical_json(b))
        for b in reply.blocks
    )
    raw = {ESTIMATE_KEY: "no usage reported by the server; counted by the local tokenizer"}
    usage = Usage(uncached_input=input_tokens, output=output, raw=raw)
    return dataclasses.replace(reply, usage=usage, raw_usage=raw)


def _openai_base(base_url: str | None) -> str | None:
    """The OpenAI SDK wants the base URL with its API path. A bare host (`http://localhost:8000`,
    the emulator, `https://api.deepseek.com`) gets `/v1`; a URL with a path is the user's
    (`.../v1`, or a compatible API mounted elsewhere, such as `.../v1beta/openai`)."""
    if base_url is None:
        return None
    url = base_url.rstrip("/")
    return url if urlsplit(url).path else url + "/v1"


def _anthropic_base(base_url: str | None) -> str | None:
    """The Anthropic SDK adds `/v1/messages` itself; accept a base URL with or without `/v1`."""
    if base_url is None:
        return None
    url = base_url.rstrip("/")
    return url.removesuffix("/v1")
