"""Provides `BuiltinCommandWanted`: a built-in `/` command was typed in the prompt (`/model`, `/new`...), and the
app is asked to run the palette action it stands for (`tui_agent.ui.slash_builtins`).

The chat screen cannot run the app's actions itself without importing the app's modules above it: it posts this
message, which bubbles up to the app.
"""

from __future__ import annotations

from textual.message import Message


class BuiltinCommandWanted(Message):
    """Run built-in command `name` with `arguments` (what was typed after it, "" for none)."""

    def __init__(self, name: str, arguments: str = "") -> None:
        super().__init__()
        self.name = name
        self.arguments = arguments
