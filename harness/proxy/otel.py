"""OpenTelemetry for `prefixlock proxy --otel`: the proxy's spans (one `chat <model>` span per
request, GenAI conventions plus the cache's figures) exported over OTLP/HTTP, configured the
standard way, by the OTEL_EXPORTER_OTLP_* variables (endpoint, default http://localhost:4318;
headers; timeout; compression) and OTEL_SERVICE_NAME / OTEL_RESOURCE_ATTRIBUTES, as every
OpenTelemetry SDK reads them. Needs the `[otel]` extra (the SDK and its OTLP/HTTP exporter).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from ..errors import ConfigError

if TYPE_CHECKING:
    from opentelemetry.trace import Tracer


def otlp_tracer() -> tuple[Tracer, Callable[[], None]]:
    """(a tracer whose spans go to the OTLP endpoint in batches, a shutdown that sends what is
    left). A missing SDK is the user's error, naming the extra."""
    try:
        from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
        from opentelemetry.sdk.resources import Resource
        from opentelemetry.sdk.trace import TracerProvider
        from opentelemetry.sdk.trace.export import BatchSpanProcessor
    except ImportError as exc:
        raise ConfigError(
            f"needs the OpenTelemetry SDK and OTLP exporter ({exc.name} is missing): "
            "pip install 'prefixlock[otel]'",
            where="--otel",
        ) from None
    resource = Resource.create()  # OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES
    if str(resource.attributes.get("service.name", "")).startswith("unknown_service"):
        resource = resource.merge(Resource({"service.name": "prefixlock-proxy"}))
    provider = TracerProvider(resource=resource)
    provider.add_span_processor(BatchSpanProcessor(OTLPSpanExporter()))
    return provider.get_tracer("prefixlock.proxy"), provider.shutdown
