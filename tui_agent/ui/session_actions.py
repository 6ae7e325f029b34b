"""Provides the app-level session actions: open the session screen, start a new session, export one.

`TuiAgentApp.action_sessions`, `action_new_session` and `action_export_session` call these, once the
engine is there (`await app.engine()`); opening a session (or starting afresh) replaces the chat screen
with a fresh one that loads the new history. Failures are raised to the app's one worker error handler.
Exporting asks where first (`ExportScreen`): by default `<data dir>/exports/<title>-<date>.md` (or `.json`),
never the current directory; the folder is created and the file is readable by its owner only.
"""

from __future__ import annotations

import re
from datetime import date
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from tui_agent import paths
from tui_agent.agent.records import ExportFormat, write_private
from tui_agent.ui.fresh_chat import FreshChatWanted
from tui_agent.ui.screens.session_dialogs import SUFFIXES, ExportScreen
from tui_agent.ui.screens.sessions import SessionsScreen

if TYPE_CHECKING:
    from textual.message import Message

    from tui_agent.ui.hosts import AppEngine, Modals, Notices, ScreenStack, Workers

    class SessionsApp(AppEngine, Notices, Workers, Modals, ScreenStack, Protocol):
        """What the session actions use of the app (`TuiAgentApp`)."""

        def post_message(self, message: Message) -> bool: ...


async def open_sessions(app: SessionsApp) -> None:
    """Show the session screen (once: asking again while it is open does nothing)."""
    backend = await app.engine()
    if not any(isinstance(screen, SessionsScreen) for screen in app.screen_stack):
        await app.push_screen(SessionsScreen(backend))


async def start_new_session(app: SessionsApp) -> None:
    """A fresh, empty conversation; the next prompt starts a new stored session."""
    await (await app.engine()).new_session()
    app.post_message(FreshChatWanted())  # the app draws it (`show_fresh_chat`)


def export_folder() -> Path:
    return paths.data_dir() / "exports"


def export_file_name(title: str, export_format: ExportFormat = "markdown", day: date | None = None) -> str:
    slug = re.sub(r"[^a-z0-9]+", "-", title.lower()).strip("-")[:40] or "session"
    return f"{slug}-{(day or date.today()).isoformat()}{SUFFIXES[export_format]}"


def unused(path: Path) -> Path:
    """`path`, or `name-2.ext`, `name-3.ext`… when it exists: a default never overwrites an earlier export."""
    candidate, number = path, 2
    while candidate.exists():
        candidate, number = path.with_name(f"{path.stem}-{number}{path.suffix}"), number + 1
    return candidate


async def ask_export(app: SessionsApp) -> None:
    """Ask where to export the current session (and as what), then write it."""
    backend = await app.engine()
    if backend.current_session_id is None:
        app.notify("Nothing to export yet: this session has no messages.", severity="warning")
        return
    title = backend.session_title

    def default_path(export_format: ExportFormat) -> Path:
        return unused(export_folder() / export_file_name(title, export_format))

    def chosen(answer: tuple[Path, ExportFormat] | None) -> None:
        if answer is not None:
            path, export_format = answer
            app.run_worker(
                export_current(app, path=path, export_format=export_format), group="export", exit_on_error=False
            )

    app.push_screen(ExportScreen(title, default_path), callback=chosen)


async def export_current(
    app: SessionsApp, folder: Path | None = None, *, path: Path | None = None, export_format: ExportFormat = "markdown"
) -> Path | None:
    """Write the current session to `path` (else `<folder or data dir/exports>/<title>-<date>.<ext>`), mode
    0600, creating its folder, and say where; returns the file, None when there was nothing to write or it failed."""
    backend = await app.engine()
    exported = await backend.export_session(export_format)
    if exported is None or backend.current_session_id is None:
        app.notify("Nothing to export yet: this session has no messages.", severity="warning")
        return None
    title, text = exported
    target = path or unused((folder or export_folder()) / export_file_name(title, export_format))
    try:
        paths.private_folder(target.parent)
        write_private(target, text)  # the whole conversation: for its owner's eyes only
    except OSError as error:
        app.notify(f"Could not write the export to {target}: {error.strerror or error}", severity="error", markup=False)
        return None
    app.notify(f"Exported to {target.absolute()}", timeout=10, markup=False)
    return target
