"""Provides `CommandMenu`: the list of `/` commands that opens above the prompt when a prompt starts with `/`.

While the first word is being typed it lists the commands matching it (`Catalogue.matching`: names that start with
it, then names and descriptions that hold it), each on one line with what to type after it, where it comes from
(project, user, mcp) and its description. The prompt
hands it its keys while it is open: Up/Down move, Tab completes the name, Enter runs the command (one that takes
arguments is completed instead, the cursor left for them), Esc closes it until the prompt no longer starts with `/`.
Hidden, it takes no room and no key.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Literal

from textual import on
from textual.content import Content
from textual.widgets import OptionList
from textual.widgets.option_list import Option

from tui_agent.sanitize import sanitize

if TYPE_CHECKING:  # the catalogue loads with the first / typed
    from tui_agent.commands.catalogue import Catalogue, SlashCommand

SHOWN = 8
"""Rows the menu shows at once; it scrolls beyond."""
LABEL_WIDTH = 28
"""Columns the names (with their hints) are lined up in; a longer one pushes its own description along."""
MenuKey = Literal["complete", "run", "taken"]
"""What a key the menu took asks of the prompt: put the name in, send it, or nothing more (a move, Esc)."""


class CommandMenu(OptionList, can_focus=False):
    """The `/` commands matching what is typed; hidden until a prompt starts with `/`."""

    DEFAULT_CSS = f"""
    CommandMenu {{
        display: none;
        height: auto;
        max-height: {SHOWN + 2};
        margin: 0 1;
        border: round $accent;
        background: $panel;
        padding: 0;
        text-wrap: nowrap;
        text-overflow: ellipsis;
    }}
    CommandMenu.-open {{
        display: block;
    }}
    """

    def __init__(
        self,
        catalogue: Callable[[], Catalogue],
        *,
        clicked: Callable[[], None] = lambda: None,
        id: str | None = None,  # noqa: A002
    ) -> None:
        """`catalogue`: the commands in force now (the built-ins until the engine is there); `clicked`: a command
        was clicked (the prompt runs it as Enter would)."""
        super().__init__(id=id)
        self._catalogue = catalogue
        self._clicked = clicked
        self._matches: list[SlashCommand] = []
        self._closed_for = False
        """Esc closed it: it stays closed until the prompt stops starting with `/`."""
        self._typed: str | None = None

    @property
    def is_open(self) -> bool:
        return self.has_class("-open")

    @property
    def matches(self) -> list[SlashCommand]:
        return list(self._matches)

    @property
    def chosen(self) -> SlashCommand | None:
        """The highlighted command."""
        index = self.highlighted
        return self._matches[index] if index is not None and 0 <= index < len(self._matches) else None

    def typed(self, text: str) -> None:
        """The prompt's text changed: list the commands for its first word while it is being typed."""
        word = text[1:] if text.startswith("/") and not any(c.isspace() for c in text) else None
        if word is None:
            self._closed_for = False
        if word is None or self._closed_for:
            self._show(None)
        elif word != self._typed or not self.is_open:
            self._show(word)

    def _show(self, word: str | None) -> None:
        if word is None and not self._matches:  # shut already: most keystrokes, nothing to redraw
            self._typed = None
            return
        self._typed = word
        self._matches = self._catalogue().matching(word) if word is not None else []
        self.set_class(bool(self._matches), "-open")
        self.clear_options()
        if not self._matches:
            return
        width = min(LABEL_WIDTH, max(len(command.label) for command in self._matches))
        self.add_options([Option(_row(command, width), id=command.name) for command in self._matches])
        self.highlighted = 0

    def key(self, key: str) -> MenuKey | None:
        """A key pressed in the prompt while the menu is open: what it asks, or None when the menu does not take it."""
        if not self.is_open:
            return None
        if key in ("up", "down"):
            self.highlighted = ((self.highlighted or 0) + (1 if key == "down" else -1)) % len(self._matches)
            return "taken"
        if key == "tab":
            return "complete"
        if key == "enter":
            chosen = self.chosen
            return "complete" if chosen is not None and chosen.takes_arguments else "run"
        if key == "escape":
            self.close()
            return "taken"
        return None

    @on(OptionList.OptionSelected)
    def _chosen_by_click(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self._clicked()

    def close(self) -> None:
        """Hide until the prompt no longer starts with `/` (Esc)."""
        self._closed_for = True
        self._show(None)


def _row(command: SlashCommand, width: int) -> Content:
    """`/name <hint>   where from · description` for one command, the descriptions lined up after `width` (where
    it comes from first: a long description is cut at the menu's edge)."""
    origin = "" if command.source == "built-in" else f"{command.source} · "
    label = sanitize(command.label)
    gap = " " * max(2, width + 2 - len(label))
    return Content.assemble((label, "bold"), gap, (origin, "italic"), (sanitize(command.description), "dim"))
