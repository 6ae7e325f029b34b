"""Tracing: a real turn's task tree as OpenTelemetry spans with the GenAI semantic conventions' attributes.

Real stack: the offline model over HTTP, the real agent and commander, a real SQLite file, the shipped agents
(the assistant delegates to the researcher) and team (writer-critic); the spans go to the SDK's in-memory
exporter, or to the JSON-lines file `[tracing]` names. With tracing off, OpenTelemetry is never imported.
"""

from __future__ import annotations

import importlib.util
import json
import sys
import threading
from collections.abc import Callable, Iterator, Sequence
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import ClassVar

import pytest
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest
from opentelemetry.sdk.trace import ReadableSpan
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import StatusCode

from tests.fixtures.offline import strict_scenario
from tests.unit.agent.conftest import MakeAgent, collect
from tui_agent import paths
from tui_agent.agent.events import ApprovalRequested, SubAgentEvent, ToolCallUpdated, TurnEndReason, TurnFinished
from tui_agent.boot import settings_from_args
from tui_agent.cli import build_parser
from tui_agent.commander.events import NodeEvent
from tui_agent.config import TracingSettings
from tui_agent.llm.events import StreamEnd, Usage
from tui_agent.offline.server import BackgroundServer
from tui_agent.status import ToolStatus
from tui_agent.tracing.exporters import tracer_provider
from tui_agent.tracing.spans import TaskTracer
from tui_agent.tracing.start import MISSING, Tracing, start_tracing
from tui_agent.tracing.telemetry import Telemetry

PLUGINS = Path(__file__).parent / "plugins"
"""The turn tests' plugins (`slow_echo`)."""
TRACER_MODULES = ("tui_agent.tracing.spans", "tui_agent.tracing.exporters")
"""Ours that import OpenTelemetry."""


@pytest.fixture(scope="module")
def model() -> Iterator[str]:
    """One offline model for the module's tests that need no scenario of their own: its base URL."""
    server = BackgroundServer(strict_scenario(None))
    server.start()
    try:
        yield server.base_url
    finally:
        server.stop()


def named(spans: Sequence[ReadableSpan], name: str) -> list[ReadableSpan]:
    return [span for span in spans if span.name == name]


def one(spans: Sequence[ReadableSpan], name: str) -> ReadableSpan:
    found = named(spans, name)
    assert len(found) == 1, [span.name for span in spans]
    return found[0]


def children(spans: Sequence[ReadableSpan], parent: ReadableSpan) -> list[ReadableSpan]:
    assert parent.context is not None
    return [span for span in spans if span.parent is not None and span.parent.span_id == parent.context.span_id]


def attr(span: ReadableSpan, key: str) -> object:
    assert span.attributes is not None
    return span.attributes.get(key)


async def test_a_turn_with_a_sub_agent_and_its_tool_then_a_team_run_are_traced_as_one_tree_each(
    make_agent: MakeAgent, model: str, tmp_path: Path
) -> None:
    built = await make_agent(model)
    agent = built.agent
    memory = InMemorySpanExporter()
    tracing = start_tracing(agent, TracingSettings(), tmp_path, exporter=memory)
    assert isinstance(tracing, Tracing)

    events = await collect(agent.send("ask the researcher what the weather is in Paris"))
    assert isinstance(events[-1], TurnFinished) and events[-1].reason is TurnEndReason.DONE
    spans = memory.get_finished_spans()

    turn = one(spans, "invoke_agent assistant")
    assert turn.parent is None  # a turn is a trace of its own
    assert attr(turn, "gen_ai.operation.name") == "invoke_agent" and attr(turn, "tui_agent.task") == "turn 1"
    assert attr(turn, "gen_ai.conversation.id") == agent.current_session_id
    assert attr(turn, "gen_ai.request.model") == agent.model and attr(turn, "tui_agent.status") == "done"
    assert {span.context.trace_id for span in spans if span.context} == {turn.context.trace_id}

    own = children(spans, turn)
    chats = [span for span in own if attr(span, "gen_ai.operation.name") == "chat"]
    assert len(chats) == 2  # asked once for the call, once for the answer
    for chat in chats:
        assert chat.name == f"chat {agent.model}" and attr(chat, "gen_ai.request.model") == agent.model
        assert attr(chat, "gen_ai.provider.name") == "openai" and attr(chat, "gen_ai.agent.name") == "assistant"
        assert isinstance(attr(chat, "gen_ai.usage.output_tokens"), int)
        assert chat.start_time is not None and turn.start_time is not None and chat.start_time >= turn.start_time
    assert [attr(chat, "gen_ai.response.finish_reasons") for chat in chats] == [("tool_calls",), ("stop",)]
    used = sum(int(str(attr(chat, "gen_ai.usage.input_tokens"))) for chat in chats)
    assert attr(turn, "gen_ai.usage.input_tokens") == used > 0  # the turn adds up its own requests

    asked = one(own, "execute_tool ask_researcher")
    call = next(e.call for e in events if isinstance(e, ToolCallUpdated) and e.call.name == "ask_researcher")
    assert attr(asked, "gen_ai.tool.name") == "ask_researcher" and attr(asked, "gen_ai.tool.call.id") == call.call_id
    assert asked.status.status_code is StatusCode.UNSET and attr(asked, "tui_agent.status") == "done"
    (researcher,) = children(spans, asked)  # the sub-agent's turn, under the call that asked it
    assert researcher.name == "invoke_agent researcher" and attr(researcher, "tui_agent.task") == "researcher"
    child_session = {e.session_id for e in events if isinstance(e, SubAgentEvent)}
    assert {attr(researcher, "gen_ai.conversation.id")} == child_session
    weather = one(children(spans, researcher), "execute_tool get_current_weather")
    assert attr(weather, "gen_ai.agent.name") == "researcher" and attr(weather, "tui_agent.status") == "done"
    assert "Paris" not in json.dumps(dict(weather.attributes or {}))  # no arguments or results recorded

    memory.clear()
    events = await collect(agent.run_team("writer-critic", "Write a post about tea"))
    assert isinstance(events[-1], TurnFinished) and events[-1].reason is TurnEndReason.DONE
    spans = memory.get_finished_spans()
    team = one(spans, "team writer-critic")
    assert team.parent is None and attr(team, "gen_ai.conversation.id") == agent.current_session_id
    rounds = children(spans, team)
    assert [span.name for span in rounds] == ["round 1", "round 2"]
    members = children(spans, rounds[0])
    assert [span.name for span in members] == ["invoke_agent writer", "invoke_agent critic"]
    (critic_chat,) = children(spans, members[1])
    assert attr(critic_chat, "gen_ai.agent.name") == "critic" and attr(critic_chat, "gen_ai.usage.output_tokens")

    await tracing.close()
    await tracing.close()  # once
    events = await collect(agent.send("what is 2+2?"))  # no longer followed
    assert not named(memory.get_finished_spans(), "invoke_agent assistant")


async def test_a_denied_call_and_a_cancelled_turn_say_so_and_the_file_exporter_writes_json_lines(
    make_agent: MakeAgent, model: str, tmp_path: Path
) -> None:
    """`[tracing] exporter = "file"` through the engine's build: a line per span, in a file only its owner reads."""
    traces = tmp_path / "traces" / "run.jsonl"
    built = await make_agent(model, tracing={"exporter": "file", "file": str(traces)})
    agent = built.agent
    events = await collect(agent.send("run `echo hi`"))  # run_shell asks; denied, as -p does
    shell = next(e.call for e in events if isinstance(e, ToolCallUpdated) and e.call.status.is_final)
    assert shell.status is ToolStatus.DENIED
    async for event in agent.send("run `echo again`"):  # Esc while it asks
        if isinstance(event, ApprovalRequested):
            agent.cancel()
    await built.close()  # flushes and closes the file

    lines = traces.read_text().splitlines()
    spans = [json.loads(line) for line in lines]
    tools = [span["attributes"]["tui_agent.status"] for span in spans if span["name"] == "execute_tool run_shell"]
    assert tools == ["denied", "interrupted"]
    turns = [span for span in spans if span["name"] == "invoke_agent assistant"]
    assert [span["attributes"]["tui_agent.status"] for span in turns] == ["done", "cancelled"]
    requests = []
    for turn in turns:
        assert turn["parent_id"] is None and turn["resource"]["attributes"]["service.name"] == "tui-agent"
        under = [span["name"] for span in spans if span["parent_id"] == turn["context"]["span_id"]]
        assert under.count("execute_tool run_shell") == 1
        requests.append(under.count("chat offline"))
    assert requests == [2, 1]  # the cancelled turn never asked again
    assert traces.stat().st_mode & 0o077 == 0


async def test_a_request_that_fails_is_an_error_span_and_the_turn_with_it(
    make_agent: MakeAgent, tmp_path: Path
) -> None:
    built = await make_agent("http://127.0.0.1:9/v1", model="nowhere", request_timeout=2)  # nothing listens there
    memory = InMemorySpanExporter()
    tracing = start_tracing(built.agent, TracingSettings(), tmp_path, exporter=memory)
    assert isinstance(tracing, Tracing)
    events = await collect(built.agent.send("hello"))
    assert isinstance(events[-1], TurnFinished) and events[-1].reason is TurnEndReason.ERROR
    spans = memory.get_finished_spans()
    chat = one(spans, "chat nowhere")
    assert chat.status.status_code is StatusCode.ERROR and attr(chat, "error.type") == "model_error"
    turn = one(spans, "invoke_agent assistant")
    assert turn.status.status_code is StatusCode.ERROR and attr(turn, "tui_agent.status") == "failed"
    await tracing.close()


class Collector(BaseHTTPRequestHandler):
    """An OTLP/HTTP collector's traces route: keeps each request's body."""

    received: ClassVar[list[tuple[str, bytes]]] = []

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers["Content-Length"]))
        self.received.append((self.path, body))
        self.send_response(200)
        self.send_header("Content-Type", "application/x-protobuf")
        self.end_headers()

    def log_message(self, *_: object) -> None:
        pass


async def test_otlp_sends_the_spans_to_the_collectors_traces_route_when_the_run_closes(
    make_agent: MakeAgent, model: str
) -> None:
    server = ThreadingHTTPServer(("127.0.0.1", 0), Collector)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        built = await make_agent(
            model, tracing={"exporter": "otlp", "endpoint": f"http://127.0.0.1:{server.server_port}"}
        )
        await collect(built.agent.send("what is 2+2?"))
        await built.close()  # the batch is sent as the run closes
    finally:
        server.shutdown()
        server.server_close()
    ((path, body),) = Collector.received
    assert path == "/v1/traces"
    sent = ExportTraceServiceRequest.FromString(body)
    names = [span.name for resource in sent.resource_spans for scope in resource.scope_spans for span in scope.spans]
    assert sorted(names) == ["chat offline", "chat offline", "execute_tool calculate", "invoke_agent assistant"]


@pytest.mark.parametrize(
    "offline_server",
    [
        {
            "replies": [{"tool_calls": [{"name": "slow_echo", "arguments": {"text": "a", "seconds": 0}}]}],
            "then": "repeat_last",
        }
    ],
    indirect=True,
)
async def test_a_call_over_the_turns_budget_never_runs_and_still_has_its_span(
    make_agent: MakeAgent, offline_server: BackgroundServer, tmp_path: Path
) -> None:
    built = await make_agent(offline_server.base_url, plugin_dirs=[PLUGINS], max_tool_rounds=1)
    memory = InMemorySpanExporter()
    tracing = start_tracing(built.agent, TracingSettings(), tmp_path, exporter=memory)
    assert isinstance(tracing, Tracing)
    events = await collect(built.agent.send("loop forever"))
    assert isinstance(events[-1], TurnFinished) and events[-1].reason is TurnEndReason.BUDGET
    spans = memory.get_finished_spans()
    turn = one(spans, "invoke_agent assistant")
    calls = [span for span in children(spans, turn) if span.name == "execute_tool slow_echo"]
    assert [attr(span, "tui_agent.status") for span in calls] == ["done", "denied"]
    assert calls[1].start_time == calls[1].end_time  # it never ran
    await tracing.close()


def test_the_otel_flag_chooses_the_exporter_over_the_config(tmp_path: Path) -> None:
    paths.config_file().parent.mkdir(parents=True, exist_ok=True)
    paths.config_file().write_text('[tracing]\nendpoint = "http://collector:4318"\n')
    for argv, exporter, file in [
        ([], None, None),
        (["--otel"], "otlp", None),
        (["--otel", "file"], "file", None),
        ([f"--otel={tmp_path / 't.jsonl'}"], "file", tmp_path / "t.jsonl"),
    ]:
        settings, problems = settings_from_args(build_parser(argv).parse_args(argv))
        assert not problems
        assert (settings.tracing.exporter, settings.tracing.file) == (exporter, file)
        assert settings.tracing.endpoint == "http://collector:4318"  # the rest of [tracing] stays


async def test_with_tracing_off_a_turn_never_imports_opentelemetry(
    make_agent: MakeAgent, model: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A whole turn, a tool call included, imports none of it: this process has (above), so what it imported is
    hidden for the test, and any import of it during the turn would put it back."""
    for name in [name for name in sys.modules if name.split(".")[0] == "opentelemetry" or name in TRACER_MODULES]:
        monkeypatch.delitem(sys.modules, name)
    built = await make_agent(model)
    events = await collect(built.agent.send("what is the weather in Paris?"))
    assert any(isinstance(e, ToolCallUpdated) and e.call.status is ToolStatus.DONE for e in events)
    await built.close()
    loaded = [name for name in sys.modules if name.split(".")[0] == "opentelemetry" or name in TRACER_MODULES]
    assert loaded == []


class Untraced:
    """An agent's two seams, for what `start_tracing` decides before it follows anything."""

    telemetry = Telemetry()

    def subscribe_tree(self, observer: Callable[[NodeEvent], None]) -> Callable[[], None]:
        return lambda: None


def test_tracing_that_cannot_start_says_why_and_the_run_goes_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert start_tracing(Untraced(), TracingSettings(), tmp_path) is None  # off
    blocked = tmp_path / "a file"
    blocked.write_text("")
    said = start_tracing(Untraced(), TracingSettings(exporter="file", file=blocked / "t.jsonl"), tmp_path)
    assert isinstance(said, str) and said.startswith("Tracing could not open its file:")
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *_: None)  # as without the otel extra
    assert start_tracing(Untraced(), TracingSettings(exporter="otlp"), tmp_path) == MISSING


def test_a_requests_cache_tokens_are_on_its_span() -> None:
    """What the prompt cache served and took, as the stream reported it (the offline model reports none)."""
    memory = InMemorySpanExporter()
    provider = tracer_provider(TracingSettings(), memory)
    telemetry = Telemetry()
    telemetry.listen(TaskTracer(provider.get_tracer("test"), "anthropic").follow)
    watch = telemetry.model_call("claude", "assistant", "s1")
    assert watch is not None
    watch.see(Usage(100, 5, cached_tokens=60, cache_write_tokens=30))
    watch.see(Usage(10, 1, cached_tokens=2))
    watch.see(StreamEnd("stop"))
    watch.end()
    (chat,) = memory.get_finished_spans()
    assert (chat.name, chat.parent) == ("chat claude", None)
    assert dict(chat.attributes or {}) == {
        "gen_ai.operation.name": "chat",
        "gen_ai.provider.name": "anthropic",
        "gen_ai.request.model": "claude",
        "gen_ai.agent.name": "assistant",
        "gen_ai.conversation.id": "s1",
        "gen_ai.usage.input_tokens": 110,
        "gen_ai.usage.output_tokens": 6,
        "gen_ai.usage.cache_read.input_tokens": 62,
        "gen_ai.usage.cache_creation.input_tokens": 30,
        "gen_ai.response.finish_reasons": ("stop",),
    }
