"""Provides the app-level session actions: open the session screen, start a new session, export one.

`TuiAgentApp.action_sessions`, `action_new_session` and `action_export_session` call these; opening a
session (or starting afresh) replaces the chat screen with a fresh one that loads the new history.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING

from tui_agent import paths
from tui_agent.history.export import write_private
from tui_agent.ui.screens.sessions import SessionsScreen, show_fresh_chat

if TYPE_CHECKING:
    from tui_agent.ui.app import TuiAgentApp


def open_sessions(app: TuiAgentApp) -> None:
    """Show the session screen (once: asking again while it is open does nothing)."""
    if not any(isinstance(screen, SessionsScreen) for screen in app.screen_stack):
        app.push_screen(SessionsScreen(app.backend))


async def start_new_session(app: TuiAgentApp) -> None:
    """A fresh, empty conversation; the next prompt starts a new stored session."""
    try:
        await app.backend.new_session()
    except Exception as error:
        app.notify(str(error), severity="error")
        return
    show_fresh_chat(app)


def export_file_name(title: str, session_id: str) -> str:
    slug = re.sub(r"[^a-z0-9]+", "-", title.lower()).strip("-")[:40] or "session"
    return f"tui-agent-{slug}-{session_id[:8]}.md"


async def export_current(app: TuiAgentApp, folder: Path | None = None) -> Path | None:
    """Write the current session as Markdown (cwd, else the data dir; mode 0600) and say where; returns the file."""
    exported = await app.backend.export_session()
    session_id = app.backend.current_session_id
    if exported is None or session_id is None:
        app.notify("Nothing to export yet: this session has no messages.", severity="warning")
        return None
    title, markdown = exported
    name = export_file_name(title, session_id)
    for place in ([folder] if folder else [Path.cwd(), paths.data_dir()]):
        target = place / name
        try:
            write_private(target, markdown)  # the whole conversation: for its owner's eyes only
        except OSError:
            continue
        app.notify(f"Exported to {target}", timeout=10)
        return target
    app.notify("Could not write the export: neither this folder nor the data folder is writable.",
               severity="error")
    return None
