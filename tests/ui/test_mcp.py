"""MCP tools on the real stack (offline model over HTTP, real agent, real SQLite, real MCP server processes):
their panel and approval like a Python tool's, the MCP screen (states, restart, log, on/off), Esc; a server's
question (a form), its sampling request (a dialog) and its resources in the @-picker."""

from __future__ import annotations

import sys
import time
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot
from textual.widgets import Input, OptionList

from tests.fixtures.mcp_servers.config import stdio
from tests.fixtures.mcp_servers.tiny_png import tiny_png
from tests.ui.helpers import WAIT_LIMIT, Built, app_on_real_agent, chat, chat_idle, showing
from tui_agent.agent.endpoint import EndpointChoice
from tui_agent.config import McpServerSettings, Settings
from tui_agent.history.store import HistoryStore
from tui_agent.offline.server import BackgroundServer
from tui_agent.status import ToolStatus
from tui_agent.ui.app import TuiAgentApp
from tui_agent.ui.screens.approval import ApprovalScreen
from tui_agent.ui.screens.elicitation import ElicitationScreen
from tui_agent.ui.screens.mcp import McpScreen
from tui_agent.ui.screens.sampling import SamplingScreen
from tui_agent.ui.widgets.file_picker import RESOURCE_ID, FilePicker

MakeApp = Callable[..., tuple[TuiAgentApp, Built]]


def calling(name: str, answer: str = "All done.", **arguments: Any) -> dict[str, Any]:
    return {"replies": [{"text": "", "tool_calls": [{"name": name, "arguments": arguments}]}, {"text": answer}]}


@pytest.fixture
async def mcp_app(tmp_path: Path) -> AsyncIterator[MakeApp]:
    servers: list[BackgroundServer] = []

    def make(scenario: dict[str, Any], **mcp_servers: McpServerSettings) -> tuple[TuiAgentApp, Built]:
        server = BackgroundServer(scenario)
        server.start()
        servers.append(server)
        settings = Settings(db=tmp_path / "history.db", mcp_servers=mcp_servers)
        choice = EndpointChoice(server.base_url, "scripted", "test-key")
        return app_on_real_agent(settings, choice)

    yield make
    for server in servers:
        server.stop()


async def until(pilot: Pilot[None], condition: Callable[[], bool], what: str) -> None:
    """Like `wait_until`, with room for real server processes to start (the SDK import alone takes a second)."""
    deadline = time.monotonic() + WAIT_LIMIT
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"never reached: {what}")
        await pilot.pause(0.02)


async def type_prompt(pilot: Pilot[None], prompt: str) -> None:
    chat(pilot).prompt_input.insert(prompt)
    await pilot.press("enter")


async def stored_calls(path: Path) -> list[Any]:
    store = await HistoryStore.open(path)
    try:
        (session,) = await store.list_recent()
        return [call for message in await store.load_tail(session.id, 100) for call in message.tool_calls]
    finally:
        await store.close()


async def test_an_mcp_tool_asks_then_runs_in_its_panel_and_is_saved(mcp_app: MakeApp, tmp_path: Path) -> None:
    app, _ = mcp_app(calling("echo", text="hi"), demo=stdio("--chatty"))
    async with app.run_test(size=(140, 40)) as pilot:
        await type_prompt(pilot, "echo hi")  # sent at once: the turn waits for the server to be ready
        await until(pilot, lambda: showing(app, ApprovalScreen), "approval modal")  # default: ask
        await pilot.press("a")
        await until(pilot, lambda: chat_idle(pilot), "turn finished")
        (panel,) = chat(pilot).tool_panels.panels
        assert panel.call.name == "echo" and panel.status is ToolStatus.DONE and panel.call.result == "echo: hi"
        assert chat(pilot).chat_log.assistant_messages[-1].shown_text().strip() == "All done."
    (call,) = await stored_calls(tmp_path / "history.db")
    assert call.name == "echo" and call.status is ToolStatus.DONE and call.result == "echo: hi"


async def test_escape_cancels_a_running_mcp_call(mcp_app: MakeApp) -> None:
    app, _ = mcp_app(calling("sleep", seconds=60), demo=stdio(approval="never"))
    async with app.run_test(size=(140, 40)) as pilot:
        await type_prompt(pilot, "sleep")
        await until(
            pilot,
            lambda: any(panel.status is ToolStatus.RUNNING for panel in chat(pilot).tool_panels.panels),
            "the call running",
        )
        await pilot.press("escape")
        await until(pilot, lambda: chat_idle(pilot), "turn cancelled")
        (panel,) = chat(pilot).tool_panels.panels
        assert panel.status is ToolStatus.INTERRUPTED


async def test_the_mcp_screen_lists_restarts_toggles_and_shows_the_log(mcp_app: MakeApp) -> None:
    app, backend = mcp_app(
        calling("echo", text="x"),
        demo=stdio("--chatty", "--task-tools", approval="never"),
        missing=McpServerSettings(command="no-such-mcp-server"),
        later=McpServerSettings(url="http://127.0.0.1:9/mcp", enabled=False),
    )
    async with app.run_test(size=(140, 40)) as pilot:
        await until(
            pilot,
            lambda: backend.mcp_servers is not None and backend.mcp_servers.servers["demo"].state == "ready",
            "demo ready",
        )
        app.action_mcp_servers()
        await until(pilot, lambda: showing(app, McpScreen), "the MCP screen")
        screen = app.screen
        assert isinstance(screen, McpScreen)
        await until(pilot, lambda: bool(screen.query(OptionList)), "the list mounted")
        rows: Callable[[], list[str]] = lambda: [str(option.prompt) for option in screen.query_one(OptionList).options]  # noqa: E731
        await until(pilot, lambda: "ready with 8 tools" in rows()[0], "demo's state")
        assert "2 tools need task support, which tui-agent does not offer yet" in rows()[0]
        assert "failed: the command 'no-such-mcp-server' was not found" in rows()[1] and "disabled" in rows()[2]
        assert [row[0] for row in rows()] == ["✔", "✘", "○"]
        detail: Callable[[], str] = lambda: str(screen.query_one("#mcp-detail-text").render())  # noqa: E731
        await until(pilot, lambda: "Tools (8)" in detail(), "demo's tools listed")
        assert detail().startswith(f"demo · stdio: {sys.executable}")  # the command line (cut to the width)
        lines = detail().splitlines()
        assert any(line.split() == ["echo", "Repeat", "the", "text."] for line in lines), lines
        assert any(line.split()[:4] == ["add", "Add", "two", "integers."] for line in lines), lines
        assert "and 2 not offered" in detail() and "Prompts (" not in detail()  # it offers none
        await pilot.press("down")  # the failed one: why, in full, and no tools
        await until(pilot, lambda: "no-such-mcp-server" in detail(), "missing's detail")
        assert "failed: the command 'no-such-mcp-server' was not found" in " ".join(detail().split())
        assert "No tools while it is not running." in detail()
        await pilot.press("up")
        await until(pilot, lambda: "Tools (8)" in detail(), "demo's detail again")
        await pilot.press("l")  # demo's log: its stderr, escapes removed
        await until(pilot, lambda: screen.showing_log, "the log shown")
        log = str(screen.query_one("#mcp-log-text").render())
        assert "CHATTY-STDERR starting" in log and "\x1b" not in log
        assert screen.showing_log and screen.query_one("#mcp-log").styles.display == "block"
        await pilot.press("t")  # off for this run: its tools leave
        await until(pilot, lambda: "disabled" in rows()[0], "demo disabled")
        assert "echo" not in backend.agent.registry.names()  # type: ignore[union-attr]
        await pilot.press("t")
        await until(pilot, lambda: "ready with 8 tools" in rows()[0], "demo back")
        await pilot.press("r")
        await until(
            pilot,
            lambda: "ready with 8 tools" in rows()[0] and "echo" in backend.agent.registry.names(),  # type: ignore[union-attr]
            "demo restarted",
        )
        await pilot.press("escape")
        await until(pilot, lambda: not isinstance(app.screen, McpScreen), "closed")


async def attach_the_servers_resources(pilot: Pilot[None], built: Built) -> None:
    """@ lists the server's resources and templates under its name; each chosen is attached (a template's
    parameter asked in a form first); then the attachments are taken off again."""
    app, prompt = pilot.app, chat(pilot).prompt_input
    await until(pilot, lambda: built.mcp_servers is not None and bool(built.mcp_servers.resource_picks()), "ready")

    async def pick(query: str) -> FilePicker:
        prompt.focus()
        await pilot.press("@")
        await until(pilot, lambda: showing(app, FilePicker), "the picker")
        picker = app.screen
        assert isinstance(picker, FilePicker)
        picker.query_one(Input).value = query
        await until(pilot, lambda: picker.shown_query == query, "filtered")
        return picker

    picker = await pick("")
    labels = [str(option.prompt) for option in picker.options.options if option.id.startswith(RESOURCE_ID)]  # type: ignore[union-attr]
    assert labels == [
        "⧉ notes: notes://readme — What the notes are",
        "⧉ notes: notes://dot.png",
        "⧉ notes: notes://{name} — A note by name",
    ]
    await pick("readme")
    await pilot.press("enter")
    await until(pilot, lambda: len(prompt.attachments) == 1, "the readme attached")
    await pick("dot.png")
    await pilot.press("enter")
    await until(pilot, lambda: len(prompt.attachments) == 2, "the image attached")
    await pick("notes://{name}")
    await pilot.press("enter")
    await until(pilot, lambda: showing(app, ElicitationScreen), "the template's form")
    app.screen.query_one(Input).value = "groceries list"
    await pilot.click("#accept")
    await until(pilot, lambda: len(prompt.attachments) == 3, "the filled template attached")
    readme, dot, note = prompt.attachments
    assert (readme.kind, readme.name, readme.text) == ("file", "notes://readme", "The notes server keeps notes.")
    assert (dot.kind, dot.mime, dot.data) == ("image", "image/png", tiny_png())
    assert (note.name, note.text) == ("notes://groceries%20list", "note groceries list")
    prompt.set_attachments([])


async def test_a_servers_question_is_a_form_and_its_sampling_a_dialog(mcp_app: MakeApp, tmp_path: Path) -> None:
    scenario = calling("ask_name")
    scenario["replies"] += [
        {"text": "", "tool_calls": [{"name": "summarise", "arguments": {"text": "the notes"}}]},
        {"text": "A short summary."},  # the sampling request's answer
        {"text": "Summarised."},
    ]
    app, built = mcp_app(scenario, notes=stdio("--capabilities", approval="never"))
    async with app.run_test(size=(140, 40)) as pilot:
        await attach_the_servers_resources(pilot, built)
        await type_prompt(pilot, "who am I")
        await until(pilot, lambda: showing(app, ElicitationScreen), "the server's form")
        form = app.screen
        assert isinstance(form, ElicitationScreen)
        assert "What is your name?" in str(form.query_one("#elicit-message").render())
        await pilot.press("enter")  # the name is required: said, the form stays
        await until(pilot, lambda: "Name is required" in str(form.query_one("#elicit-problem").render()), "problem")
        name, age = form.query(Input)
        name.value, age.value = "Ada", "36"
        await pilot.click("#accept")
        await until(pilot, lambda: chat_idle(pilot), "turn finished")
        (panel,) = chat(pilot).tool_panels.panels
        assert panel.call.result == "accept: Ada (36)"
        await type_prompt(pilot, "summarise the notes")  # the server asks the model: shown first, then sent
        await until(pilot, lambda: showing(app, SamplingScreen), "the sampling dialog")
        dialog = app.screen
        assert isinstance(dialog, SamplingScreen)
        shown = str(dialog.query_one("#sampling-text").render())
        assert "system: You summarise." in shown and "user: Summarise: the notes" in shown
        assert "max tokens: 50" in str(dialog.query_one("#sampling-about").render())
        await pilot.press("s")  # always for this server, this run
        await until(pilot, lambda: chat_idle(pilot) and len(chat(pilot).tool_panels.panels) == 2, "second turn")
        assert chat(pilot).tool_panels.panels[-1].call.result == "summary: A short summary."
        agent = built.agent
        assert agent is not None and built.mcp_servers is not None
        assert built.mcp_servers.sampling.allowed == {"notes"}
        used = agent.session_usage
    store = await HistoryStore.open(tmp_path / "history.db")
    try:
        (session,) = await store.list_recent()
        replies = [message.usage for message in await store.load_tail(session.id, 100) if message.usage]
    finally:
        await store.close()
    assert used[1] > sum(usage.completion_tokens for usage in replies)  # the sampling reply's tokens counted too


async def test_the_status_bar_names_the_servers_still_starting(mcp_app: MakeApp) -> None:
    app, backend = mcp_app(
        calling("echo", text="x"),
        demo=stdio(approval="never"),
        slowpoke=stdio("--hang", startup_timeout=600),
        missing=McpServerSettings(command="no-such-mcp-server"),
    )
    async with app.run_test(size=(160, 40)) as pilot:
        bar = chat(pilot).status_bar
        line: Callable[[], str] = lambda: str(bar.render())  # noqa: E731
        # demo ready and missing failed leave the line; slowpoke, still starting, stays named
        await until(pilot, lambda: "mcp: slowpoke starting…" in line(), "only slowpoke named")
        assert backend.mcp_servers is not None and backend.mcp_servers.servers["demo"].state == "ready"
        await backend.mcp_servers.toggle("slowpoke")  # turned off: no longer starting
        await until(pilot, lambda: "mcp:" not in line(), "no server named once none is starting")
        bar.set_starting(["a", "b", "c", "d", "e"])  # many: the first few named, the rest counted
        assert "mcp: a, b, c +2 starting…" in line()
