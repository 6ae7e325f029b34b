"""MCP prompts as `/server:prompt` commands, against the real test server (`server.py --capabilities`): listed with
their arguments, filled in by position (the last takes the rest), a missing required one said, and a file's command
of the same name first."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from tests.fixtures.mcp_servers.config import stdio
from tui_agent.agent.slash_commands import SlashCommands, UnknownCommandError
from tui_agent.commands.command_files import CommandFile, CommandFiles
from tui_agent.config import ToolsSettings
from tui_agent.errors import UserError
from tui_agent.history.redact import Redactor
from tui_agent.tools.mcp.servers import McpServers
from tui_agent.tools.registry import ToolRegistry


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


async def test_mcp_prompts_are_commands_filled_in_by_position(servers: McpServers, tmp_path: Path) -> None:
    commands = SlashCommands(CommandFiles(), servers)

    (listed,) = commands.listed()
    assert (listed.name, listed.source, listed.hint) == ("notes:review", "mcp", "<code> [focus]")
    assert listed.description == "Review code for a kind of problem" and listed.takes_arguments
    expanded = await commands.expand("notes:review", '"x = 1" style and naming')
    assert expanded.text == "Review this code for style and naming:\nx = 1"
    with pytest.raises(UserError, match="needs code"):
        await commands.expand("notes:review", "")
    with pytest.raises(UnknownCommandError):
        await commands.expand("notes:nope", "")

    mine = CommandFile("notes:review", tmp_path / "review.md", "project", "My review of $1.", "mine")
    shadowed = SlashCommands(CommandFiles((mine,)), servers)
    assert [command.where for command in shadowed.listed()] == [str(tmp_path / "review.md")]
    assert (await shadowed.expand("notes:review", "x")).text == "My review of x."
