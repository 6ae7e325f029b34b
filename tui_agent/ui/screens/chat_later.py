"""Provides `LaterWidgets`: the chat screen's widgets that stay hidden until used — the message cursor, the
hover bar, the attachment strip and the `/` commands' menu (handed to the prompt) — mounted after the first frame,
or when first asked for if that comes sooner (a test's Pilot can press Ctrl+Up before the frame after the first is
drawn).

Composed with the screen, their classes, CSS and layout cost the first frame ~1.5 ms (bench/startup.py), and
their modules bring the code-block, clipboard and branch modules along (the menu: Textual's `OptionList`); nobody
sees them in that frame.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

from tui_agent.ui.widgets.prompt import PromptInput

if TYPE_CHECKING:
    from collections.abc import Callable

    from textual.widget import Widget

    from tui_agent.commands.catalogue import Catalogue
    from tui_agent.ui.hosts import ScreenNode
    from tui_agent.ui.widgets.attachment_chips import AttachmentChips
    from tui_agent.ui.widgets.hover_bar import HoverBar, HoverHost
    from tui_agent.ui.widgets.message_cursor import CursorHost, MessageCursor

    class LaterHost(ScreenNode, CursorHost, HoverHost, Protocol):
        """The chat screen the widgets are mounted on: what they are mounted with, and what the cursor and the
        hover bar find there as their screen."""


class LaterWidgets:
    """Mounts one chat screen's hidden-until-used widgets once, and hands them out."""

    def __init__(self, screen: LaterHost, commands: Callable[[], Catalogue] | None = None) -> None:
        """`commands`: the `/` commands in force, for the menu (none: no menu)."""
        self.screen = screen
        self._commands = commands
        self._widgets: tuple[AttachmentChips, MessageCursor, HoverBar] | None = None

    @property
    def mounted(self) -> bool:
        return self._widgets is not None

    def mount(self) -> tuple[AttachmentChips, MessageCursor, HoverBar]:
        """Mount them (once): the strip and the cursor above the prompt, the hover bar last, as composed before."""
        if self._widgets is None:
            # deferred: the frame after the first (LaterWidgets)
            from tui_agent.ui.widgets.attachment_chips import AttachmentChips
            from tui_agent.ui.widgets.hover_bar import HoverBar  # deferred: the frame after the first (LaterWidgets)

            # deferred: the frame after the first (LaterWidgets)
            from tui_agent.ui.widgets.message_cursor import MessageCursor

            chips, cursor, bar = (
                AttachmentChips(id="attachments"),
                MessageCursor(id="message-cursor"),
                HoverBar(id="hover-bar"),
            )
            self._widgets = (chips, cursor, bar)
            if prompt := self.screen.query(PromptInput):  # none once the screen is retired (emptied): nothing to mount
                above_prompt: list[Widget] = [chips, cursor, *self._menu(prompt.first())]
                self.screen.mount(*above_prompt, before=prompt.first())
                self.screen.mount(bar)
        return self._widgets

    def _menu(self, prompt: PromptInput) -> list[Widget]:
        """The `/` menu, handed to `prompt` (which opens it and gives it its keys)."""
        if self._commands is None:
            return []
        from tui_agent.ui.widgets.command_menu import CommandMenu  # deferred: the frame after the first (LaterWidgets)

        prompt.command_menu = CommandMenu(self._commands, clicked=prompt.menu_clicked, id="command-menu")
        return [prompt.command_menu]

    @property
    def attachment_chips(self) -> AttachmentChips:
        return self.mount()[0]

    @property
    def message_cursor(self) -> MessageCursor:
        return self.mount()[1]

    @property
    def hover_bar(self) -> HoverBar:
        return self.mount()[2]

    def hide_hover_bar(self) -> None:
        """The log scrolled: the bar goes (there is none to hide before it is mounted)."""
        if self._widgets is not None:
            self._widgets[2].hide()
