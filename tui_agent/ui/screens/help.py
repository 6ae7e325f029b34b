"""Provides `HelpScreen` (F1): every key binding (app, chat screen, prompt, selected message, tool panel, task
tree, approval dialog, session screen) with the keys in force after the `[keys]` overrides and the action name
to override each one by. Esc or F1 closes it.
"""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding, Keymap
from textual.containers import VerticalScroll
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Static

from tui_agent.ui.key_overrides import binding_owners
from tui_agent.ui.keys import PROMPT_KEYS, KeyRow, key_rows

KEY_WIDTH = 20
DESCRIPTION_WIDTH = 32


def render_rows(rows: list[KeyRow]) -> Content:
    """One aligned line per binding: keys, description, action name."""
    lines = [
        Content.assemble(
            (row.keys.ljust(KEY_WIDTH), "bold $accent"),
            row.description.ljust(DESCRIPTION_WIDTH),
            (row.action, "dim"),
        )
        for row in rows
    ]
    return Content("\n").join(lines)


class HelpScreen(ModalScreen[None]):
    """The key bindings, grouped by where they work."""

    DEFAULT_CSS = """
    HelpScreen { align: center middle; }
    HelpScreen > VerticalScroll {
        width: 84; max-width: 100%; height: auto; max-height: 90%;
        background: $surface; border: round $primary; padding: 0 1;
    }
    HelpScreen .help-title { text-style: bold; color: $primary; margin-top: 1; }
    HelpScreen #help-footer { color: $text-muted; margin-top: 1; }
    """
    # F1 closes it too: the app's help key toggles.
    BINDINGS = [Binding("escape", "close", "Close", priority=True, id="help.close")]

    def __init__(self, keymap: Keymap) -> None:
        super().__init__()
        self.keymap = keymap
        """The app's key overrides: binding id -> keys."""

    def compose(self) -> ComposeResult:
        with VerticalScroll():
            sections = [(title, key_rows(owner, self.keymap)) for title, owner in binding_owners(self.app)]
            sections.insert(2, ("Prompt", PROMPT_KEYS))
            for title, rows in sections:
                if rows:
                    yield Static(title, classes="help-title")
                    yield Static(render_rows(rows), classes="help-keys")
            yield Static(
                Content(
                    'Change a key in the config file\'s [keys] table: action name = "key", '
                    'e.g. sessions = "ctrl+o" (`tui-agent config path` shows where the file is). '
                    "Esc closes."
                ),
                id="help-footer",
            )

    def action_close(self) -> None:
        self.dismiss(None)
