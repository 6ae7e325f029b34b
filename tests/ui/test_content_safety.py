"""Poisoned model output on the real stack: lone surrogates, bidi controls, secrets, a plain-http endpoint.

The offline model over HTTP scripts the poison (`raw_events` for text no well-behaved server would send),
the real agent runs the turn, the app shows it and a real SQLite file keeps it.
"""

from __future__ import annotations

import json
import os
import stat
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest

from tests.ui.helpers import app_on_real_agent, chat, chat_idle, send, showing, wait_until
from tests.ui.test_real_stack import history as stored
from tui_agent.agent.endpoint import EndpointChoice
from tui_agent.config import Settings
from tui_agent.offline.server import BackgroundServer
from tui_agent.status import MessageStatus, ToolStatus
from tui_agent.ui.app import TuiAgentApp
from tui_agent.ui.screens.approval import ApprovalScreen
from tui_agent.ui.session_actions import export_current
from tui_agent.ui.textual_private import notifications

PLUGINS = Path(__file__).parents[1] / "fixtures" / "content_plugins"
MakeApp = Callable[..., TuiAgentApp]
RLO = "\u202e"


def chunk(delta: dict[str, Any], finish: str | None = None) -> str:
    """One chat-completion chunk; `json.dumps` writes a lone surrogate as the legal escape `\\ud800`."""
    return json.dumps({"choices": [{"index": 0, "delta": delta, "finish_reason": finish}]})


def call_delta(index: int, name: str, arguments: str) -> dict[str, Any]:
    return {
        "tool_calls": [
            {
                "index": index,
                "id": f"call_{index}",
                "type": "function",
                "function": {"name": name, "arguments": arguments},
            }
        ]
    }


SURROGATE_REPLY = {
    "raw_events": [
        chunk({"role": "assistant", "content": "before \ud800 after"}),
        chunk(call_delta(0, "quick_echo", '{"text": "x\\ud800y"}')),  # escaped inside the arguments' JSON
        chunk(call_delta(1, "quick_echo", '{"text": "p\udc00q"}')),  # a lone surrogate in the arguments string
        chunk({}, "tool_calls"),
    ]
}


@pytest.fixture
async def app_on(tmp_path: Path) -> AsyncIterator[MakeApp]:
    """`app_on(scenario, **settings)`: the app on a real agent talking to a scripted offline model."""
    servers: list[BackgroundServer] = []

    def make(scenario: dict[str, Any], **values: Any) -> TuiAgentApp:
        server = BackgroundServer(scenario)
        server.start()
        servers.append(server)
        settings = Settings(db=tmp_path / "history.db", plugin_dirs=[PLUGINS], **values)
        choice = EndpointChoice(server.base_url, "scripted", "test-key")
        app, _ = app_on_real_agent(settings, choice)
        return app

    yield make
    for server in servers:
        server.stop()


async def test_lone_surrogates_are_shown_and_stored_as_replacement_and_the_session_goes_on(
    app_on: MakeApp, tmp_path: Path
) -> None:
    app = app_on({"replies": [SURROGATE_REPLY, {"text": "All done."}]})
    async with app.run_test(size=(140, 40)) as pilot:
        await send(pilot, "poison me")
        screen = chat(pilot)
        assert "before \ufffd after" in screen.chat_log.assistant_messages[0].shown_text()
        panels = screen.tool_panels.panels
        assert [panel.status for panel in panels] == [ToolStatus.DONE, ToolStatus.DONE]
        assert [panel.call.result for panel in panels] == ["echo: x\ufffdy", "echo: p\ufffdq"]
        await send(pilot, "and now?")  # the conversation (with U+FFFD in it) is sent again: it must encode
        assert screen.chat_log.assistant_messages[-1].shown_text().strip()
    messages = await stored(tmp_path / "history.db")
    assert [m.status for m in messages] == [MessageStatus.COMPLETE] * 5
    assert messages[1].content == "before \ufffd after"
    assert [call.arguments for call in messages[1].tool_calls] == [{"text": "x\ufffdy"}, {"text": "p\ufffdq"}]
    assert messages[2].content == "All done."


BIDI_COMMAND = f"ls {RLO}fdp.exe\u2066 #\u200b"
BIDI_REPLY = {"tool_calls": [{"name": "run_command", "arguments": {"command": BIDI_COMMAND}}]}


async def test_approval_dialog_and_tool_panel_show_bidi_and_invisible_characters(app_on: MakeApp) -> None:
    app = app_on({"replies": [BIDI_REPLY, {"text": f"Done: {RLO}txt.exe"}]})
    async with app.run_test(size=(140, 40)) as pilot:
        await send(pilot, "list it", wait=False)
        await wait_until(pilot, lambda: showing(app, ApprovalScreen), "approval modal")
        shown = " ".join(str(static.render()) for static in app.screen.query("Static"))
        assert "ls ⟨U+202E⟩fdp.exe⟨U+2066⟩ #⟨U+200B⟩" in shown and RLO not in shown
        await pilot.press("a")
        await wait_until(pilot, lambda: chat_idle(pilot), "turn finished")
        (panel,) = chat(pilot).tool_panels.panels
        body = str(panel.render())
        assert "⟨U+202E⟩fdp.exe⟨U+2066⟩" in body and RLO not in body and "\u2066" not in body
        reply = chat(pilot).chat_log.assistant_messages[-1].shown_text()
        assert "Done: txt.exe" in reply and RLO not in reply  # ordinary text: the override is removed


def notices(app: TuiAgentApp) -> list[str]:
    return [notification.message for notification in notifications(app)]


async def test_a_plain_http_endpoint_on_another_machine_is_noticed_once(tmp_path: Path) -> None:
    settings = Settings(db=tmp_path / "history.db")
    choice = EndpointChoice("http://192.0.2.10:8000/v1", "remote", "test-key")  # TEST-NET: never reached
    app, _ = app_on_real_agent(settings, choice)
    async with app.run_test(size=(140, 40)) as pilot:
        await wait_until(pilot, lambda: any("plain http" in notice for notice in notices(app)), "the warning")
        await pilot.pause(0.2)
        assert isinstance(app.screen, type(chat(pilot)))  # a notice, not a dialog
        warnings = [notice for notice in notices(app) if "plain http" in notice]
        assert len(warnings) == 1 and "http://192.0.2.10:8000" in warnings[0] and "test-key" not in warnings[0]


async def test_a_loopback_endpoint_gets_no_warning(app_on: MakeApp) -> None:
    app = app_on({"replies": [{"text": "hello"}]})
    async with app.run_test(size=(140, 40)) as pilot:
        await send(pilot, "hi")
        assert chat(pilot).chat_log.assistant_messages[-1].shown_text().strip() == "hello"
        assert not any("plain http" in notice for notice in notices(app))


async def test_the_apps_export_is_private(app_on: MakeApp, tmp_path: Path) -> None:
    app = app_on({"replies": [{"text": "hello"}]})
    previous = os.umask(0o022)
    try:
        async with app.run_test(size=(140, 40)) as pilot:
            await send(pilot, "hi")
            target = await export_current(app, folder=tmp_path)
            assert target is not None and "hello" in target.read_text(encoding="utf-8")
            assert stat.S_IMODE(target.stat().st_mode) == 0o600
    finally:
        os.umask(previous)
