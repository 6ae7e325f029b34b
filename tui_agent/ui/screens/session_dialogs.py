"""Provides the session modals: rename (a title), fork (pick a message), confirm delete, and export (where
to, in which format).

Each dismisses with the answer, or None / False when the person backs out with Esc.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Button, Input, OptionList, RadioButton, RadioSet, Static
from textual.widgets.option_list import Option

from tui_agent.agent.records import ExportFormat, Message
from tui_agent.sanitize import sanitize
from tui_agent.status import Role

DIALOG_CSS = """
RenameScreen, ForkScreen, ConfirmDeleteScreen, ExportScreen { align: center middle; }
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
    BINDINGS = [Binding("escape", "cancel", "Cancel", id="rename.cancel")]

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
    BINDINGS = [Binding("escape", "cancel", "Cancel", id="fork.cancel")]

    def __init__(self, title: str, messages: list[Message]) -> None:
        super().__init__()
        self.session_title = title
        self.messages = [m for m in messages if m.role in (Role.USER, Role.ASSISTANT)]

    def compose(self) -> ComposeResult:
        with Vertical(classes="session-dialog") as dialog:
            dialog.border_title = Content(f"Fork {one_line(self.session_title, 40)} from…")
            yield Static(Content("Choose the last message the new session keeps (Enter), Esc to cancel."))
            options = [
                Option(Content.assemble((f"{m.role.value:>9}  ", "dim"), one_line(m.content or "(no text)")), id=m.id)
                for m in self.messages
            ]
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
    BINDINGS = [
        Binding("y", "answer(True)", "Delete", id="delete.confirm"),
        Binding("n,escape", "answer(False)", "Keep", id="delete.keep"),
    ]

    def __init__(self, title: str) -> None:
        super().__init__()
        self.session_title = title

    def compose(self) -> ComposeResult:
        with Vertical(classes="session-dialog") as dialog:
            dialog.border_title = Content("Delete session?")
            yield Static(
                Content.assemble(
                    "Delete ", (one_line(self.session_title), "bold"), " and all its messages? This cannot be undone."
                )
            )
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


SUFFIXES: dict[ExportFormat, str] = {"markdown": ".md", "json": ".json"}


class ExportScreen(ModalScreen[tuple[Path, ExportFormat] | None]):
    """Asks where to write the current session and as what (Markdown or JSON); Enter or Export writes, Esc
    cancels. The path starts at `default_path(format)`; switching the format switches its extension."""

    DEFAULT_CSS = (
        DIALOG_CSS
        + """
    ExportScreen RadioSet { layout: horizontal; margin: 1 0; }
    """
    )
    BINDINGS = [Binding("escape", "cancel", "Cancel", id="export.cancel")]

    def __init__(self, title: str, default_path: Callable[[ExportFormat], Path]) -> None:
        super().__init__()
        self.session_title = title
        self.default_path = default_path
        self.export_format: ExportFormat = "markdown"

    def compose(self) -> ComposeResult:
        with Vertical(classes="session-dialog") as dialog:
            dialog.border_title = Content(f"Export {one_line(self.session_title, 40)}")
            yield Static(Content("Write the conversation (tool calls included) to this file, readable by you only:"))
            yield Input(str(self.default_path(self.export_format)), id="export-path")
            with RadioSet(id="export-format"):
                yield RadioButton(Content("Markdown"), value=True, id="markdown")
                yield RadioButton(Content("JSON"), id="json")
            with Horizontal():
                yield Button(Content("Cancel (Esc)"), id="cancel")
                yield Button(Content("Export (Enter)"), id="export", variant="primary")

    def on_mount(self) -> None:
        self.query_one("#export-path", Input).focus()

    def on_radio_set_changed(self, event: RadioSet.Changed) -> None:
        event.stop()
        chosen: ExportFormat = "json" if event.pressed.id == "json" else "markdown"
        field = self.query_one("#export-path", Input)
        path = Path(field.value.strip())
        if path.suffix in SUFFIXES.values():  # a name the person chose keeps its stem, with the new extension
            field.value = str(path.with_suffix(SUFFIXES[chosen]))
        self.export_format = chosen

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self._export()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        if event.button.id == "export":
            self._export()
        else:
            self.dismiss(None)

    def _export(self) -> None:
        value = self.query_one("#export-path", Input).value.strip()
        if not value:
            self.notify("Type a file name to export to (Esc cancels).", severity="warning")
            return
        self.dismiss((Path(value).expanduser(), self.export_format))

    def action_cancel(self) -> None:
        self.dismiss(None)
