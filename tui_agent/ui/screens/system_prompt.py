"""Provides `SystemPromptScreen`: the current session's system prompt in a text area, to edit.

Ctrl+S (or Save) dismisses with the new text; Esc (or Cancel) with None, leaving the prompt as it was. The
text may be emptied: the session then has no system prompt.
"""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Button, Static, TextArea

from tui_agent.sanitize import sanitize

CSS = """
SystemPromptScreen { align: center middle; }
#system-prompt-dialog {
    width: 90%; max-width: 110; height: 80%;
    border: thick $accent; background: $surface; padding: 1 2;
}
#system-prompt-dialog TextArea { height: 1fr; }
#system-prompt-dialog Horizontal { height: auto; align-horizontal: right; margin-top: 1; }
#system-prompt-dialog Button { margin-left: 2; }
"""


class SystemPromptScreen(ModalScreen[str | None]):
    """Edits a session's system prompt; Ctrl+S saves, Esc keeps the old one."""

    DEFAULT_CSS = CSS
    BINDINGS = [
        Binding("ctrl+s", "save", "Save", id="system_prompt.save", priority=True),
        Binding("escape", "cancel", "Cancel", id="system_prompt.cancel"),
    ]

    def __init__(self, prompt: str, agent: str) -> None:
        super().__init__()
        self.old_prompt = prompt
        self.agent = agent

    def compose(self) -> ComposeResult:
        with Vertical(id="system-prompt-dialog") as dialog:
            whose = f" (agent {sanitize(self.agent)})" if self.agent else ""
            dialog.border_title = Content(f"System prompt of this session{whose}")
            yield Static("Sent first to the model from the next turn on; stored with the session. Ctrl+S saves.")
            yield TextArea(self.old_prompt, id="system-prompt-text", soft_wrap=True, show_line_numbers=False)
            with Horizontal():
                yield Button("Save", id="system-prompt-save", variant="primary")
                yield Button("Cancel", id="system-prompt-cancel")

    def on_mount(self) -> None:
        self.query_one(TextArea).focus()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.action_save() if event.button.id == "system-prompt-save" else self.action_cancel()

    def action_save(self) -> None:
        text = self.query_one(TextArea).text
        self.dismiss(None if text == self.old_prompt else text)

    def action_cancel(self) -> None:
        self.dismiss(None)
