"""Provides `FilePicker`: the fuzzy file picker `@` opens in the prompt; it returns the chosen path (relative to
the working directory), the chosen MCP resource (a `ResourcePick`), or None.

The MCP servers' resources and resource templates are listed first, each under its server's name
(`notes: notes://readme — What the notes are`), filtered by the same query.

The files are listed by `FileIndex` in a thread (git's list in a repository, so `.gitignore` holds; a walk
elsewhere) and the list fills as they arrive: the first matches show within a frame or two even on a tree of
100,000 files. Typing filters (a fuzzy match: the letters in order), Up/Down move, Enter chooses, Esc closes.
Filtering a long list runs in a thread too, the newest query winning.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Input, OptionList, Static
from textual.widgets.option_list import Option

from tui_agent.sanitize import sanitize
from tui_agent.ui.file_index import SHOWN, FileIndex, best_matches

if TYPE_CHECKING:  # the picker opens after the first frame; the records with it
    from tui_agent.agent.records import ResourcePick

POLL = 0.03
"""Seconds between looks at the growing list while it is being made."""


RESOURCE_ID = "mcp-resource:"
"""Starts the option id of an MCP resource (then its index in `resources`)."""


class FilePicker(ModalScreen["str | ResourcePick | None"]):
    """Choose a file of `root`, or one of `resources`, to attach."""

    DEFAULT_CSS = """
    FilePicker {
        align: center bottom;
    }
    FilePicker > Vertical {
        width: 90%;
        max-width: 120;
        height: auto;
        max-height: 24;
        margin-bottom: 4;
        border: round $accent;
        background: $panel;
        padding: 0 1;
    }
    FilePicker Input, FilePicker Input:focus {
        border: none;
        height: 1;
        padding: 0;
        background: $panel;
    }
    FilePicker OptionList {
        height: auto;
        max-height: 18;
        border: none;
        padding: 0;
    }
    FilePicker #picker-status {
        color: $text-muted;
    }
    """

    BINDINGS = [
        Binding("escape", "dismiss_picker", "Close", show=False, id="file_picker.close"),
        Binding("down", "move(1)", "Next", show=False, priority=True, id="file_picker.next"),
        Binding("up", "move(-1)", "Previous", show=False, priority=True, id="file_picker.previous"),
        Binding("enter", "choose", "Choose", show=False, priority=True, id="file_picker.choose"),
    ]

    def __init__(self, root: Path | None = None, resources: Sequence[ResourcePick] = ()) -> None:
        super().__init__()
        self.index = FileIndex(root or Path.cwd())
        self.resources = list(resources)
        self._by_label = {pick.label: number for number, pick in enumerate(self.resources)}
        self._shown_for: tuple[str, int, bool] | None = None
        """(query, files listed, listing done) the list is filtered for: nothing to redo while these stay."""
        self.shown_query: str | None = None
        """The query whose matches the list shows (None until the first are shown)."""

    def compose(self) -> ComposeResult:
        with Vertical():
            what = "a file or an MCP resource" if self.resources else "a file"
            yield Input(placeholder=f"Attach {what}: type to filter, Enter chooses, Esc closes", id="picker-query")
            yield OptionList(id="picker-files")
            yield Static("listing files…", id="picker-status")

    def on_mount(self) -> None:
        self.index.start()
        self.set_interval(POLL, self._refresh_matches)
        self._refresh_matches()

    def on_unmount(self) -> None:
        self.index.stop()

    @property
    def query_text(self) -> str:
        return self.query_one(Input).value

    @property
    def options(self) -> OptionList:
        return self.query_one(OptionList)

    @on(Input.Changed)
    def _query_changed(self) -> None:
        self._refresh_matches()

    def _refresh_matches(self) -> None:
        state = (self.query_text, len(self.index.files), self.index.done.is_set())
        if state != self._shown_for:
            self._shown_for = state
            self._filter(state[0], list(self.index.files))

    @work(thread=True, exclusive=True, group="picker-filter", exit_on_error=False)
    def _filter(self, query: str, files: list[str]) -> None:
        matches = best_matches(query, files)
        resources = best_matches(query, list(self._by_label)) if self._by_label else []
        self.app.call_from_thread(self._show, query, matches, len(files), resources)

    def _show(self, query: str, matches: list[str], listed: int, resources: Sequence[str] = ()) -> None:
        if query != self.query_text or not self.is_mounted:
            return  # a newer query's filter is on its way
        self.shown_query = query
        options = self.options
        chosen = options.highlighted
        options.clear_options()
        options.add_options(
            [Option(Content(f"⧉ {sanitize(label)}"), id=f"{RESOURCE_ID}{self._by_label[label]}") for label in resources]
        )
        options.add_options([Option(Content(sanitize(path)), id=path) for path in matches])
        if options.option_count:
            options.highlighted = min(chosen or 0, options.option_count - 1)
        done = self.index.done.is_set()
        more = f" (the best {SHOWN})" if len(matches) == SHOWN else ""
        what = "files" if done else "files so far"
        source = " · .gitignore respected" if self.index.source == "git" else ""
        served = f"{len(resources)} MCP resource{'s' if len(resources) != 1 else ''} · " if self.resources else ""
        self.query_one("#picker-status", Static).update(
            f"{served}{len(matches)} shown{more} of {listed:,} {what}{source}" if listed or done else "listing files…"
        )

    def action_move(self, step: int) -> None:
        options = self.options
        if options.option_count:
            current = options.highlighted if options.highlighted is not None else -1
            options.highlighted = max(0, min(options.option_count - 1, current + step))

    def action_choose(self) -> None:
        options = self.options
        if options.highlighted is None or not options.option_count:
            return
        self._choose(options.get_option_at_index(options.highlighted).id)

    @on(OptionList.OptionSelected)
    def _clicked(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self._choose(event.option.id)

    def _choose(self, option: str | None) -> None:
        if option is not None and option.startswith(RESOURCE_ID):
            self.dismiss(self.resources[int(option.removeprefix(RESOURCE_ID))])
        else:
            self.dismiss(option)

    def action_dismiss_picker(self) -> None:
        self.dismiss(None)
