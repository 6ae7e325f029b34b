"""Provides `ReportingScreen` and `ReportingModal`: screens whose failed workers reach the app's one worker
error handler.

Textual's `Worker.StateChanged` does not bubble: it goes to the node that ran the worker only. A screen
built on this class hands a failure on to the app (`TuiAgentApp.on_worker_failed`), which says it in one
notification, so a worker declared `exit_on_error=False` never fails silently.
"""

from __future__ import annotations

from typing import TypeVar

from textual import on
from textual.screen import ModalScreen, Screen
from textual.worker import Worker, WorkerState

Result = TypeVar("Result")


class ReportingScreen(Screen[Result]):
    """A screen that passes its workers' failures on to the app."""

    @on(Worker.StateChanged)
    def pass_failure_on(self, event: Worker.StateChanged) -> None:
        if event.state is WorkerState.ERROR:
            self.app.post_message(Worker.StateChanged(event.worker, event.state))


class ReportingModal(ModalScreen[Result]):
    """A modal screen that passes its workers' failures on to the app (the MCP screen's restarts, say)."""

    pass_failure_on = ReportingScreen.pass_failure_on
