"""MCP servers as a tool source, against real servers (tests/fixtures/mcp_servers/server.py) in real processes:
well-behaved (stdio and streamable HTTP), chatty on stderr, crashing after one call, hanging at start-up,
exiting at once, and a command that does not exist."""

from __future__ import annotations

import asyncio
import socket
import subprocess
import sys
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from pathlib import Path

import pytest

from tests.fixtures.mcp_servers.config import SERVER, stdio
from tests.fixtures.mcp_servers.tiny_png import tiny_png
from tests.unit.tools.helpers import wait_for_text
from tui_agent.config import McpServerSettings, ToolsSettings, resolve_config
from tui_agent.history.redact import Redactor
from tui_agent.status import ToolStatus
from tui_agent.tool_call import ToolCall
from tui_agent.tools import tool
from tui_agent.tools.cli import render
from tui_agent.tools.mcp import servers as servers_module
from tui_agent.tools.mcp.known_tools import KnownTools
from tui_agent.tools.mcp.servers import McpServers
from tui_agent.tools.registry import ToolRegistry
from tui_agent.tools.runner import ToolRunner

Start = Callable[..., Awaitable[McpServers]]


@tool(approval="never")
def add(a: int, b: int) -> int:
    """A Python tool whose name an MCP server also uses."""
    return a + b


@pytest.fixture
async def start(tmp_path: Path) -> AsyncIterator[Start]:
    """`start(registry=None, **servers)`: McpServers started and settled; all closed after the test."""
    started: list[McpServers] = []

    async def make(registry: ToolRegistry | None = None, **configured: McpServerSettings) -> McpServers:
        servers = McpServers(
            configured, registry or ToolRegistry(ToolsSettings()), tmp_path / "mcp", redact=Redactor().text
        )
        started.append(servers)
        servers.start()
        await servers.registry.settled()
        return servers

    yield make
    for servers in started:
        await servers.close()


async def run(registry: ToolRegistry, tool_name: str, /, **arguments: object) -> tuple[ToolStatus, str]:
    (result,) = await ToolRunner(registry).run([ToolCall("c1", tool_name, arguments=arguments)], lambda state: None)
    return result.status, result.outcome


async def test_a_stdio_servers_tools_run_like_python_tools(start: Start) -> None:
    servers = await start(demo=stdio(approval="never"))
    registry = servers.registry
    assert {"add", "echo", "picture", "grow"} <= set(registry.names())
    assert registry.get("add").source == "MCP server demo"  # type: ignore[union-attr]
    assert registry.openai_tools()[0]["function"]["parameters"]["required"] == ["a", "b"]
    assert await run(registry, "add", a=2, b=40) == (ToolStatus.DONE, "42")
    status, text = await run(registry, "picture")
    assert status == ToolStatus.DONE and text == "a red dot\n[image: image/png, 21 bytes]"
    status, text = await run(registry, "fail", reason="x")
    assert status == ToolStatus.FAILED and "fail" in text  # isError: a failed call
    assert servers.summary()[0]["status"] == "ready with 8 tools"


async def test_an_image_or_audio_a_server_returns_is_kept_with_the_call_and_annotations_said(start: Start) -> None:
    servers = await start(demo=stdio("--images", approval="never"))
    (call,) = await ToolRunner(servers.registry).run([ToolCall("c1", "screenshot")], lambda state: None)
    assert call.status == ToolStatus.DONE and call.result == f"the screen\n[image: image/png, {len(tiny_png())} bytes]"
    (ref,) = call.attachments
    assert (ref.kind, ref.mime, ref.size) == ("image", "image/png", len(tiny_png()))
    assert call.attachment_data == {ref.hash: tiny_png()}
    (audio,) = await ToolRunner(servers.registry).run([ToolCall("c2", "recording")], lambda state: None)
    wave = b"RIFF\x24\x00\x00\x00WAVEfmt "
    assert audio.status == ToolStatus.DONE and audio.result == (
        "recorded 1 s (for the user; priority 0.9)\n"
        "[resource: full <notes://full.wav>] (modified 2026-01-02T03:04:05Z)\n"
        f"[file: audio/wav, {len(wave)} bytes]"
    )
    (chip,) = audio.attachments  # the audio: a chip with its type and size
    assert (chip.kind, chip.name, chip.mime, chip.size) == ("file", "audio-1.wav", "audio/wav", len(wave))
    assert chip.label == "[file audio-1.wav 16 B]" and audio.attachment_data == {chip.hash: wave}


async def test_approval_defaults_to_ask_and_tools_settings_win(start: Start) -> None:
    registry = ToolRegistry(ToolsSettings(approval={"echo": "never"}))
    await start(registry, demo=stdio())
    assert registry.approval_for("add") == "ask" and registry.approval_for("echo") == "never"
    status, text = await run(registry, "add", a=1, b=1)  # nobody to ask: denied, not run
    assert status == ToolStatus.DENIED


async def test_enabled_and_disabled_tools_filter_what_is_offered(start: Start) -> None:
    servers = await start(demo=stdio(enabled_tools=["add", "echo"], disabled_tools=["echo"]))
    assert [name for name in servers.registry.names()] == ["add"]
    assert servers.summary()[0]["status"] == "ready with 1 tool"


async def test_a_name_clash_keeps_both_tools_and_is_reported(start: Start) -> None:
    registry = ToolRegistry.from_functions([add])
    servers = await start(registry, demo=stdio(approval="never"))
    notices: list[str] = []
    servers.watch(notices.append)
    assert registry.get("add").source == "<code>"  # type: ignore[union-attr]  # the shipped tool stays
    assert await run(registry, "demo__add", a=1, b=2) == (ToolStatus.DONE, "3")
    assert notices == ["MCP server demo: 1 tool name(s) already taken; offered as demo__add (see `tui-agent plugins`)."]
    assert "offered as 'demo__add'" in str(registry.problems[-1])  # listed by `tui-agent plugins`


async def test_stdio_server_gets_no_secrets_but_its_own_env(start: Start, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-secret-value")
    monkeypatch.setenv("GITHUB_TOKEN", "ghp_secret")
    registry = (await start(demo=stdio(approval="never", env={"GITHUB_TOKEN": "given"}))).registry
    assert await run(registry, "env_var", name="OPENAI_API_KEY") == (ToolStatus.DONE, "<unset>")
    assert await run(registry, "env_var", name="GITHUB_TOKEN") == (ToolStatus.DONE, "given")


async def test_stderr_goes_to_the_log_file(start: Start, tmp_path: Path, capfd: pytest.CaptureFixture[str]) -> None:
    registry = (await start(chatty=stdio("--chatty", approval="never"))).registry
    assert await run(registry, "echo", text="hi") == (ToolStatus.DONE, "echo: hi")
    # the log's reader thread writes the server's stderr a moment after the reply may have come
    log = await wait_for_text(tmp_path / "mcp" / "chatty.log", "CHATTY-STDERR\x1b[0m call 1")
    assert "starting chatty" in log
    out, err = capfd.readouterr()
    assert "CHATTY" not in out + err


async def test_broken_servers_are_named_and_harmless(start: Start, tmp_path: Path) -> None:
    exits = McpServerSettings(
        command=sys.executable, args=["-c", "import sys; print('fatal: no config file', file=sys.stderr); sys.exit(2)"]
    )
    servers = await start(
        good=stdio(approval="never"),
        missing=McpServerSettings(command="no-such-mcp-server"),
        hangs=stdio("--hang", startup_timeout=1.5),
        exits=exits,
        off=McpServerSettings(url="http://127.0.0.1:9/mcp", enabled=False),
    )
    notices: list[str] = []
    servers.watch(notices.append)
    states = {server["name"]: server["status"] for server in servers.summary()}
    assert states["good"] == "ready with 8 tools"
    assert states["missing"] == "failed: the command 'no-such-mcp-server' was not found"
    assert states["hangs"] == (
        "failed: did not finish starting within 1.5 s (startup_timeout) "
        "(its last stderr line: 'hang-server: waiting forever')"
    )
    assert states["exits"] == "failed: exited during start-up (its last stderr line: 'fatal: no config file')"
    assert states["off"] == "disabled"
    assert len(notices) == 3 and all("Its log:" in notice for notice in notices)
    for name in ("missing", "hangs", "exits"):  # the log the notice points at says why, in the notice's words
        assert f"tui-agent: {states[name]}\n" in (tmp_path / "mcp" / f"{name}.log").read_text(), name
    assert await run(servers.registry, "echo", text="still") == (ToolStatus.DONE, "echo: still")


async def test_a_crashed_server_restarts_on_its_next_call_once(start: Start) -> None:
    servers = await start(crashy=stdio("--crash-after", "1", approval="never"))
    registry = servers.registry
    assert await run(registry, "echo", text="1") == (ToolStatus.DONE, "echo: 1")
    status, text = await run(registry, "echo", text="2")  # the server exits during this call
    assert status == ToolStatus.FAILED and "stopped during the call" in text and "giving up at call 2" in text
    assert "restarted on the next call" in text
    assert await run(registry, "echo", text="3") == (ToolStatus.DONE, "echo: 3")  # restarted
    status, text = await run(registry, "echo", text="4")  # crashes again: not restarted twice
    assert status == ToolStatus.FAILED and "not restarted again" in text
    assert servers.summary()[0]["state"] == "failed" and "echo" not in registry.names()


async def test_a_server_that_dies_while_idle_is_reported_and_restarted_by_the_next_call(start: Start) -> None:
    servers = await start(demo=stdio(approval="never"))
    notices: list[str] = []
    servers.watch(notices.append)
    assert await run(servers.registry, "exit_soon") == (ToolStatus.DONE, "bye")
    for _ in range(500):  # the owner task notices the exit on its own
        if servers.servers["demo"].state == "crashed":
            break
        await asyncio.sleep(0.02)
    assert "exit-soon: leaving now" in servers.summary()[0]["status"] and "crashed" in notices[-1]
    assert await run(servers.registry, "echo", text="back") == (ToolStatus.DONE, "echo: back")


async def test_tools_list_changed_updates_the_registry(start: Start) -> None:
    registry = (await start(demo=stdio(approval="never"))).registry
    assert "grown" not in registry.names()
    assert await run(registry, "grow") == (ToolStatus.DONE, "grew")
    for _ in range(200):
        if "grown" in registry.names():
            break
        await asyncio.sleep(0.02)
    assert await run(registry, "grown") == (ToolStatus.DONE, "grown")


@pytest.fixture
def http_server() -> Iterator[str]:
    """The server on a socket this process bound and passed on: a port picked by number could be taken by
    another xdist worker's server before the child binds it."""
    with socket.create_server(("127.0.0.1", 0)) as listening:
        port = listening.getsockname()[1]
        fd = str(listening.fileno())
        process = subprocess.Popen(
            [sys.executable, str(SERVER), "--http-fd", fd],
            pass_fds=[listening.fileno()],
            stderr=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
        )
    try:
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        process.terminate()
        process.wait(10)


async def test_a_streamable_http_server(start: Start, http_server: str) -> None:
    for _ in range(100):  # the server process takes a moment to listen
        servers = await start(web=McpServerSettings(url=http_server, approval="never", headers={"X-Team": "core"}))
        if servers.summary()[0]["state"] == "ready":
            break
        await servers.close()
        await asyncio.sleep(0.1)
    assert await run(servers.registry, "add", a=20, b=22) == (ToolStatus.DONE, "42")


async def test_missing_bearer_token_is_named(start: Start) -> None:
    servers = await start(web=McpServerSettings(url="http://127.0.0.1:9/mcp", bearer_token_env_var="NO_SUCH_TOKEN"))
    assert "NO_SUCH_TOKEN" in servers.summary()[0]["status"]


def test_a_bad_server_entry_costs_that_server_only(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text(
        'theme = "paper"\n[mcp_servers.good]\ncommand = "uvx"\n'
        '[mcp_servers.bad]\ncommand = "x"\nstartup_timeout = "soon"\n'
        '[mcp_servers.both]\ncommand = "x"\nurl = "http://a"\n'
    )
    resolved = resolve_config({}, path, {})
    assert list(resolved.settings.mcp_servers) == ["good"] and resolved.settings.theme == "paper"
    assert "mcp_servers.bad.startup_timeout (line 6)" in resolved.problems[0]
    assert resolved.problems[0].endswith("the MCP server bad is not started until it is fixed")
    assert "mcp_servers.both (line 7)" in resolved.problems[1] and "either command" in resolved.problems[1]


async def test_tools_over_the_schema_budget_are_reported_once_naming_the_largest(start: Start) -> None:
    servers = await start(
        ToolRegistry(ToolsSettings(schema_budget=500)), big=stdio(), small=stdio(enabled_tools=["echo"])
    )
    notices: list[str] = []
    servers.watch(notices.append)
    (notice,) = [notice for notice in notices if "characters of schema" in notice]
    assert "budget 500" in notice and "largest: MCP server big" in notice and "enabled_tools" in notice


async def test_an_sdk_that_cannot_be_loaded_fails_the_servers_not_the_turn(
    start: Start, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(servers_module, "SDK_MODULE", "tui_agent.no_such_sdk")
    servers = await start(demo=stdio())  # settled: no exception reaches the turn
    assert servers.summary()[0]["status"].startswith("failed: the MCP SDK cannot be loaded (ModuleNotFoundError")


async def test_arguments_the_server_refuses_are_a_failed_call_with_its_reason(start: Start) -> None:
    registry = (await start(demo=stdio(approval="never"))).registry
    status, text = await run(registry, "add", a="many", b=1)
    assert status == ToolStatus.FAILED and "add failed" in text and "valid integer" in text


async def test_tools_that_need_task_support_are_left_out_and_said(start: Start) -> None:
    servers = await start(demo=stdio("--task-tools", approval="never"))
    notices: list[str] = []
    servers.watch(notices.append)
    names = servers.registry.names()
    assert "echo" in names and "long_job" not in names and "batch_job" not in names
    assert servers.summary()[0]["status"] == (
        "ready with 8 tools; 2 tools need task support, which tui-agent does not offer yet"
    )
    assert servers.summary()[0]["tools"] == 8 and servers.summary()[0]["needs_tasks"] == ["long_job", "batch_job"]
    shown = render({"tools": [], "hooks": [], "problems": [], "notices": [], "mcp_servers": servers.summary()})
    assert "- demo: ready with 8 tools; 2 tools need task support, which tui-agent does not offer yet " in shown
    assert shown.endswith("(left out: long_job, batch_job)")  # `tui-agent plugins` names them
    assert "MCP server demo: 2 tools need task support, which tui-agent does not offer yet; " in notices[0]
    assert notices[0].endswith("left out: long_job, batch_job.")
    assert all("long_job" not in tool["function"]["name"] for tool in servers.registry.openai_tools())


async def test_bytes_on_stdout_that_are_not_utf8_json_rpc_are_named_and_kept_in_the_log(
    start: Start, tmp_path: Path
) -> None:
    garbage = McpServerSettings(  # a program that is no MCP server: a binary banner, then silence
        command=sys.executable,
        args=["-c", "import os, time; os.write(1, b'\\xff\\xfe\\x1b[2J\\x00ELF garbage \\xe9\\n'); time.sleep(60)"],
        startup_timeout=2,
    )
    servers = await start(garbage=garbage, banner=stdio("--bad-stdout", approval="never"))
    notices: list[str] = []
    servers.watch(notices.append)
    states = {server["name"]: server["status"] for server in servers.summary()}
    said = "wrote bytes that are not UTF-8 JSON-RPC on stdout: '\ufffd\ufffdELF garbage \ufffd'"
    assert states["garbage"] == f"failed: did not finish starting within 2 s (startup_timeout); it {said}"
    assert f"tui-agent: {said}" in (tmp_path / "mcp" / "garbage.log").read_text()
    # A server whose banner is not UTF-8 but that speaks JSON-RPC after it starts, and is told about.
    assert states["banner"] == "ready with 8 tools"
    banner = "wrote bytes that are not UTF-8 JSON-RPC on stdout: 'Caf\ufffd server ready \ufffd\ufffd'"
    assert f"MCP server banner {banner} (skipped)." in notices
    assert f"tui-agent: {banner}" in (tmp_path / "mcp" / "banner.log").read_text()
    assert await run(servers.registry, "echo", text="fine") == (ToolStatus.DONE, "echo: fine")


async def test_a_100_kb_tool_description_is_cut_and_said(start: Start) -> None:
    servers = await start(demo=stdio("--long-description", approval="never"))
    notices: list[str] = []
    servers.watch(notices.append)
    (manual,) = [tool["function"] for tool in servers.registry.openai_tools() if tool["function"]["name"] == "manual"]
    assert len(manual["description"]) <= 4096 and manual["description"].startswith("Read the whole manual.")
    assert manual["description"].endswith("[description cut: 100,023 characters]")
    assert (
        "MCP server demo: the description of manual is longer than 4,096 characters; the model is sent the start of "
        "it (tools.description_cap)." in notices
    )


async def test_a_turn_waits_only_for_the_starting_servers_its_prompt_names(tmp_path: Path) -> None:
    """Issue 28: the first reply waited for every server still starting (14x with 5 servers). Now a prompt is sent
    with the tools that are ready, and waits for a starting server only when it names it or a tool it offered when
    last ready (remembered across runs), or when it was never seen ready (nothing says what it offers)."""
    registry = ToolRegistry(ToolsSettings())
    KnownTools(tmp_path / "mcp").remember("slowpoke", ["ponder"])  # seen ready in an earlier run
    servers = McpServers(
        {"good": stdio(approval="never"), "slowpoke": stdio("--hang", startup_timeout=600)},
        registry,
        tmp_path / "mcp",
        redact=Redactor().text,
    )
    servers.start()
    try:
        await registry.settled_for("say hi")  # good never seen ready: waited for; slowpoke not named: not
        assert "echo" in registry.names() and servers.still_starting() == ["slowpoke"]
        assert "echo" in (KnownTools(tmp_path / "mcp").of("good") or [])  # remembered for the next run
        await registry.settled_for("say hi again")
        assert servers.still_starting() == ["slowpoke"]
        waiting = asyncio.create_task(registry.settled_for("Ponder this"))  # names its tool: waits for it
        await asyncio.sleep(0.2)
        assert not waiting.done()
        waiting.cancel()  # Esc: the wait ends with the turn
    finally:
        await servers.close()
