"""An MCP server's stderr log keeps no secret: a real server process (tests/fixtures/mcp_servers/server.py) prints
what it was given in `env`, and its log holds `[redacted]` where the values were (history's redaction: known
secrets and token shapes, a private key across lines too); the log and its folder are yours alone."""

from __future__ import annotations

from pathlib import Path

from tests.fixtures.mcp_servers.config import stdio
from tests.unit.tools.helpers import wait_for_text
from tui_agent.config import ToolsSettings
from tui_agent.history.redact import Redactor
from tui_agent.tools.mcp.servers import McpServers
from tui_agent.tools.registry import ToolRegistry

PASSWORD = "hunter2-is-my-password"
GITHUB = "ghp_" + "a1B2" * 9


async def test_what_a_server_prints_of_its_secrets_is_redacted_in_its_log(tmp_path: Path) -> None:
    talker = stdio(
        "--say-env", "SERVICE_TOKEN", "--say-env", "GH", approval="never", env={"SERVICE_TOKEN": PASSWORD, "GH": GITHUB}
    )
    servers = McpServers(
        {"talker": talker}, ToolRegistry(ToolsSettings()), tmp_path / "mcp", redact=Redactor([PASSWORD]).text
    )
    try:
        servers.start()
        await servers.registry.settled()
        assert servers.summary()[0]["state"] == "ready"
    finally:
        await servers.close()
    log = await wait_for_text(tmp_path / "mcp" / "talker.log", "ready\n")
    assert PASSWORD not in log and GITHUB not in log and "BKcwggSjAgEAAoIBAQC7" not in log
    assert "config: SERVICE_TOKEN=[redacted]\nconfig: GH=[redacted]\nloaded key:\n[redacted]\nready\n" in log
    assert (tmp_path / "mcp").stat().st_mode & 0o777 == 0o700
    assert (tmp_path / "mcp" / "talker.log").stat().st_mode & 0o777 == 0o600
