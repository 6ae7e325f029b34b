"""Provides `FilesScreen`: what bringing the files to another point of the conversation would change on disk,
shown before anything is written — a rewind, a switch to another branch, a regeneration or an edit of an
earlier prompt.

One line per file (`path  +N −M`, create, delete, or why it cannot be restored) and, below, the diff of the
highlighted one, from the disk as it is now to what it would hold. A file changed outside tui-agent since the
agent last wrote it is a conflict, marked ⚠ and kept as it is unless the person switches it to "take the
branch's" (space). Enter restores; `k` keeps every file as it is (the conversation still moves); Esc cancels
when the screen offers it (a rewind), else it keeps the files too.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Button, OptionList, Static
from textual.widgets.option_list import Option

from tui_agent.sanitize import reveal
from tui_agent.ui.widgets.file_changes import changes_view

if TYPE_CHECKING:
    from tui_agent.agent.rewind import FilesPlan, FileStep


class FilesAnswer(NamedTuple):
    """The person's answer: restore the files (the conflicting ones named in `overwrite` too), or keep them."""

    restore: bool
    overwrite: frozenset[str] = frozenset()


class FilesScreen(ModalScreen[FilesAnswer | None]):
    """A plan of files to restore; dismisses with the answer, or None (cancelled, where `cancel` is offered)."""

    DEFAULT_CSS = """
    FilesScreen { align: center middle; }
    FilesScreen > Vertical {
        width: 90%; max-width: 120; height: auto; max-height: 90%;
        border: thick $warning; background: $surface; padding: 0 1;
    }
    FilesScreen #files-title { text-style: bold; margin-bottom: 1; }
    FilesScreen #files-note { color: $text-muted; }
    FilesScreen OptionList { height: auto; max-height: 10; margin: 1 0; }
    FilesScreen #files-diff { height: auto; max-height: 20; border: round $panel; }
    FilesScreen #files-buttons { height: auto; margin-top: 1; }
    FilesScreen Button { margin-right: 2; }
    """

    BINDINGS = [
        Binding("enter", "answer('restore')", "Restore", show=False, priority=True, id="files_restore"),
        Binding("k", "answer('keep')", "Keep the files", show=False, id="files_keep"),
        Binding("space", "choose", "Keep mine / take the branch's", show=False, id="files_choose"),
        Binding("escape", "answer('cancel')", "Cancel", show=False, id="files_cancel"),
    ]

    def __init__(self, plan: FilesPlan, *, title: str, restore: str, keep: str | None, cancel: bool = False) -> None:
        super().__init__()
        self.plan, self._title, self._restore, self._keep, self._cancel = plan, title, restore, keep, cancel
        self.overwrite: set[str] = set()
        """The conflicting files the person chose to overwrite (space on their line)."""

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(Content(self._title), id="files-title")
            yield Static(Content(self._note()), id="files-note")
            yield OptionList(*(Option(self._line(step), id=str(i)) for i, step in enumerate(self.plan.steps)))
            with VerticalScroll(id="files-diff"):
                yield Static(id="files-diff-text")
            with Horizontal(id="files-buttons"):
                yield Button(f"{self._restore} (enter)", variant="warning", id="files-restore")
                if self._keep is not None:
                    yield Button(f"{self._keep} (k)", id="files-keep")
                if self._cancel:
                    yield Button("Cancel (esc)", id="files-cancel")

    def _note(self) -> str:
        count = len(self.plan.steps)
        note = f"{count} file{'s' * (count != 1)} would change on disk. Nothing is written until you choose."
        if self.plan.conflicts:
            note += " ⚠ marks files changed outside tui-agent: they are kept unless you press space on them."
        return note

    def _line(self, step: FileStep) -> Content:
        if step.conflict:
            choice = "take the branch's" if step.shown in self.overwrite else "keep mine"
            return Content.assemble(
                ("⚠ ", "$text-warning"), reveal(step.shown), "  ", (f"changed outside — {choice}", "$text-warning")
            )
        return Content.assemble("  ", (reveal(step.shown), "bold"), "  ", step.action)

    def on_mount(self) -> None:
        options = self.query_one(OptionList)
        options.focus()
        if self.plan.steps:
            options.highlighted = 0
            self._show_diff(0)

    def on_option_list_option_highlighted(self, event: OptionList.OptionHighlighted) -> None:
        self._show_diff(event.option_index)

    def _show_diff(self, index: int) -> None:
        step = self.plan.steps[index]
        text = Content(step.action) if step.problem is not None else Content("\n").join(changes_view([step.change]))
        self.query_one("#files-diff-text", Static).update(text)

    def action_choose(self) -> None:
        options = self.query_one(OptionList)
        index = options.highlighted
        if index is None or not self.plan.steps[index].conflict:
            return
        path = self.plan.steps[index].shown
        self.overwrite.symmetric_difference_update({path})
        options.replace_option_prompt_at_index(index, self._line(self.plan.steps[index]))

    def on_button_pressed(self, event: Button.Pressed) -> None:
        self.action_answer({"files-restore": "restore", "files-keep": "keep"}.get(event.button.id or "", "cancel"))

    def action_answer(self, choice: str) -> None:
        if choice == "restore":
            self.dismiss(FilesAnswer(True, frozenset(self.overwrite)))
        elif choice == "keep" and self._keep is None:
            return  # nothing to keep here (an undo): only restore or cancel
        elif choice == "keep" or not self._cancel:
            self.dismiss(FilesAnswer(False))
        else:
            self.dismiss(None)
