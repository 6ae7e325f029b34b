"""Provides where spans go: OTLP over HTTP to a collector, or a JSON-lines file (`JsonLinesExporter`).

Imported only when tracing is on (it imports the OpenTelemetry SDK). The run has a `TracerProvider` of its own,
never the process's global one: libraries that trace through the global provider (the MCP SDK does) stay
untraced, and nothing of ours changes what they do.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Sequence
from pathlib import Path

from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import ReadableSpan, SpanProcessor, TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor, SimpleSpanProcessor, SpanExporter, SpanExportResult

from tui_agent import __version__
from tui_agent.config import TracingSettings

TRACES_PATH = "/v1/traces"
DEFAULT_FILE = "traces.jsonl"
EXPORT_TIMEOUT = 3.0
"""Seconds one OTLP export may take, retries included (the SDK's default is 10): the last batch is sent as the
run closes, and a collector that is down should not hold the exit long. The environment's setting wins."""
TIMEOUT_VARIABLES = {"OTEL_EXPORTER_OTLP_TRACES_TIMEOUT", "OTEL_EXPORTER_OTLP_TIMEOUT"}


class JsonLinesExporter(SpanExporter):
    """Appends each span as one JSON object a line (OpenTelemetry's own JSON of a span) to a file only its owner
    may read (a trace names the tools run and the sessions)."""

    def __init__(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self.path = path
        descriptor = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
        self._file = os.fdopen(descriptor, "a", encoding="utf-8")
        self._lock = threading.Lock()

    def export(self, spans: Sequence[ReadableSpan]) -> SpanExportResult:
        lines = "".join(span.to_json(indent=None) + "\n" for span in spans)
        try:
            with self._lock:
                self._file.write(lines)
                self._file.flush()
        except (OSError, ValueError):  # disk full, closed: the run goes on untraced
            return SpanExportResult.FAILURE
        return SpanExportResult.SUCCESS

    def shutdown(self) -> None:
        with self._lock:
            self._file.close()

    def force_flush(self, timeout_millis: int = 30000) -> bool:
        return True


def span_exporter(settings: TracingSettings, data_dir: Path) -> SpanExporter:
    """The exporter `settings` ask for ("otlp" or "file")."""
    if settings.exporter == "file":
        return JsonLinesExporter(settings.file or data_dir / DEFAULT_FILE)
    # deferred: the OTLP exporter brings protobuf and requests, for "otlp" alone
    from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter

    timeout = None if TIMEOUT_VARIABLES & os.environ.keys() else EXPORT_TIMEOUT
    return OTLPSpanExporter(endpoint=_traces_url(settings.endpoint), timeout=timeout)


def tracer_provider(settings: TracingSettings, exporter: SpanExporter) -> TracerProvider:
    """A provider of the run's own sending to `exporter`: in batches from a thread when over the network, each
    span as it ends otherwise (a file, a test's memory), so a run that is killed keeps what it wrote."""
    resource = Resource.create({"service.name": settings.service_name, "service.version": __version__})
    provider = TracerProvider(resource=resource)
    processor: SpanProcessor
    if settings.exporter == "otlp":
        processor = BatchSpanProcessor(exporter)
    else:
        processor = SimpleSpanProcessor(exporter)
    provider.add_span_processor(processor)
    return provider


def _traces_url(endpoint: str | None) -> str | None:
    """The traces URL of a collector's base URL, as $OTEL_EXPORTER_OTLP_ENDPOINT is read; None: the exporter's
    own reading of the environment."""
    if endpoint is None:
        return None
    base = endpoint.rstrip("/")
    return base if base.endswith(TRACES_PATH) else base + TRACES_PATH
