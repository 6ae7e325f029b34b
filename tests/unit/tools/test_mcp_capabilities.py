"""The rest of MCP beyond tools, against the real test server (`server.py --capabilities`) in a real process:
progress shown on the call, log messages into the server's log, the working directory as the root, resources
read (and followed from a link), prompts listed and fetched."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from tests.fixtures.mcp_servers.config import stdio
from tests.fixtures.mcp_servers.tiny_png import tiny_png
from tui_agent.config import ToolsSettings
from tui_agent.history.redact import Redactor
from tui_agent.status import ToolStatus
from tui_agent.tool_call import ToolCall
from tui_agent.tools.mcp.servers import McpServers
from tui_agent.tools.registry import ToolRegistry
from tui_agent.tools.runner import ToolRunner


@pytest.fixture
async def servers(tmp_path: Path) -> AsyncIterator[McpServers]:
    started = McpServers(
        {"notes": stdio("--capabilities", approval="never")},
        ToolRegistry(ToolsSettings()),
        tmp_path / "mcp",
        redact=Redactor().text,
    )
    started.start()
    await started.registry.settled()
    yield started
    await started.close()


async def call(servers: McpServers, name: str, **arguments: object) -> tuple[ToolCall, list[ToolCall]]:
    seen: list[ToolCall] = []
    (done,) = await ToolRunner(servers.registry).run([ToolCall("c1", name, arguments=arguments)], seen.append)
    return done, seen


async def test_progress_reaches_the_call_while_it_runs(servers: McpServers) -> None:
    done, seen = await call(servers, "countdown", steps=3)
    assert (done.status, done.outcome) == (ToolStatus.DONE, "counted 3")
    shown = [state.progress for state in seen if state.status == ToolStatus.RUNNING and state.progress]
    assert shown[0] == "1/3 · step 1" and set(shown) <= {"1/3 · step 1", "2/3 · step 2", "3/3 · step 3"}


async def test_log_messages_go_to_the_servers_log_not_the_terminal(
    servers: McpServers, tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    done, _ = await call(servers, "note", text="the plan")
    assert done.outcome == "noted"
    log = (tmp_path / "mcp" / "notes.log").read_text()
    assert "tui-agent: server log [info] noting the plan" in log
    assert 'tui-agent: server log [warning] {"careful": "the plan"}' in log
    assert "noting" not in capfd.readouterr().err


async def test_the_working_directory_is_the_root(servers: McpServers) -> None:
    done, _ = await call(servers, "roots")
    assert done.outcome == Path.cwd().as_uri()
