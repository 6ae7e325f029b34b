"""Provides `AddNoteScreen` and `offer_note`: `# text` at the start of a prompt, as in Claude Code, adds `text` as a
line of the nearest `AGENTS.md` (`tui_agent.commands.memory_notes`) once the person says yes; the memory files are
then read again, so the next request is told it. Nothing is sent to the model; Esc or `n` puts the text back.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Button, Static

from tui_agent.commands.memory_notes import add_note, memory_file_to_edit
from tui_agent.errors import user_message
from tui_agent.sanitize import sanitize

if TYPE_CHECKING:
    from tui_agent.agent.port import ChatBackend
    from tui_agent.ui.hosts import Modals, Notices, Workers
    from tui_agent.ui.widgets.prompt import PromptInput

    class NoteHost(Notices, Workers, Protocol):
        """What adding a note uses of the chat screen (and its app's modals)."""

        @property
        def prompt_input(self) -> PromptInput: ...

        async def connected(self) -> ChatBackend: ...

    class NoteApp(Modals, Protocol):
        """Opens the question."""


class AddNoteScreen(ModalScreen[bool]):
    """Asks before adding a line to a memory file: `y` adds it, `n` or Esc does not."""

    DEFAULT_CSS = """
    AddNoteScreen { align: center middle; }
    AddNoteScreen > Vertical {
        width: 80%; max-width: 90; height: auto; border: thick $accent; background: $surface; padding: 1 2;
    }
    AddNoteScreen Horizontal { height: auto; margin-top: 1; }
    """
    BINDINGS = [
        Binding("y", "answer(True)", "Add", id="memory_note.add"),
        Binding("n,escape", "answer(False)", "Do not add", id="memory_note.keep"),
    ]

    def __init__(self, note: str, path: Path) -> None:
        super().__init__()
        self.note, self.path = note, path

    def compose(self) -> ComposeResult:
        with Vertical() as dialog:
            dialog.border_title = Content("Add to the memory file?")
            where = "a new file " if not self.path.exists() else ""
            yield Static(
                Content.assemble(
                    ("- " + sanitize(" ".join(self.note.split())), "bold"),
                    f"\n\nis added at the end of {where}",
                    (sanitize(str(self.path)), "underline"),
                    ", which every agent's system prompt carries (nothing is sent to the model now).",
                )
            )
            with Horizontal():
                yield Button(Content("Add (y)"), id="add", variant="primary")
                yield Button(Content("Do not add (n)"), id="keep")

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.dismiss(event.button.id == "add")

    def action_answer(self, add: bool) -> None:
        self.dismiss(add)


def offer_note(screen: NoteHost, app: NoteApp, prompt: str) -> None:
    """Ask whether to add `prompt` (`# text`) to the nearest memory file; add it and read the files again if so."""
    note = prompt.strip()[1:].strip()
    try:
        path = memory_file_to_edit(Path.cwd())
    except OSError as error:  # refused: others could change it (the sentence says what to run)
        screen.notify(f"Not added: {error}", severity="error", timeout=12, markup=False)
        _give_back(screen, prompt)
        return

    def answered(add: bool | None) -> None:
        if add:
            screen.run_worker(_add(screen, note), group="memory", exit_on_error=False, description="add a note")
        else:
            _give_back(screen, prompt)

    app.push_screen(AddNoteScreen(note, path), answered)


async def _add(screen: NoteHost, note: str) -> None:
    try:
        path = await asyncio.to_thread(add_note, Path.cwd(), note)
    except (OSError, ValueError) as error:
        screen.notify(f"Not added: {user_message(error)}", severity="error", timeout=12, markup=False)
        return
    try:
        await (await screen.connected()).reload_memory()
    except Exception as error:  # the engine is not there: the file has the note, the next start reads it
        screen.notify(f"Added to {path}; it is read at the next start ({user_message(error)}).", markup=False)
        return
    screen.notify(f"Added to {path}: the next request is told it.", markup=False)


def _give_back(screen: NoteHost, text: str) -> None:
    box = screen.prompt_input
    if not box.text.strip():
        box.load_text(text)
        box.move_cursor(box.document.end)
