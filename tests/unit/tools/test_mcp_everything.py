"""The rest of MCP against `@modelcontextprotocol/server-everything` (the reference server, a real node process),
where it is installed: its sampling tool is offered (we declare sampling) and answered by the model over HTTP
once approved, its annotations are said, its resource templates are attached from a filled URI, and its tool that
needs task support is left out. Found as `mcp-server-everything` on PATH or at $MCP_SERVER_EVERYTHING; skipped
with the reason otherwise (`npm install -g @modelcontextprotocol/server-everything`)."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from tui_agent.agent.mcp_sampling import ModelSampler
from tui_agent.config import McpServerSettings, ToolsSettings
from tui_agent.history.redact import Redactor
from tui_agent.llm.client import ChatClient
from tui_agent.offline.server import BackgroundServer
from tui_agent.prices import TokenCounts
from tui_agent.tools.mcp.resource_picks import filled_uri
from tui_agent.tools.mcp.sampling import SamplingRequest, Verdict
from tui_agent.tools.mcp.servers import McpServers
from tui_agent.tools.registry import ToolRegistry

EVERYTHING = os.environ.get("MCP_SERVER_EVERYTHING") or shutil.which("mcp-server-everything")


class Counted:
    def __init__(self, client: ChatClient) -> None:
        self.client, self.model, self.counted = client, "offline", list[TokenCounts]()

    def count_aside(self, usage: TokenCounts) -> None:
        self.counted.append(usage)


@pytest.mark.skipif(
    EVERYTHING is None or shutil.which("node") is None,
    reason="server-everything is not installed (npm install -g @modelcontextprotocol/server-everything, "
    "or set MCP_SERVER_EVERYTHING to its mcp-server-everything)",
)
@pytest.mark.parametrize("offline_server", [{"replies": [{"text": "Hello from the model."}]}], indirect=True)
async def test_server_everything_samples_annotates_and_attaches(
    tmp_path: Path, offline_server: BackgroundServer
) -> None:
    assert EVERYTHING is not None
    servers = McpServers(
        {"everything": McpServerSettings(command=EVERYTHING, args=["stdio"], approval="never")},
        ToolRegistry(ToolsSettings()),
        tmp_path / "mcp",
        redact=Redactor().text,
    )
    servers.start()
    try:
        await servers.registry.settled()
        server = servers.servers["everything"]
        assert "trigger-sampling-request" in server.offered()  # offered only to a client that declares sampling
        assert "simulate-research-query" in server.needing_tasks()
        assert "simulate-research-query" not in servers.registry.names()
        agent = Counted(ChatClient(offline_server.base_url, "offline", api_key="test"))
        servers.sampling.answerer = ModelSampler(agent)
        asked: list[SamplingRequest] = []

        async def once(request: SamplingRequest) -> Verdict:
            asked.append(request)
            return "once"

        servers.sampling.approver = once
        sampled = await server.call("trigger-sampling-request", prompt="say hello", maxTokens=20)
        assert isinstance(sampled, str) and "Hello from the model." in sampled
        (request,) = asked
        assert request.max_tokens == 20 and "say hello" in request.messages[0].text and agent.counted
        annotated = await server.call("get-annotated-message", messageType="error")
        assert "(for the user and the assistant; priority 1)" in str(annotated)
        template = next(pick for pick in servers.resource_picks() if pick.is_template and "text" in pick.uri)
        uri = filled_uri(template.uri, {name: "7" for name in template.parameters})
        (attached,) = await servers.resource_attachments("everything", uri, 10_000)
        assert attached.kind == "file" and attached.name == uri and attached.text
    finally:
        await servers.close()
