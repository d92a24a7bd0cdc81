"""OpenTelemetry spans for a session (optional extra `prefixlock[otel]`, off by default).

`Agent(..., tracer=trace.get_tracer("my-app"))` (any `opentelemetry.trace.Tracer`) makes each
session emit, under the caller's current span:
- one span per turn, `invoke_agent prefixlock` (`gen_ai.operation.name = "invoke_agent"`,
  `gen_ai.conversation.id`, the turn, how it ended);
- one span per request, `chat <model>` (`gen_ai.operation.name = "chat"`,
  `gen_ai.provider.name`, `gen_ai.request.model`, `gen_ai.usage.input_tokens` /
  `output_tokens`, `gen_ai.usage.cache_read.input_tokens` / `cache_creation.input_tokens`), plus
  the guard's figures: `prefixlock.cache.read`, `.written`, `.predicted`, `.rebilled`, `.cause`
  and `prefixlock.cost.dollars`;
- one span per tool call, `execute_tool <name>` (`gen_ai.tool.name`, `gen_ai.tool.call.id`,
  `error.type` when it failed).
Attribute names follow the OpenTelemetry GenAI semantic conventions. No prompt, tool input or
output, key or `deps` is ever an attribute: only names, ids, counts and dollars.

Spans are started with explicit parents, never attached to the context: a session's turn is an
async generator whose steps run in the caller's context, where an attached span would leak.
Without a tracer (the default) every call here is a no-op and `opentelemetry` is not imported.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from opentelemetry.context import Context
    from opentelemetry.trace import Span, Tracer

    from .billing.ledger import LedgerRow

PROVIDER_NAMES = {  # our api -> gen_ai.provider.name
    "anthropic": "anthropic",
    "openai-chat": "openai",
    "openai-responses": "openai",
}


class Telemetry:
    """The spans of one session; inert without a tracer."""

    def __init__(self, tracer: Tracer | None, session_id: str) -> None:
        self.tracer = tracer
        self.session_id = session_id

    def turn(self, turn: int, model: str) -> Span | None:
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
        if span is None:
            return
        if stop_reason is not None:
            span.set_attribute("prefixlock.stop_reason", stop_reason)
        _end(span, error)

    def request(self, parent: Span | None, api: str, model: str, index: int) -> Span | None:
        if self.tracer is None:
            return None
        return self.tracer.start_span(
            f"chat {model}",
            context=_under(parent),
            attributes={
                "gen_ai.operation.name": "chat",
                "gen_ai.provider.name": PROVIDER_NAMES.get(api, api),
                "gen_ai.request.model": model,
                "gen_ai.conversation.id": self.session_id,
                "prefixlock.request": index,
            },
        )

    def end_request(
        self, span: Span | None, row: LedgerRow | None, error: BaseException | None = None
    ) -> None:
        if span is None:
            return
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
