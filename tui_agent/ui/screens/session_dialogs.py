"""Provides the session screen's small modals: rename (a title), fork (pick a message) and confirm delete.

Each dismisses with the answer, or None / False when the person backs out with Esc.
"""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Button, Input, OptionList, Static
from textual.widgets.option_list import Option

from tui_agent.history.models import Message
from tui_agent.sanitize import sanitize
from tui_agent.status import Role

DIALOG_CSS = """
RenameScreen, ForkScreen, ConfirmDeleteScreen { align: center middle; }
.session-dialog {
    width: 80%; max-width: 90; height: auto; max-height: 80%;
    border: thick $accent; background: $surface; padding: 1 2;
}
.session-dialog OptionList { height: auto; max-height: 20; }
.session-dialog Horizontal { height: auto; align-horizontal: right; }
.session-dialog Button { margin-left: 2; }
"""


def one_line(text: str, width: int = 70) -> str:
    """The text on one line, shortened with an ellipsis."""
    flat = " ".join(sanitize(text).split())
    return flat if len(flat) <= width else flat[: width - 1] + "…"


class RenameScreen(ModalScreen[str | None]):
    """Asks for a new title; Enter saves, Esc keeps the old one."""

    DEFAULT_CSS = DIALOG_CSS
    BINDINGS = [Binding("escape", "cancel", "Cancel")]

    def __init__(self, title: str) -> None:
        super().__init__()
        self.old_title = title

    def compose(self) -> ComposeResult:
        with Vertical(classes="session-dialog") as dialog:
            dialog.border_title = Content("Rename session")
            yield Input(self.old_title, id="rename-input")

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        title = event.value.strip()
        self.dismiss(title if title and title != self.old_title else None)

    def action_cancel(self) -> None:
        self.dismiss(None)


class ForkScreen(ModalScreen[str | None]):
    """Lists a session's messages; Enter forks from the highlighted one (it and all before it are copied)."""

    DEFAULT_CSS = DIALOG_CSS
    BINDINGS = [Binding("escape", "cancel", "Cancel")]

    def __init__(self, title: str, messages: list[Message]) -> None:
        super().__init__()
        self.session_title = title
        self.messages = [m for m in messages if m.role in (Role.USER, Role.ASSISTANT)]

    def compose(self) -> ComposeResult:
        with Vertical(classes="session-dialog") as dialog:
            dialog.border_title = Content(f"Fork {one_line(self.session_title, 40)} from…")
            yield Static(Content("Choose the last message the new session keeps (Enter), Esc to cancel."))
            options = [Option(Content.assemble((f"{m.role.value:>9}  ", "dim"), one_line(m.content or "(no text)")),
                              id=m.id) for m in self.messages]
            yield OptionList(*options, id="fork-messages")

    def on_mount(self) -> None:
        messages = self.query_one(OptionList)
        messages.focus()
        if self.messages:
            messages.highlighted = len(self.messages) - 1

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.dismiss(event.option.id)

    def action_cancel(self) -> None:
        self.dismiss(None)


class ConfirmDeleteScreen(ModalScreen[bool]):
    """Asks before deleting a session: `y` deletes, `n` or Esc keeps it."""

    DEFAULT_CSS = DIALOG_CSS
    BINDINGS = [Binding("y", "answer(True)", "Delete"), Binding("n,escape", "answer(False)", "Keep")]

    def __init__(self, title: str) -> None:
        super().__init__()
        self.session_title = title

    def compose(self) -> ComposeResult:
        with Vertical(classes="session-dialog") as dialog:
            dialog.border_title = Content("Delete session?")
            yield Static(Content.assemble("Delete ", (one_line(self.session_title), "bold"),
                                          " and all its messages? This cannot be undone."))
            with Horizontal():
                yield Button(Content("Keep (n)"), id="keep", variant="primary")
                yield Button(Content("Delete (y)"), id="delete", variant="error")

    def on_mount(self) -> None:
        self.query_one("#keep", Button).focus()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.dismiss(event.button.id == "delete")

    def action_answer(self, delete: bool) -> None:
        self.dismiss(delete)
