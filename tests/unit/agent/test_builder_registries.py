"""The builder's two registries: a tool source or a model provider registered there is what the app and `-p`
(`build_agent`), `plugins` and `doctor` (`ToolSet`) use — real agents on the offline model over HTTP, a real
SQLite file, the shipped plugins."""

from __future__ import annotations

from collections.abc import Mapping
from contextlib import AbstractContextManager, AsyncExitStack
from pathlib import Path
from typing import Any

import pytest

from tests.unit.agent.conftest import MakeAgent
from tui_agent.agent.endpoint import EndpointChoice
from tui_agent.agent.providers import PROVIDERS, EndpointProbe, OfflineProvider, provider_for
from tui_agent.agent.tool_set import TOOL_SOURCES, ToolSet
from tui_agent.config import Settings
from tui_agent.llm.model_client import ModelClient
from tui_agent.offline.server import BackgroundServer
from tui_agent.tools.registry import ToolRegistry
from tui_agent.tools.schema_tool import SchemaToolSpec, schema_tool
from tui_agent.tools.source import Finding, Listener, Redact


class EchoSource:
    """A tool source offering one tool described by a JSON schema; it records what the builder asked of it."""

    name = "echo"

    def __init__(self, fail_start: bool = False) -> None:
        self.fail_start = fail_start
        self.listeners: list[Listener] = []
        self.closed = False

    @classmethod
    def from_settings(cls, settings: Settings, redact: Redact) -> EchoSource:
        return cls()

    async def start(self, registry: ToolRegistry) -> None:
        if self.fail_start:
            raise RuntimeError("echo would not start")

        async def echo(text: str) -> str:
            return f"echo: {text}"

        schema = {"properties": {"text": {"type": "string"}}, "required": ["text"]}
        registry.add(schema_tool("echo", "Say it back.", schema, echo, source="echo source", plugin="echo"))

    async def settled(self) -> None:
        return None

    async def close(self) -> None:
        self.closed = True

    def watch(self, listener: Listener) -> None:
        self.listeners.append(listener)

    def notices(self) -> list[str]:
        return ["echo is ready"]

    def summary(self) -> Mapping[str, list[dict[str, Any]]]:
        return {"echoes": [{"name": "echo"}]}

    def findings(self) -> list[Finding]:
        return [Finding("ok", "echo", "1 tool")]


@pytest.fixture
def echo(monkeypatch: pytest.MonkeyPatch) -> EchoSource:
    """An `EchoSource` registered as one more tool source."""
    source = EchoSource()
    monkeypatch.setitem(TOOL_SOURCES, "echo", lambda settings, redact: source)
    return source


async def test_a_registered_tool_source_serves_the_agent_and_speaks_through_it(
    make_agent: MakeAgent, echo: EchoSource
) -> None:
    built = await make_agent()
    spec = built.agent.registry.get("echo")
    assert isinstance(spec, SchemaToolSpec) and await spec.func(text="hi") == "echo: hi"
    assert any(tool["function"]["name"] == "echo" for tool in built.agent.registry.openai_tools())
    assert "echo is ready" in built.notices
    heard: list[str] = []
    built.agent.watch_notices(heard.append)
    echo.listeners[0]("echo lost its voice")
    assert heard == ["echo lost its voice"]
    await built.close()
    assert echo.closed


async def test_the_tool_set_reports_every_source_and_starts_only_those_named(tmp_path: Path, echo: EchoSource) -> None:
    settings = Settings(db=tmp_path / "history.db")
    tools = await ToolSet.start(settings, lambda text: text)
    try:
        await tools.settled()
        names = [source.name for source in tools.sources]
        assert names[:2] == ["plugins", "mcp"] and names[-1] == "echo"  # in the registry's order
        assert tools.summary()["echoes"] == [{"name": "echo"}]  # beside the other sources' rows (the skills')
        findings = tools.findings()
        assert findings[0].what == "plugins" and findings[-1] == Finding("ok", "echo", "1 tool")
    finally:
        await tools.close()
    only = await ToolSet.start(settings, lambda text: text, only={"echo"})
    await only.close()
    assert [source.name for source in only.sources] == ["echo"] and only.registry.names() == ["echo"]


async def test_a_source_that_fails_to_start_closes_those_started(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, echo: EchoSource
) -> None:
    monkeypatch.setitem(TOOL_SOURCES, "broken", lambda settings, redact: EchoSource(fail_start=True))
    with pytest.raises(RuntimeError, match="would not start"):
        await ToolSet.start(Settings(db=tmp_path / "history.db"), lambda text: text)
    assert echo.closed


class Recording:
    """A provider that makes the OpenAI-protocol client, noting each endpoint it was asked for."""

    name = "recording"

    def __init__(self) -> None:
        self.asked: list[EndpointChoice] = []
        self.real = PROVIDERS["openai"]

    async def open(self, choice: EndpointChoice, resources: AsyncExitStack) -> tuple[EndpointChoice, list[str]]:
        return choice, ["recording opened"]

    def client(self, endpoint: EndpointChoice, settings: Settings, max_tokens: int | None) -> ModelClient:
        self.asked.append(endpoint)
        return self.real.client(endpoint, settings, max_tokens)

    def probe(self, choice: EndpointChoice, settings: Settings) -> AbstractContextManager[EndpointProbe]:
        return self.real.probe(choice, settings)


async def test_the_builder_makes_the_client_with_the_runs_provider(
    make_agent: MakeAgent, offline_server: BackgroundServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    recording = Recording()
    monkeypatch.setitem(PROVIDERS, "openai", recording)
    built = await make_agent(offline_server.base_url, model="m")
    assert [endpoint.base_url for endpoint in recording.asked] == [offline_server.base_url]
    assert built.agent.client.model == "m" and "recording opened" in built.notices


async def test_with_no_endpoint_the_offline_model_is_reached_by_the_runs_provider(
    make_agent: MakeAgent, monkeypatch: pytest.MonkeyPatch
) -> None:
    recording = Recording()
    monkeypatch.setitem(PROVIDERS, "openai", recording)
    built = await make_agent()
    assert [endpoint.base_url or "" for endpoint in recording.asked][0].startswith("http://127.0.0.1:")
    assert any("offline model" in notice for notice in built.notices) and "recording opened" not in built.notices


def test_no_endpoint_is_the_offline_model_which_doctor_checks_on_its_own_server() -> None:
    offline = EndpointChoice(None, "offline")
    assert isinstance(provider_for(offline, Settings()), OfflineProvider)
    assert provider_for(EndpointChoice("http://127.0.0.1:9/v1", "m", "key"), Settings()) is PROVIDERS["openai"]
    with provider_for(offline, Settings()).probe(offline, Settings()) as probe:
        assert probe.base_url.startswith("http://127.0.0.1:") and probe.protocol == "openai"
        assert "offline model" in probe.label
