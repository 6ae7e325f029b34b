"""Provides `AttachPasteScreen`: asked when a paste is longer than `[ui] attach_paste_over` characters.

"Attach" (`a`, Enter) sends the paste as a text file part of the next prompt instead of putting it in the
prompt box, where a megabyte makes every keystroke slow; "Paste anyway" (`p`) puts it in the box (as a chip
standing for it). Esc pastes nothing. Dismisses with "attach", "paste" or None.
"""

from __future__ import annotations

from typing import Literal

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Static

PasteChoice = Literal["attach", "paste"]


class AttachPasteScreen(ModalScreen["PasteChoice | None"]):
    """Attach a long paste as a file, or paste it anyway."""

    DEFAULT_CSS = """
    AttachPasteScreen {
        align: center middle;
    }
    #attach-paste-dialog {
        width: 70;
        height: auto;
        border: thick $accent;
        background: $surface;
        padding: 1 2;
    }
    #attach-paste-buttons {
        height: auto;
        margin-top: 1;
        align-horizontal: center;
    }
    #attach-paste-buttons Button {
        margin: 0 1;
    }
    """

    BINDINGS = [
        Binding("a", "choose('attach')", "Attach", show=False, id="attach_paste.attach"),
        Binding("p", "choose('paste')", "Paste anyway", show=False, id="attach_paste.paste"),
        Binding("escape", "choose('')", "Cancel", show=False, id="attach_paste.cancel"),
    ]

    def __init__(self, size: str, name: str) -> None:
        super().__init__()
        self.paste_size, self.file_name = size, name

    def compose(self) -> ComposeResult:
        with Vertical(id="attach-paste-dialog"):
            yield Static(
                f"This paste is long ({self.paste_size}). Attach it as a file ({self.file_name}) sent with the next "
                "prompt, instead of putting it in the prompt box?"
            )
            with Horizontal(id="attach-paste-buttons"):
                yield Button("Attach (a)", id="attach", variant="primary")
                yield Button("Paste anyway (p)", id="paste")

    def on_mount(self) -> None:
        self.query_one("#attach", Button).focus()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.action_choose(event.button.id or "")

    def action_choose(self, choice: str) -> None:
        self.dismiss("attach" if choice == "attach" else "paste" if choice == "paste" else None)
