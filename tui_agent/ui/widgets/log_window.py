"""Provides `LogWindow`: a scrolling list of entries of which only a window stays mounted.

Frame cost must not grow with history: Textual lays out every mounted widget on every frame. Entries outside
the window are let go, above or below it, and mounted again (as copies) a page at a time when the person
scrolls to that edge; the entries at the other edge are let go in turn, and what is on screen stays where it
was. Pages and the window are bounded by entries and by characters of replies: a page of 50 KB replies is a
few of them (thousands of rows already), not twenty, each a widget the frame that mounts it lays out. Two hint
lines say how many entries wait above and below; an empty log may show a welcome until its first entry.
`ChatLog` is the conversation built on it.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from itertools import chain
from typing import TYPE_CHECKING, cast

from textual.containers import VerticalScroll
from textual.content import Content
from textual.message import Message
from textual.widget import AwaitMount, Widget
from textual.widgets import Static

if TYPE_CHECKING:
    from tui_agent.ui.widgets.let_go import LetGo
    from tui_agent.ui.widgets.messages import Entry

HINT_IDS = frozenset({"earlier", "later", "welcome"})
"""The two lines saying how many entries are let go above and below; every other child is an entry."""
KEEP_MOUNTED = 30
"""Entries left mounted after letting some go."""
TRIM_AT = 45
"""Let entries go once this many are mounted (the gap keeps it rare)."""
PAGE = 20
"""Entries mounted again per scroll to an edge."""
PAGE_CHARS = 64_000
"""Characters of replies mounted per page at most (at least one entry; a page read from history too)."""
KEEP_CHARS = 200_000
"""Characters of replies left mounted after letting some go (at least one entry)."""
TRIM_AT_CHARS = 300_000
"""Let entries go once this many characters of replies are mounted."""


def entry_chars(entry: Widget) -> int:
    """What an entry weighs in a page: a reply's length (other entries are a few lines)."""
    # deferred: the message widgets load with the first message
    from tui_agent.ui.widgets.messages import AssistantMessage

    return len(entry.text) if isinstance(entry, AssistantMessage) else 0


def fit(sizes: Sequence[int], most: int, chars: int) -> int:
    """How many of the entries weighing `sizes`, counted from the end, make at most `most` entries and `chars`
    characters (at least one, when there is one)."""
    total = count = 0
    for size in reversed(sizes):
        if count >= most or (count and total + size > chars):
            break
        total, count = total + size, count + 1
    return count


class LogWindow(VerticalScroll):
    """Entries in a window of mounted widgets, the rest let go above and below (see the module)."""

    class WindowMoved(Message):
        """Assistant messages were let go or mounted again (the tool panels hide the calls of those let go)."""

        def __init__(self, let_go: frozenset[str]) -> None:
            super().__init__()
            self.let_go = let_go

    def __init__(self, *, id: str | None = None) -> None:  # noqa: A002
        super().__init__(id=id)
        self._welcome: Widget | None = None
        """What an empty session shows (id "welcome") until its first message (tui-agent's own lines go above)."""
        self._above: list[LetGo] = []
        """Entries let go above the window, oldest first (copies are mounted again)."""
        self._below: list[LetGo] = []
        """Entries let go below the window, oldest first."""
        self._let_go: frozenset[str] = frozenset()
        self._counts: tuple[int, int] | None = None

    def compose(self):  # type: ignore[no-untyped-def]
        yield Static(id="earlier", classes="log-hint")
        yield Static(id="later", classes="log-hint")

    def on_mount(self) -> None:
        self.anchor()
        self._window_changed()

    @property
    def entries(self) -> list[Entry]:
        return cast("list[Entry]", [child for child in self.children if child.id not in HINT_IDS])

    @property
    def hidden_count(self) -> int:
        """Entries let go above the window (scrolling to the top mounts them again)."""
        return len(self._above)

    @property
    def later_count(self) -> int:
        """Entries let go below the window (scrolling to the bottom mounts them again)."""
        return len(self._below)

    def _add(self, widget: Entry) -> None:
        # deferred: the message widgets load with the first message
        from tui_agent.ui.widgets.messages import SystemLine

        if self._welcome is not None and isinstance(widget, SystemLine):
            self.mount(widget, before=self._welcome)  # "the offline model answers" stays above the welcome
            return
        self._end_welcome()
        if self._below:
            self._back_to_newest()
        in_view = self._in_view()
        self.mount(widget, before=self._later_hint)
        if self.scroll_y >= self.max_scroll_y - 1:
            self._let_go_above(in_view)
        self._window_changed()

    @property
    def _later_hint(self) -> Static:
        return self.query_one("#later", Static)

    def _forget(self, entries: Sequence[Entry]) -> None:
        """`entries` are let go: whatever points at them by message id lets go too (the log's lookups)."""

    def _in_view(self) -> list[Entry]:
        """Mounted entries at least partly on screen (as last laid out)."""
        top, bottom = self.scroll_y, self.scroll_y + self.scrollable_content_region.height
        return [
            entry for entry in self.entries if entry.virtual_region.bottom > top and entry.virtual_region.y < bottom
        ]

    @staticmethod
    def _crowded(sizes: Sequence[int]) -> bool:
        """Are entries weighing `sizes` too many to keep mounted?"""
        return len(sizes) > TRIM_AT or sum(sizes) > TRIM_AT_CHARS

    def _let_go_above(self, in_view: Sequence[Entry]) -> None:
        """Too many mounted: let the oldest settled ones go, none on screen (stopping at one still changing)."""
        entries = self.entries
        sizes = [entry_chars(entry) for entry in entries]
        if not self._crowded(sizes):
            return
        first_in_view = min((entries.index(entry) for entry in in_view if entry in entries), default=len(entries))
        keep = fit(sizes, KEEP_MOUNTED, KEEP_CHARS)
        drop: list[Entry] = []
        for entry in entries[: min(len(entries) - keep, first_in_view)]:
            if not entry.settled:
                break
            drop.append(entry)
        self._forget(drop)
        self._above.extend(entry.let_go() for entry in drop)
        self.remove_children(drop)

    def _let_go_below(self, in_view: Sequence[Entry]) -> None:
        """Too many mounted: let the newest go, none on screen, only when nothing mounted still changes."""
        entries = self.entries
        sizes = [entry_chars(entry) for entry in entries]
        if not self._crowded(sizes) or not all(entry.settled for entry in entries):
            return
        last_in_view = max((entries.index(entry) for entry in in_view if entry in entries), default=-1)
        drop = entries[max(fit(sizes[::-1], KEEP_MOUNTED, KEEP_CHARS), last_in_view + 1) :]
        self._forget(drop)
        self._below[:0] = [entry.let_go() for entry in drop]
        self.remove_children(drop)
        self.anchor(False)  # the bottom of the window is not the newest entry: nothing to stay pinned to

    def _back_to_newest(self) -> None:
        """Something new arrives while the newest entries were let go: show them again, at the bottom."""
        mounted = self.entries
        self._forget(mounted)
        self._above += [entry.let_go() for entry in mounted] + self._below[:-KEEP_MOUNTED]
        newest, self._below = self._below[-KEEP_MOUNTED:], []
        self.remove_children(mounted)
        self.mount_all([entry.make() for entry in newest], before=self._later_hint)
        self.scroll_end(animate=False, immediate=False)
        self.anchor()

    def _window_changed(self) -> None:
        """Entries were let go or mounted again: update the hints, and tell the tool panels which replies
        are let go (worked out only when the counts moved: this runs for every entry added)."""
        counts = (len(self._above), len(self._below))
        if counts == self._counts:
            return
        self._counts = counts
        earlier = self.query_one("#earlier", Static)
        earlier.display = bool(self._above)
        earlier.update(Content(f"↑ {len(self._above)} earlier entries — scroll up to load them"))
        later = self._later_hint
        later.display = bool(self._below)
        later.update(Content(f"↓ {len(self._below)} later entries — scroll down to load them"))
        let_go = frozenset(entry.message_id for entry in chain(self._above, self._below) if entry.message_id)
        if let_go != self._let_go:
            self._let_go = let_go
            self.post_message(self.WindowMoved(let_go))

    def _keeping_view(self) -> Callable[[], None]:
        """Call the result after the next refresh: the entry at the top of the view is put back where it was."""
        top = self.scroll_y
        anchor = next((entry for entry in self.entries if entry.virtual_region.bottom > top), None)
        if anchor is None:
            return lambda: None
        offset = anchor.virtual_region.y - top

        def restore() -> None:
            if anchor.is_attached:
                self.scroll_to(y=anchor.virtual_region.y - offset, animate=False, immediate=True)

        return restore

    def watch_scroll_y(self, old_value: float, new_value: float) -> None:
        super().watch_scroll_y(old_value, new_value)
        if new_value <= 0 and self._above:
            self.run_worker(self.load_earlier(), group="log-page", exclusive=True)
        elif new_value >= self.max_scroll_y and new_value > old_value and self._below:
            self.run_worker(self.load_later(), group="log-page", exclusive=True)

    def prepend(self, widgets: Sequence[Widget]) -> AwaitMount:
        """Mount `widgets` above the window, letting the newest go if too many are mounted; the view stays."""
        restore, in_view = self._keeping_view(), self._in_view()
        mounted = self.mount_all(widgets, after=self.query_one("#earlier"))
        self._let_go_below(in_view)
        self._window_changed()
        self.call_after_refresh(restore)
        return mounted

    def append_settled(self, widgets: Sequence[Widget]) -> AwaitMount:
        """Mount finished entries at the bottom (a session's stored messages), then follow the newest; of long
        replies only the newest that make a page (the others wait above, let go). The top of the page is
        rendered once it is laid out, before a scroll up shows it."""
        if widgets:
            self._end_welcome()
        self.call_after_refresh(self._render_top)
        return self.mount_all(self._let_go_older(widgets), before=self._later_hint)

    async def show_from(self, widgets: Sequence[Widget], first: int) -> Widget:
        """Mount finished entries (a session's stored messages, into an empty log) so that `widgets[first]` is at
        the top of the view: a page from it on is mounted, those before it and after that page wait let go (a
        scroll up or down mounts them). The log follows the newest entry again once it is scrolled to it.
        Returns the entry shown first."""
        self._end_welcome()
        later = widgets[first:]
        count = fit([entry_chars(widget) for widget in reversed(later)], PAGE, PAGE_CHARS)
        self._above[:0] = [entry.let_go() for entry in cast("Sequence[Entry]", widgets[:first])]
        self._below[:0] = [entry.let_go() for entry in cast("Sequence[Entry]", later[count:])]
        target = later[0]
        self.anchor(False)  # the view starts at `target`, not at the newest entry
        await self.mount_all(later[:count], before=self._later_hint)
        self._window_changed()  # with nothing let go below, re-armed: followed again once scrolled down to it

        def into_view() -> None:
            if target.is_attached:
                self.scroll_to_widget(target, top=True, animate=False, immediate=True)

        self.call_after_refresh(into_view)
        return target

    def _render_top(self) -> None:
        # deferred: the message widgets load with the first message
        from tui_agent.ui.widgets.messages import AssistantMessage

        first = next((entry for entry in self.entries if isinstance(entry, AssistantMessage)), None)
        if first is None or not first.size.width:
            return
        # the width it is laid out at next: a scroll bar the page brought may not have taken its column yet
        width = self.scrollable_content_region.width - first.styles.gutter.width - first.styles.margin.width
        first.prepare(width, first_rows=self.size.height)

    async def add_older(self, widgets: Sequence[Widget]) -> None:
        """Entries older than all the log holds (a page read from history), above the view, which stays; of long
        replies only the newest that make a page (the others wait above, let go)."""
        newest = self._let_go_older(widgets)
        await self.prepared(newest)
        await self.prepend(newest)

    def _let_go_older(self, widgets: Sequence[Widget]) -> Sequence[Widget]:
        """The newest of `widgets` (older than every entry) that make a page of `PAGE_CHARS`, letting the others go
        before they were ever mounted."""
        count = fit([entry_chars(widget) for widget in widgets], len(widgets), PAGE_CHARS)
        if count == len(widgets):
            return widgets
        older = cast("Sequence[Entry]", widgets[: len(widgets) - count])
        self._above[:0] = [entry.let_go() for entry in older]
        self._window_changed()
        return widgets[len(widgets) - count :]

    def show_welcome(self, welcome: Widget) -> None:
        """Show `welcome` (id "welcome") while the session has no message (tui-agent's own lines stay above)."""
        # deferred: the message widgets load with the first message
        from tui_agent.ui.widgets.messages import SystemLine

        if self._welcome is None and all(isinstance(entry, SystemLine) for entry in self.entries):
            self._welcome = welcome
            self.mount(welcome, before=self._later_hint)
            self.call_after_refresh(self._welcome_from_the_top)

    def _welcome_from_the_top(self) -> None:
        """A welcome taller than the log (80×24) is read from its first line, what this is and which model
        answers, not from its last: the log stops following its end until the first message."""
        if self._welcome is not None:
            self.anchor(False)
            self.scroll_home(animate=False, immediate=True)

    def _end_welcome(self) -> None:
        """The session has a message: the welcome gives way to it, for good, and the log follows the newest."""
        if self._welcome is not None:
            self._welcome.remove()
            self._welcome = None
            self.anchor()

    @property
    def welcome_shown(self) -> bool:
        """The empty session's welcome is shown (no message yet)."""
        return self._welcome is not None

    async def prepared(self, widgets: Sequence[Widget]) -> None:
        """Render replies' markdown before they are mounted, one at a time between frames (input stays
        live), at the width replies on screen have: the frame that shows them then only arranges them."""
        # deferred: the message widgets load with the first message
        from tui_agent.ui.widgets.messages import AssistantMessage

        shown = next((entry for entry in self.entries if isinstance(entry, AssistantMessage)), None)
        width = shown.size.width if shown is not None else 0
        replies = [widget for widget in widgets if isinstance(widget, AssistantMessage)]
        if width <= 0 or not replies:
            return
        first, last, rows = replies[0], replies[-1], self.size.height  # the page's ends are what shows first
        for reply in replies:
            done = False
            while not done:  # a slice of settling at a time (a reply of megabytes takes many)
                done = reply.prepare(
                    width, first_rows=rows if reply is first else 0, last_rows=rows if reply is last else 0
                )
                await asyncio.sleep(0)

    async def load_earlier(self) -> None:
        """Mount the previous page of entries let go above the window."""
        if not self._above or self.scroll_y > 0:
            return
        page = self._above[-fit([entry.chars for entry in self._above], PAGE, PAGE_CHARS) :]
        copies = [entry.make() for entry in page]
        await self.prepared(copies)
        if self._above[-len(page) :] != page:
            return  # the log moved on while the page was being prepared
        del self._above[-len(page) :]
        await self.prepend(copies)

    async def load_later(self) -> None:
        """Mount the next page of entries let go below the window, letting the oldest go; the view stays."""
        if not self._below or self.scroll_y < self.max_scroll_y:
            return
        page = self._below[: fit([entry.chars for entry in reversed(self._below)], PAGE, PAGE_CHARS)]
        copies = [entry.make() for entry in page]
        await self.prepared(copies)
        if self._below[: len(page)] != page:
            return  # the log moved on while the page was being prepared
        del self._below[: len(page)]
        restore, in_view = self._keeping_view(), self._in_view()
        self.mount_all(copies, before=self._later_hint)
        self._let_go_above(in_view)
        self._window_changed()
        self.call_after_refresh(restore)
        if not self._below:
            self._rearm_anchor()

    def _rearm_anchor(self) -> None:
        """The newest entry is mounted again: stay pinned to it once the person scrolls down to it.

        Anchored but released, as after the person scrolled up. `anchor()` also jumps to the end of what is laid
        out now, so the view is put back at once, before any frame.
        """
        kept = self.scroll_y
        self.anchor()
        self.release_anchor()
        self.scroll_to(y=kept, animate=False, immediate=True, release_anchor=False)
