"""Provides `open_memory_file`: `/memory` and the palette's "Edit memory file" open the nearest `AGENTS.md`
(`tui_agent.commands.memory_notes`: made at the git root when there is none) in `$VISUAL` or `$EDITOR`, the app
suspended meanwhile as Textual does it (the terminal is the editor's until it exits), then read the memory files
again so the next request is told what was written.
"""

from __future__ import annotations

import os
import shlex
import subprocess
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from tui_agent.commands.memory_notes import memory_file_to_edit
from tui_agent.errors import user_message

if TYPE_CHECKING:
    from contextlib import AbstractContextManager

    from tui_agent.ui.hosts import AppEngine, Notices, Workers

    class MemoryApp(AppEngine, Notices, Workers, Protocol):
        """What opening the memory file uses of the app (`TuiAgentApp`)."""

        def suspend(self) -> AbstractContextManager[None]: ...


def editor_command() -> list[str] | None:
    """`$VISUAL`, else `$EDITOR`, as a command line (None when neither is set)."""
    chosen = os.environ.get("VISUAL") or os.environ.get("EDITOR")
    try:
        return shlex.split(chosen) if chosen and chosen.strip() else None
    except ValueError:
        return chosen.split() if chosen else None


def open_memory_file(app: MemoryApp) -> None:
    """Open the nearest AGENTS.md in the editor (the app waits: it is suspended), then read the memory files again
    in a worker; every failure is a notice."""
    try:
        path = memory_file_to_edit(Path.cwd())
    except OSError as error:  # refused: others could change it (the sentence says what to run)
        app.notify(f"Not opened: {error}", severity="error", timeout=12, markup=False)
        return
    editor = editor_command()
    if editor is None:
        app.notify(f"Set $EDITOR (or $VISUAL) to edit {path} from here.", severity="warning", markup=False)
        return
    try:
        with app.suspend():  # the terminal is the editor's; Textual redraws when it is back
            code = subprocess.call([*editor, str(path)])
    except Exception as error:  # SuspendNotSupported (no terminal of its own), the editor not found...
        app.notify(f"Could not open {path} in {editor[0]}: {user_message(error)}", severity="error", markup=False)
        return
    if code != 0:
        app.notify(f"{editor[0]} ended with status {code}; {path} is as it left it.", severity="warning", markup=False)
    app.run_worker(_read_again(app, path), group="memory", exit_on_error=False, description="read memory again")


async def _read_again(app: MemoryApp, path: Path) -> None:
    try:
        lines = await (await app.engine()).reload_memory()
    except Exception as error:
        app.notify(f"{path} is read at the next start ({user_message(error)}).", markup=False)
        return
    app.notify("\n".join(lines), title="Memory files, read again", timeout=10, markup=False)
