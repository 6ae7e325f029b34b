"""Provides `SideColumns`: on a narrow screen the conversation keeps the width.

Below `NARROW` columns the tool column and the task tree fold away by themselves (at 40 columns they left the
conversation 8 characters), as the tool column does before the session's first call; when the screen widens
again they come back as they were. Ctrl+B and Ctrl+T still show them on a narrow screen: the person asked.
Below `CROWDED` columns the task tree, once shown, takes the tool column's place (at 80 columns the two left the
conversation none), and the tool column comes back when the tree is hidden.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from textual.widget import Widget

    from tui_agent.ui.widgets.task_tree import TaskTree
    from tui_agent.ui.widgets.tool_panel import ToolPanels

NARROW = 60
"""Below this many columns the side columns fold away (the tool column alone takes 30 of them)."""
CROWDED = 110
"""Below this many columns the task tree and the tool column do not both fit (40 and 30, and the conversation's
40): the tree, asked for, is shown alone."""


class WithColumns(Protocol):
    """What of the chat screen the columns are folded in (it holds them, and the focus)."""

    @property
    def tool_panels(self) -> ToolPanels: ...

    @property
    def task_tree(self) -> TaskTree | None: ...

    @property
    def focused(self) -> Widget | None: ...


class SideColumns:
    """Folds one chat screen's tool column and task tree while the screen is narrow."""

    def __init__(self, screen: WithColumns) -> None:
        self.screen = screen
        self.narrow = False
        self._tree_folded = False
        """The task tree was shown when the screen became narrow: it comes back when it widens."""

    def fit(self, width: int) -> None:
        """The screen is `width` columns wide now (or the task tree was shown or hidden)."""
        narrow = width < NARROW
        tree = self.screen.task_tree
        crowded = narrow or (width < CROWDED and tree is not None and tree.display)
        if crowded != self.screen.tool_panels.narrow:
            self.screen.tool_panels.fit(crowded)
        if narrow == self.narrow:
            return
        self.narrow = narrow
        if tree is None:
            return
        if narrow and tree.display:
            self._tree_folded = True
            tree.hide()
        elif not narrow and self._tree_folded:
            self._tree_folded = False
            if not tree.display:
                focused = self.screen.focused
                tree.show()  # it takes the focus as Ctrl+T gives it; a resize leaves it where it was
                if focused is not None:
                    focused.focus()
