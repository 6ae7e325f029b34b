"""Provides `start_tracing`: a run's agent followed into OpenTelemetry spans, when `[tracing]` or `--otel` asks.

Light at import: OpenTelemetry is imported only here, inside the call, when tracing is on. The build of the
engine (`agent/services.py`) calls it once per run; the `Tracing` it returns is closed with the run (it ends
what is still open and flushes the exporter).
"""

from __future__ import annotations

import asyncio
import importlib.util
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from tui_agent.commander.events import NodeEvent
from tui_agent.config import TracingSettings
from tui_agent.tracing.telemetry import Telemetry

if TYPE_CHECKING:
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SpanExporter

MISSING = (
    "Tracing is on ([tracing] or --otel) but OpenTelemetry is not installed: "
    "pip install 'tui-agent[otel]'. This run is not traced."
)
INSTRUMENTATION = "tui_agent"


class Traced(Protocol):
    """What tracing follows of an agent: its task tree and what its turns tell."""

    @property
    def telemetry(self) -> Telemetry: ...

    def subscribe_tree(self, observer: Callable[[NodeEvent], None]) -> Callable[[], None]: ...


class Tracing:
    """A run's tracing: stops following the agent and flushes the spans when closed (once)."""

    def __init__(self, provider: TracerProvider, stops: list[Callable[[], None]], end_all: Callable[[], None]) -> None:
        self.provider = provider
        self._stops, self._end_all = stops, end_all

    async def close(self) -> None:
        stops, self._stops = self._stops, []
        if not stops:
            return
        for stop in stops:
            stop()
        self._end_all()
        await asyncio.to_thread(self.provider.shutdown)  # flushes: an OTLP export may wait on the network


def start_tracing(
    agent: Traced,
    settings: TracingSettings,
    data_dir: Path,
    *,
    provider_name: str = "openai",
    exporter: SpanExporter | None = None,
) -> Tracing | str | None:
    """Follow `agent` into spans sent where `settings` say (or to `exporter`: a test's in-memory one); None when
    tracing is off, the sentence to tell the person when it cannot start."""
    if settings.exporter is None and exporter is None:
        return None
    if importlib.util.find_spec("opentelemetry.sdk") is None:
        return MISSING
    # deferred: OpenTelemetry's SDK (and the exporter's HTTP stack) load only when tracing is on
    from tui_agent.tracing.exporters import span_exporter, tracer_provider
    from tui_agent.tracing.spans import TaskTracer

    try:
        chosen = exporter or span_exporter(settings, data_dir)
    except OSError as error:
        return f"Tracing could not open its file: {error}. This run is not traced."
    provider = tracer_provider(settings, chosen)
    tracer = TaskTracer(provider.get_tracer(INSTRUMENTATION), provider_name)
    stops = [agent.subscribe_tree(tracer.follow_node), agent.telemetry.listen(tracer.follow)]
    return Tracing(provider, stops, tracer.end_all)
