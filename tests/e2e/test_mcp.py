"""MCP servers with the real `tui-agent`: the app in a pseudo-terminal whose raw bytes are read (a chatty
server's stderr never reaches it), `tui-agent plugins` (table and JSON) and `-p` with broken servers."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.e2e.pty_terminal import Terminal
from tests.fixtures.mcp_servers.config import toml_entry
from tui_agent.offline.server import BackgroundServer

pytestmark = pytest.mark.e2e
ECHO_THEN_ANSWER = {
    "replies": [
        {"text": "", "tool_calls": [{"name": "echo", "arguments": {"text": "ping"}}]},
        {"text": "MCP answer received"},
    ]
}


def write_config(home: Path, text: str) -> None:
    path = home / "config" / "config.toml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def environment(home: Path) -> dict[str, str]:
    return {**os.environ, "TUI_AGENT_HOME": str(home), "TERM": "xterm-256color", "OPENAI_API_KEY": "k"}


def test_a_chatty_servers_stderr_never_reaches_the_terminal(isolated_home: Path) -> None:
    write_config(isolated_home, toml_entry("chatty", "--chatty", extra='approval = "never"'))
    with BackgroundServer(ECHO_THEN_ANSWER) as server:
        terminal = Terminal(
            [sys.executable, "-m", "tui_agent", "--base-url", server.base_url, "--model", "m"],
            environment(isolated_home),
        )
        try:
            terminal.read_until(b"Ask anything")
            os.write(terminal.leader, b"say ping\r")
            terminal.read_until(b"MCP answer received")
            terminal.read_until(b"echo: ping")  # the tool's result, in its panel
            os.write(terminal.leader, b"\x11")  # Ctrl+Q
            assert terminal.wait_for_exit() == 0
        finally:
            terminal.close()
    assert b"CHATTY-STDERR" not in terminal.output
    log = (isolated_home / "data" / "mcp" / "chatty.log").read_text()
    assert "CHATTY-STDERR" in log and "call 1" in log  # it did write: to its log


def test_plugins_lists_mcp_tools_and_names_broken_servers(isolated_home: Path) -> None:
    write_config(
        isolated_home,
        toml_entry("demo", "--chatty", extra='enabled_tools = ["add", "echo"]')
        + '[mcp_servers.missing]\ncommand = "no-such-mcp-server"\n'
        + toml_entry("hangs", "--hang", extra="startup_timeout = 1")
        + '[mcp_servers.docs]\nurl = "http://127.0.0.1:9/mcp"\nenabled = false\n',
    )
    command = [sys.executable, "-m", "tui_agent", "plugins"]
    done = subprocess.run(
        [*command, "--json"], capture_output=True, text=True, env=environment(isolated_home), timeout=120
    )
    report = json.loads(done.stdout)
    mcp_tools = {tool["name"]: tool for tool in report["tools"] if tool["source"] == "MCP server demo"}
    assert set(mcp_tools) == {"add", "echo"} and mcp_tools["add"]["approval"] == "ask"
    states = {server["name"]: server["status"] for server in report["mcp_servers"]}
    assert states == {
        "demo": "ready with 2 tools",
        "missing": "failed: the command 'no-such-mcp-server' was not found",
        "hangs": "failed: did not finish starting within 1 s (startup_timeout) (its last stderr line: "
        "'hang-server: waiting forever')",
        "docs": "disabled",
    }
    assert "CHATTY" not in done.stderr + done.stdout
    table = subprocess.run(command, capture_output=True, text=True, env=environment(isolated_home), timeout=120)
    assert "MCP server demo" in table.stdout and "- missing: failed: the command" in table.stdout


def test_print_mode_waits_for_servers_and_names_the_broken_one(isolated_home: Path) -> None:
    write_config(
        isolated_home,
        toml_entry("chatty", "--chatty", extra='approval = "never"')
        + '[mcp_servers.missing]\ncommand = "no-such-mcp-server"\n',
    )
    with BackgroundServer(ECHO_THEN_ANSWER) as server:
        done = subprocess.run(
            [sys.executable, "-m", "tui_agent", "--base-url", server.base_url, "--model", "m", "-p", "say ping"],
            capture_output=True,
            text=True,
            env=environment(isolated_home),
            timeout=120,
        )
    assert done.returncode == 0, done.stderr
    assert "MCP answer received" in done.stdout
    assert "echo" in done.stderr and "done: echo: ping" in done.stderr
    assert "MCP server missing failed: the command 'no-such-mcp-server' was not found" in done.stderr
    assert "CHATTY" not in done.stderr + done.stdout
