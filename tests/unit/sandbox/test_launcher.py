"""The sandbox for programs started from a command line (`python -m tui_agent.sandbox.run`): a program run
through it is confined like a sandboxed `run_shell`, and an MCP stdio server with `sandbox = true` starts
through it — its tools work, and it cannot write outside its working directory."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.fixtures.mcp_servers.config import stdio
from tui_agent.config import McpServerSettings, ToolsSettings
from tui_agent.history.redact import Redactor
from tui_agent.sandbox import Policy, support
from tui_agent.sandbox.run import wrapped
from tui_agent.status import ToolStatus
from tui_agent.tool_call import ToolCall
from tui_agent.tools.mcp.servers import McpServers
from tui_agent.tools.registry import ToolRegistry
from tui_agent.tools.runner import ToolRunner

pytestmark = pytest.mark.skipif(support().problem is not None, reason=f"no OS sandbox: {support().problem}")


def test_a_program_run_through_the_launcher_is_confined(tmp_path: Path) -> None:
    work, outside = tmp_path / "work", tmp_path / "outside"
    work.mkdir()
    outside.mkdir()
    script = f'echo in > inside && touch "$TMPDIR/t" && echo out > {outside}/x'
    done = subprocess.run(wrapped(["sh", "-c", script], Policy()), cwd=work, capture_output=True, text=True)
    assert done.returncode == 2 and "Permission denied" in done.stderr, done.stderr
    assert (work / "inside").exists() and not (outside / "x").exists()
    missing = subprocess.run(wrapped(["no-such-program"], Policy()), cwd=work, capture_output=True, text=True)
    assert missing.returncode == 126 and "cannot run no-such-program" in missing.stderr


async def test_an_mcp_server_with_sandbox_true_is_confined_and_still_works(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    writes = f"open({str(outside / 'x')!r}, 'w'); print('wrote outside')"
    configured = {
        "good": stdio(approval="never", sandbox=True),
        "writer": McpServerSettings(command=sys.executable, args=["-c", writes], sandbox=True),
    }
    servers = McpServers(configured, ToolRegistry(ToolsSettings()), tmp_path / "mcp", redact=Redactor().text)
    servers.start()
    try:
        await servers.registry.settled()
        states = {server["name"]: server["status"] for server in servers.summary()}
        assert states["good"].startswith("ready"), states
        assert states["writer"].startswith("failed") and "PermissionError" in states["writer"], states
        assert not (outside / "x").exists()
        [echo] = await ToolRunner(servers.registry).run(
            [ToolCall("c1", "echo", arguments={"text": "boxed"})], lambda state: None
        )
        assert (echo.status, echo.outcome) == (ToolStatus.DONE, "echo: boxed")
    finally:
        await servers.close()
