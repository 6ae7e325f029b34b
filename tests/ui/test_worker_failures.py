"""A worker that fails on a modal screen (the MCP screen's restart, say) is said, not lost."""

from __future__ import annotations

import pytest
from textual.screen import ModalScreen

from tests.ui.helpers import wait_until
from tui_agent.testing.scripted import ScriptedBackend
from tui_agent.ui.app import TuiAgentApp
from tui_agent.ui.screens.reporting import ReportingModal
from tui_agent.ui.textual_private import notifications

FAILURE = "The server 'files' could not restart: connection refused."


class FailingModal(ReportingModal[None]):
    def on_mount(self) -> None:
        self.run_worker(self.fail(), exit_on_error=False)

    tried = False

    async def fail(self) -> None:
        type(self).tried = True
        raise RuntimeError(FAILURE)


class SilentModal(ModalScreen[None]):
    """The same worker on a plain modal: Textual tells only the screen, so the failure goes unsaid."""

    on_mount = FailingModal.on_mount
    fail = FailingModal.fail
    tried = False


@pytest.mark.parametrize(("screen", "said"), [(FailingModal, True), (SilentModal, False)])
async def test_a_failed_worker_on_a_modal_screen_is_said(screen: type[ModalScreen[None]], said: bool) -> None:
    app = TuiAgentApp(ScriptedBackend([]), cursor_blink=False)
    async with app.run_test(size=(100, 30), notifications=True) as pilot:
        modal = screen()
        await app.push_screen(modal)
        await wait_until(pilot, lambda: screen.tried, "the worker ran")  # type: ignore[attr-defined]
        if said:  # the failure's messages: worker -> screen (-> app) -> notification, each a moment after
            await wait_until(pilot, lambda: failure_said(app), lambda: f"the failure said ({notices(app)})")
        else:  # nothing comes to wait for: the messages that would say it have had a few turns
            for _ in range(5):
                await pilot.pause()
            assert not failure_said(app), notices(app)


def notices(app: TuiAgentApp) -> list[str]:
    return [note.message for note in notifications(app)]


def failure_said(app: TuiAgentApp) -> bool:
    return any(FAILURE in message for message in notices(app))
