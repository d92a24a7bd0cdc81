"""OpenTelemetry spans for a session (optional extra `prefixlock[otel]`, off by default).

`Agent(..., tracer=trace.get_tracer("my-app"))` (any `opentelemetry.trace.Tracer`) makes each
session emit, under the caller's current span:
- one span per turn, `invoke_agent prefixlock` (`gen_ai.operation.name = "invoke_agent"`,
  `gen_ai.conversation.id`, the turn, how it ended);
- one span per request, `chat <model>`, of kind CLIENT (a call to a remote model):
  `gen_ai.operation.name = "chat"`, `gen_ai.provider.name`, `gen_ai.request.model`,
  `server.address` and `server.port` (the provider's host, or the base URL's), then from the
  response `gen_ai.response.id`, `gen_ai.response.model`, `gen_ai.response.finish_reasons`,
  `gen_ai.usage.input_tokens` / `output_tokens`, `gen_ai.usage.cache_read.input_tokens` /
  `cache_creation.input_tokens`, plus the guard's figures: `prefixlock.cache.read`,
  `.written`, `.predicted`, `.rebilled`, `.cause` and `prefixlock.cost.dollars`;
- one span per tool call, `execute_tool <name>` (`gen_ai.tool.name`, `gen_ai.tool.call.id`,
  `error.type` when it failed).
The turn and tool spans are INTERNAL (the agent and its tools run in this process), the request
spans CLIENT, as the conventions define them. Attribute names are those of the OpenTelemetry
GenAI semantic conventions (`tests/core/test_core_telemetry.py` checks each against the
`opentelemetry-semantic-conventions` package's list). No prompt, tool input or output, key or
`deps` is ever an attribute: only names, ids, counts and dollars.

Spans are started with explicit parents, never attached to the context: a session's turn is an
async generator whose steps run in the caller's context, where an attached span would leak.
Without a tracer (the default) every call here is a no-op and `opentelemetry` is not imported.
"""

from __future__ import annotations

from typing import TYPE_CHECKING
from urllib.parse import urlsplit

if TYPE_CHECKING:
    from opentelemetry.context import Context
    from opentelemetry.trace import Span, Tracer

    from .billing.ledger import LedgerRow
    from .providers.base import Reply

PROVIDER_NAMES = {  # our api -> gen_ai.provider.name
    "anthropic": "anthropic",
    "openai-chat": "openai",
    "openai-responses": "openai",
}
# Where each API is served when no base URL is given (the official SDKs' defaults).
DEFAULT_HOSTS = {
    "anthropic": "https://api.anthropic.com",
    "openai-chat": "https://api.openai.com/v1",
    "openai-responses": "https://api.openai.com/v1",
}


def server_of(api: str, base_url: str | None) -> tuple[str, int] | None:
    """`server.address` and `server.port` of a request: the base URL's host and port (the
    scheme's default port when it names none), else the API's default host."""
    url = base_url or DEFAULT_HOSTS.get(api)
    if not url:
        return None
    parts = urlsplit(url)
    if not parts.hostname:
        return None
    return parts.hostname, parts.port or (443 if parts.scheme == "https" else 80)


class Telemetry:
    """The spans of one session; inert without a tracer."""

    def __init__(self, tracer: Tracer | None, session_id: str) -> None:
        self.tracer = tracer
        self.session_id = session_id

    def turn(self, turn: int, model: str) -> Span | None:
        """Start a turn's span (`invoke_agent`, INTERNAL); None without a tracer."""
        if self.tracer is None:
            return None
        return self.tracer.start_span(
            "invoke_agent prefixlock",
            attributes={
                "gen_ai.operation.name": "invoke_agent",
                "gen_ai.agent.name": "prefixlock",
                "gen_ai.conversation.id": self.session_id,
                "gen_ai.request.model": model,
                "prefixlock.turn": turn,
            },
        )

    def end_turn(
        self, span: Span | None, stop_reason: str | None, error: BaseException | None
    ) -> None:
        """End a turn's span with how the turn ended (or the error that ended it)."""
        if span is None:
            return
        if stop_reason is not None:
            span.set_attribute("prefixlock.stop_reason", stop_reason)
        _end(span, error)

    def request(
        self,
        parent: Span | None,
        api: str,
        model: str,
        index: int,
        base_url: str | None = None,
    ) -> Span | None:
        """Start a request's span (`chat <model>`, CLIENT) under the turn's; None without a
        tracer. `base_url`: where the request goes (None: the API's default host)."""
        if self.tracer is None:
            return None
        from opentelemetry.trace import SpanKind

        attributes: dict[str, str | int] = {
            "gen_ai.operation.name": "chat",
            "gen_ai.provider.name": PROVIDER_NAMES.get(api, api),
            "gen_ai.request.model": model,
            "gen_ai.conversation.id": self.session_id,
            "prefixlock.request": index,
        }
        server = server_of(api, base_url)
        if server is not None:
            attributes["server.address"], attributes["server.port"] = server
        return self.tracer.start_span(
            f"chat {model}", context=_under(parent), kind=SpanKind.CLIENT, attributes=attributes
        )

    def end_request(
        self,
        span: Span | None,
        row: LedgerRow | None,
        error: BaseException | None = None,
        reply: Reply | None = None,
    ) -> None:
        """End a request's span with the response's id, finish reason and usage, and the
        guard's cache figures (`row`), or the error that ended it."""
        if span is None:
            return
        if reply is not None:
            if reply.message_id:
                span.set_attribute("gen_ai.response.id", reply.message_id)
            if reply.stop_reason:
                span.set_attribute("gen_ai.response.finish_reasons", [reply.stop_reason])
        if row is not None:
            u = row.usage
            span.set_attribute("gen_ai.response.model", row.model)
            span.set_attribute("gen_ai.usage.input_tokens", u.input_total)
            span.set_attribute("gen_ai.usage.output_tokens", u.output)
            span.set_attribute("gen_ai.usage.cache_read.input_tokens", u.cache_read)
            span.set_attribute("gen_ai.usage.cache_creation.input_tokens", u.cache_write)
            span.set_attribute("prefixlock.cache.read", u.cache_read)
            span.set_attribute("prefixlock.cache.written", u.cache_write)
            span.set_attribute("prefixlock.cache.rebilled", row.rebilled)
            if row.predicted_read is not None:
                span.set_attribute("prefixlock.cache.predicted", row.predicted_read)
            if row.cause is not None:
                span.set_attribute("prefixlock.cache.cause", row.cause)
            if row.cost is not None:
                span.set_attribute("prefixlock.cost.dollars", float(row.cost))
        _end(span, error)

    def tool(self, parent: Span | None, name: str, call_id: str) -> Span | None:
        """Start a tool call's span (`execute_tool <name>`, INTERNAL); None without a
        tracer."""
        if self.tracer is None:
            return None
        return self.tracer.start_span(
            f"execute_tool {name}",
            context=_under(parent),
            attributes={
                "gen_ai.operation.name": "execute_tool",
                "gen_ai.tool.name": name,
                "gen_ai.tool.call.id": call_id,
            },
        )

    def end_tool(self, span: Span | None, is_error: bool) -> None:
        """End a tool call's span, marked as an error when the tool failed."""
        if span is None:
            return
        if is_error:
            from opentelemetry.trace import Status, StatusCode

            span.set_attribute("error.type", "tool_error")
            span.set_status(Status(StatusCode.ERROR))
        span.end()


def _under(parent: Span | None) -> Context | None:
    from opentelemetry import trace

    return trace.set_span_in_context(parent) if parent is not None else None


def _end(span: Span, error: BaseException | None) -> None:
    if error is not None and not isinstance(error, GeneratorExit):
        from opentelemetry.trace import Status, StatusCode

        span.set_attribute("error.type", type(error).__name__)
        span.set_status(Status(StatusCode.ERROR, type(error).__name__))
    span.end()
