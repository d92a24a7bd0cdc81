"""The SDK provider: a model's pure request builder, its transport through the official SDK with
retries, and its usage parser, behind one object (`make_provider`)."""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from typing import TYPE_CHECKING, Any

from ..billing.prices import PriceTable
from ..billing.usage import Usage, parse_usage
from ..errors import ProviderError
from ..events import Event
from ..settings import Settings
from ..wire import WireRequest
from .anthropic import AnthropicBuilder
from .base import Reply, SessionInfo, StreamItem, StreamProgress
from .openai import ChatBuilder, ResponsesBuilder
from .registry import Route, find_key, resolve_route
from .transport import Sleep, Transport

if TYPE_CHECKING:
    import httpx2

    from ..prefix import FrozenPrefix
    from ..transcript import Message, Transcript

Builder = AnthropicBuilder | ChatBuilder | ResponsesBuilder


def make_builder(api: str, model: str) -> Builder:
    """The pure request builder for a wire API."""
    if api == "anthropic":
        return AnthropicBuilder(model)
    if api == "openai-responses":
        return ResponsesBuilder(model)
    if api in ("openai-chat", "openai-compat"):
        return ChatBuilder(model, api=api)
    raise ValueError(f"unknown wire API {api!r}")


class SDKProvider:
    """A provider: a pure builder, an SDK transport with retries, and a usage parser."""

    def __init__(
        self,
        route: Route,
        api_key: str,
        settings: Settings | None = None,
        *,
        http_client: httpx2.AsyncClient | None = None,
        sleep: Sleep | None = None,
    ) -> None:
        self.route = route
        self.api: str = route.api
        self.model: str = route.model
        self.builder: Builder = make_builder(route.api, route.model)
        self.transport: Transport = Transport(
            route.api,
            api_key,
            route.base_url,
            settings or Settings(),
            http_client=http_client,
            sleep=sleep,
        )

    def build_request(
        self,
        prefix: FrozenPrefix,
        transcript: Transcript | Sequence[Message],
        settings: Settings,
        session: SessionInfo,
        volatile: Sequence[str] = (),
        pending: Sequence[Message] = (),
    ) -> WireRequest:
        """The request for the next turn: the builder's own (pure: same inputs, same bytes)."""
        return self.builder.build_request(prefix, transcript, settings, session, volatile, pending)

    def __repr__(self) -> str:
        return f"SDKProvider({self.route.label}, base_url={self.route.base_url!r})"

    def stream(
        self, request: WireRequest, progress: StreamProgress | None = None
    ) -> AsyncIterator[StreamItem]:
        """Text deltas and faults, then one Reply. `progress`, when given, records each attempt
        (what usage it reported, its text so far) for a caller whose stream stops early."""
        return self.transport.stream(request, progress)

    async def complete(self, request: WireRequest, events: list[Event]) -> Reply:
        """Stream `request` to its end (a request outside a turn: a compaction's summary, a
        keep-alive ping): its text deltas and faults go to `events`, its Reply is returned."""
        reply: Reply | None = None
        async for item in self.stream(request):
            if isinstance(item, Reply):
                reply = item
            else:
                events.append(item)
        if reply is None:
            raise ProviderError("stream ended without a reply", retryable=True)
        return reply

    def ask_diagnostics(self, previous_id: str | None) -> None:
        """Ask the provider why the next request misses against response `previous_id`
        (cache-diagnostics beta; see prefixlock.providers.diagnostics)."""
        self.transport.ask_diagnostics(previous_id)

    def parse_usage(self, raw: Any) -> Usage:
        """One normalized Usage from this API's usage object."""
        return parse_usage(self.api, raw)

    async def aclose(self) -> None:
        """Close the official SDK's client."""
        await self.transport.aclose()


def make_provider(
    model: str,
    *,
    api_key: str | None = None,
    base_url: str | None = None,
    prices: PriceTable | None = None,
    settings: Settings | None = None,
    http_client: httpx2.AsyncClient | None = None,
    sleep: Sleep | None = None,
) -> SDKProvider:
    """The provider for `model`; raises MissingKeyError naming the variable to set."""
    route = resolve_route(model, base_url, prices)
    key = find_key(route, api_key)
    return SDKProvider(route, key, settings, http_client=http_client, sleep=sleep)
