"""What "always" covers, on the real engine: one session only, and for the shell one exact command."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest
from textual.widgets import Button, Static

from tests.ui.helpers import FIXED_NOW, chat, chat_idle, chat_ready, send, showing, wait_until
from tui_agent.agent.endpoint import EndpointChoice
from tui_agent.agent.services import build_agent
from tui_agent.config import Settings
from tui_agent.offline.server import BackgroundServer
from tui_agent.sandbox import support
from tui_agent.status import ToolStatus
from tui_agent.ui.app import TuiAgentApp
from tui_agent.ui.screens.approval import ApprovalScreen

PLUGINS = Path(__file__).parents[1] / "unit" / "agent" / "plugins"
ECHO_CALL = {"tool_calls": [{"name": "careful_echo", "arguments": {"text": "hi"}}]}
MakeApp = Callable[..., TuiAgentApp]


@pytest.fixture
async def real_app(tmp_path: Path) -> AsyncIterator[MakeApp]:
    """`real_app(scenario=None, **settings)`: the app on a real agent; the offline model when no scenario."""
    servers: list[BackgroundServer] = []

    def make(scenario: dict[str, Any] | None = None, **values: Any) -> TuiAgentApp:
        settings = Settings(db=tmp_path / "history.db", **values)
        choice = EndpointChoice(None, "offline")
        if scenario is not None:
            server = BackgroundServer(scenario)
            server.start()
            servers.append(server)
            choice = EndpointChoice(server.base_url, "scripted", "test-key")
        return TuiAgentApp(
            lambda: build_agent(settings, choice),
            model=choice.model,
            endpoint=choice.label,
            clock=lambda: FIXED_NOW,
            cursor_blink=False,
        )

    yield make
    for server in servers:
        server.stop()


def asking(app: TuiAgentApp) -> bool:
    return showing(app, ApprovalScreen)  # its widgets mounted: the scope line is read next


async def test_always_this_session_ends_with_the_session(real_app: MakeApp) -> None:
    app = real_app(
        {"replies": [ECHO_CALL, {"text": "one"}, ECHO_CALL, {"text": "two"}, ECHO_CALL, {"text": "3"}]},
        plugin_dirs=[PLUGINS],
    )
    async with app.run_test(size=(140, 40)) as pilot:
        await send(pilot, "echo carefully", wait=False)
        await wait_until(pilot, lambda: asking(app), "approval modal")
        await pilot.press("s")
        await wait_until(pilot, lambda: chat_idle(pilot), "first turn finished")
        await send(pilot, "again, same session")  # "always" holds within the session: no question
        assert [panel.status for panel in chat(pilot).tool_panels.panels] == [ToolStatus.DONE] * 2
        first_screen = chat(pilot)
        app.action_new_session()
        await wait_until(pilot, lambda: app.screen is not first_screen, "a fresh chat screen")
        await chat_ready(pilot)
        await send(pilot, "in a new session", wait=False)
        await wait_until(pilot, lambda: asking(app), "approval modal in the new session")
        await pilot.press("d")
        await wait_until(pilot, lambda: chat_idle(pilot), "last turn finished")
        (panel,) = chat(pilot).tool_panels.panels
        assert panel.status is ToolStatus.DENIED


async def test_always_for_the_shell_covers_the_exact_command_only(real_app: MakeApp, tmp_path: Path) -> None:
    app = real_app()  # the offline model calls run_shell for `run "..."`
    marker = tmp_path / "touched"
    async with app.run_test(size=(140, 40)) as pilot:
        await send(pilot, 'run "echo scoped"', wait=False)
        await wait_until(pilot, lambda: asking(app), "approval modal")
        scope = str(app.screen.query_one("#approval-scope", Static).render())
        assert "this exact command" in scope and "any other command asks again" in scope
        await pilot.press("s")
        await wait_until(pilot, lambda: chat_idle(pilot), "first turn finished")
        await send(pilot, 'run "echo scoped"')
        assert [panel.status for panel in chat(pilot).tool_panels.panels] == [ToolStatus.DONE] * 2
        await send(pilot, f'run "echo scoped; touch {marker}"', wait=False)
        await wait_until(pilot, lambda: asking(app), "approval modal for the longer command")
        await pilot.press("d")
        await wait_until(pilot, lambda: chat_idle(pilot), "last turn finished")
    assert not marker.exists()


async def test_the_dialog_says_always_covers_an_ordinary_tool(real_app: MakeApp) -> None:
    app = real_app({"replies": [ECHO_CALL, {"text": "one"}]}, plugin_dirs=[PLUGINS])
    async with app.run_test(size=(140, 40)) as pilot:
        await send(pilot, "echo carefully", wait=False)
        await wait_until(pilot, lambda: asking(app), "approval modal")
        scope = str(app.screen.query_one("#approval-scope", Static).render())
        assert "every call of careful_echo in this session" in scope
        await pilot.press("a")
        await wait_until(pilot, lambda: chat_idle(pilot), "turn finished")


@pytest.mark.skipif(support().problem is not None, reason=f"no OS sandbox: {support().problem}")
async def test_the_dialog_offers_the_network_and_to_run_a_blocked_command_outside(
    real_app: MakeApp, tmp_path: Path
) -> None:
    """`[sandbox] commands`: the question offers `w` (once, with the network); a command the sandbox blocked
    comes back as its own question — what was blocked, again outside / with the network / keep — and `a` runs
    it again unconfined, said in its result."""
    app = real_app(sandbox={"commands": True})
    target = tmp_path / "outside" / "file"
    target.parent.mkdir()
    async with app.run_test(size=(100, 40)) as pilot:
        await send(pilot, 'run "echo networked"', wait=False)
        await wait_until(pilot, lambda: asking(app), "approval modal")
        assert {button.id for button in app.screen.query(Button)} == {
            "allow_once",
            "allow_always",
            "allow_network",
            "deny",
        }
        await pilot.press("w")
        await wait_until(pilot, lambda: chat_idle(pilot), "the networked call's turn finished")
        result = chat(pilot).tool_panels.panels[-1].call.result or ""
        assert result.startswith("[run in the OS sandbox with the network, as the user allowed"), result
        await send(pilot, f'run "echo x > {target}"', wait=False)
        await wait_until(pilot, lambda: asking(app), "approval modal before the run")
        await pilot.press("a")
        await wait_until(pilot, lambda: asking(app) and bool(app.screen.query("#approval-blocked")), "rerun question")
        blocked = str(app.screen.query_one("#approval-blocked", Static).render())
        assert blocked == f"blocked by the sandbox: write to {target} (outside the working directory)"
        assert {button.id for button in app.screen.query(Button)} == {"allow_once", "allow_network", "deny"}
        assert app.focused is not None and app.focused.id == "deny"  # Enter by habit keeps the blocked result
        await pilot.press("s")  # "always" is not offered: leaving the sandbox is never remembered
        assert asking(app) and not target.exists()
        await pilot.press("a")
        await wait_until(pilot, lambda: chat_idle(pilot), "the rerun's turn finished")
        result = chat(pilot).tool_panels.panels[-1].call.result or ""
        assert result.startswith("[run again OUTSIDE the OS sandbox, as the user allowed"), result
    assert target.read_text() == "x\n"
