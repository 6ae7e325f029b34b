"""Provides `SessionsScreen`: every stored session, filtered as you type, to open, rename, fork or delete.

Typing filters by title and by full-text search over message content, on every branch (hits show a snippet),
over the whole history, a page at a time (the next when the list is read to its end).
Each row says when the session was last active ("2 min ago"), its agent, model, cost and the start of its last
reply, as many as its width holds (`session_rows`). Enter opens the highlighted session in the chat screen
(resumed, history shown; found by a message, on that message's branch, scrolled to it and marked); Ctrl+R
renames, Ctrl+F forks from a chosen message and opens the fork, Ctrl+D deletes after a confirmation, Ctrl+N
starts a new session. The screen asks the engine only for the stored sessions (a `SessionLibrary`).
A sub-agent's session is listed under its parent's (`tui_agent.history.nesting`), indented and named after its
agent, when its parent is listed too.
An action that fails raises out of its worker; the app's one worker handler says why (a notification).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from typing import Any

from textual import work
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.content import Content
from textual.widgets import Input, OptionList, Static
from textual.widgets.option_list import Option

from tui_agent.agent.port import SessionLibrary
from tui_agent.agent.records import Session, SessionMatch, nest
from tui_agent.ui.screens.chat import ChatScreen
from tui_agent.ui.screens.reporting import ReportingScreen
from tui_agent.ui.screens.session_dialogs import ConfirmDeleteScreen, ForkScreen, RenameScreen, one_line
from tui_agent.ui.screens.session_rows import session_row
from tui_agent.ui.textual_private import let_switch_out

PAGE = 50
"""Sessions read at a time; the next page is read when the list is read or scrolled to its end. Two lines a
row: a page fills a terminal 100 lines tall, and the screen waits for no more than it can show."""
HELP = "Enter open · Ctrl+R rename · Ctrl+F fork · Ctrl+D delete · Ctrl+N new session · Esc back"
BUSY_FORK = "A reply is running: let it finish (or stop it with Esc in the chat) before forking."


def local_now() -> datetime:
    return datetime.now(UTC)


Row = tuple[SessionMatch, str | None]
"""A session listed, and the search snippet that found it (None: found by title, or no filter)."""


def show_fresh_chat(
    app: App[Any], *, note: str | None = None, then_send: Sequence[str] = (), at: str | None = None
) -> None:
    """Close everything above the chat screen and replace it with a new one showing the current session
    (with `note` after it and `then_send` sent then; `at`: a message scrolled into view and marked instead of
    the end: see `ChatScreen`).

    Runs as an app worker: the screen asking for it (this one, usually) is closed on the way.
    """
    replace = _replace_chat(app, note, then_send, at)
    app.run_worker(replace, group="fresh-chat", exclusive=True, exit_on_error=False)


async def _replace_chat(
    app: App[Any], note: str | None = None, then_send: Sequence[str] = (), at: str | None = None
) -> None:
    while len(app.screen_stack) > 1 and not isinstance(app.screen, ChatScreen):
        await app.pop_screen()
    old = app.screen
    if not isinstance(old, ChatScreen):
        return
    fresh = ChatScreen(old.engine, old.settings, note=note, then_send=then_send, unsent=old.take_unsent(), at=at)
    # the app's first screen too: Textual removes every screen it switches out (its messages, timers and
    # workers end with it), so no replaced screen is left in the stack to be sent anything
    let_switch_out(old)
    await app.switch_screen(fresh)


class SessionsScreen(ReportingScreen[None]):
    """The session list."""

    DEFAULT_CSS = """
    SessionsScreen { layout: vertical; }
    #sessions-title { height: 1; padding: 0 1; text-style: bold; background: $panel; }
    #session-filter { margin: 0 1; }
    #session-list { height: 1fr; margin: 0 1; }
    #sessions-help { height: 1; padding: 0 1; color: $text-muted; }
    """
    BINDINGS = [
        Binding("escape", "back", "Back", priority=True, id="back"),
        Binding("down", "move(1)", "Next", show=False, priority=True, id="move(1)"),
        Binding("up", "move(-1)", "Previous", show=False, priority=True, id="move(-1)"),
        Binding("ctrl+r", "rename", "Rename", priority=True, id="rename"),
        Binding("ctrl+f", "fork", "Fork", priority=True, id="fork"),
        Binding("ctrl+d", "delete", "Delete", priority=True, id="delete"),
        Binding("ctrl+n", "new", "New session", priority=True, id="new"),
    ]

    def __init__(self, library: SessionLibrary, *, now: Callable[[], datetime] = local_now) -> None:
        """`library`: the stored sessions (all this screen asks of the engine); `now`: the clock the rows' "2 min
        ago" is counted from."""
        super().__init__()
        self.library = library
        self.now = now
        self.sessions: dict[str, Session] = {}
        """The sessions listed now, by id, in list order."""
        self.chat_stale = False
        """The chat screen shows a session that no longer exists (deleted here)."""
        self.hits: dict[str, str] = {}
        """The best search hit's message in each session listed for it: opening the session shows its branch."""
        self._rows: list[Row] = []
        """What is listed: the pages read so far."""
        self._listed = ""
        """The filter the list shows the sessions of."""
        self._more = False
        """Whether more sessions may match than are listed (the last page read was full)."""

    def compose(self) -> ComposeResult:
        yield Static(Content("Sessions"), id="sessions-title")
        yield Input(placeholder="Filter: words in titles or messages…", id="session-filter")
        yield OptionList(id="session-list")
        yield Static(Content(HELP), id="sessions-help")

    def on_mount(self) -> None:
        self.query_one(Input).focus()
        self.refresh_list()
        self.watch(self.option_list, "scroll_y", self._scrolled, init=False)

    @property
    def option_list(self) -> OptionList:
        return self.query_one(OptionList)

    @property
    def query_text(self) -> str:
        return self.query_one(Input).value.strip()

    @property
    def highlighted(self) -> Session | None:
        options = self.option_list
        if options.highlighted is None:
            return None
        return self.sessions.get(options.get_option_at_index(options.highlighted).id or "")

    # -- the list -----------------------------------------------------------------------------------
    def on_input_changed(self, event: Input.Changed) -> None:
        event.stop()
        self.refresh_list()

    @work(group="session-list", exclusive=True, exit_on_error=False)
    async def refresh_list(self) -> None:
        """List the first page of the sessions matching the filter (every session when it is empty), found
        in the whole history; the next page comes when the list is read to its end (`more`)."""
        query = self.query_text
        page = await self.library.find_sessions(query, PAGE)
        self._listed, self._rows, self.hits = query, [], {}
        self._add(page)

    @work(group="session-more", exclusive=True, exit_on_error=False)
    async def more(self) -> None:
        """Add the next page of the sessions listed."""
        query, offset = self._listed, len(self._rows)
        page = await self.library.find_sessions(query, PAGE, offset)
        if (query, offset) == (self._listed, len(self._rows)):  # not listed anew meanwhile
            self._add(page)

    def _add(self, page: list[SessionMatch]) -> None:
        self._more = len(page) == PAGE
        for match in page:
            session, hit = match.session, match.hit
            self._rows.append((match, hit.snippet if hit is not None and not match.by_title else None))
            if hit is not None:
                self.hits.setdefault(session.id, hit.message_id)
        self._show(self._rows)

    def on_option_list_option_highlighted(self, event: OptionList.OptionHighlighted) -> None:
        """The last session listed is highlighted: the next page joins (if there is more)."""
        if self._more and event.option_index >= len(self.sessions) - 1:
            self.more()

    def _scrolled(self) -> None:
        """The list is scrolled to its end: the next page joins (if there is more)."""
        options = self.option_list
        if self._more and options.scroll_y >= options.max_scroll_y:
            self.more()

    def _show(self, rows: list[Row]) -> None:
        options = self.option_list
        keep = self.highlighted.id if self.highlighted else None
        current, now, width = self.library.current_session_id, self.now(), self._row_width()
        ordered = nest(rows, lambda row: row[0].session)
        self.sessions = {match.session.id: match.session for (match, _), _ in ordered}
        options.clear_options()
        options.add_options(
            [
                Option(
                    session_row(
                        match.session,
                        match.glance,
                        now,
                        width,
                        snippet=snip,
                        current=match.session.id == current,
                        depth=depth,
                    ),
                    id=match.session.id,
                )
                for (match, snip), depth in ordered
            ]
        )
        if rows:
            ids = list(self.sessions)
            options.highlighted = ids.index(keep) if keep in self.sessions else 0
        if not rows:
            text = "No session matches." if self.query_text else "No sessions yet: your first prompt starts one."
            options.add_option(Option(Content.styled(text, "dim"), disabled=True))

    def _row_width(self) -> int:
        """Columns a row has (the list's, less its padding and scroll bar; 76 before it is laid out)."""
        width = self.option_list.scrollable_content_region.width
        return width - 2 if width > 10 else 76

    def on_resize(self) -> None:
        """Rows are fitted to the width: fit them again."""
        if self._rows:
            self._show(self._rows)

    def action_move(self, step: int) -> None:
        options = self.option_list
        if self.sessions:
            now = options.highlighted if options.highlighted is not None else -step
            options.highlighted = max(0, min(len(self.sessions) - 1, now + step))

    # -- open ---------------------------------------------------------------------------------------
    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        if (session := self.highlighted) is not None:
            self.open(session.id)

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        if event.option.id in self.sessions:
            self.open(event.option.id)

    @work(group="session-action", exclusive=True, exit_on_error=False)
    async def open(self, session_id: str) -> None:
        """Resume the session and show it in a fresh chat screen; found by a message, on that message's branch,
        the message scrolled into view and marked."""
        hit = self.hits.get(session_id) if self.query_text else None
        await self.library.open_session(session_id, at=hit)
        show_fresh_chat(self.app, at=hit)

    def action_back(self) -> None:
        self.leave()

    @work(group="session-action", exclusive=True, exit_on_error=False)
    async def leave(self) -> None:
        if self.chat_stale:
            show_fresh_chat(self.app)
        else:
            self.dismiss()

    @work(group="session-action", exclusive=True, exit_on_error=False)
    async def action_new(self) -> None:
        await self.library.new_session()
        show_fresh_chat(self.app)

    # -- rename, fork, delete -----------------------------------------------------------------------
    @work(group="session-action", exclusive=True, exit_on_error=False)
    async def action_rename(self) -> None:
        session = self.highlighted
        if session is None:
            return
        title = await self.app.push_screen_wait(RenameScreen(session.title))
        if not title:
            return
        await self.library.rename_session(session.id, title)  # e.g. a history opened read-only raises
        self.notify(f"Renamed to {one_line(title)}.")
        self.refresh_list()

    @work(group="session-action", exclusive=True, exit_on_error=False)
    async def action_fork(self) -> None:
        """Fork the highlighted session from a chosen message and open the fork; refused, with nothing made,
        while a reply runs (the fork could not be opened until it ends)."""
        session = self.highlighted
        if session is None or self._refused_while_replying():
            return
        messages = await self.library.session_messages(session.id)
        if not messages:
            self.notify("This session has no messages to fork from.", severity="warning")
            return
        message_id = await self.app.push_screen_wait(ForkScreen(session.title, messages))
        if not message_id or self._refused_while_replying():  # a queued prompt may have started a reply meanwhile
            return
        fork = await self.library.fork_session(session.id, message_id)
        try:
            await self.library.open_session(fork.id)
        except Exception:
            await self.library.delete_session(fork.id)  # a fork that could not be opened is not left behind
            raise
        self.app.notify(f"Forked into {one_line(fork.title)}.")
        show_fresh_chat(self.app)

    def _refused_while_replying(self) -> bool:
        """Whether a reply runs (or prompts wait for one) in the chat screen under this one: then say so."""
        replying = any(isinstance(s, ChatScreen) and not s.retired and not s.idle for s in self.app.screen_stack)
        if replying:
            self.notify(BUSY_FORK, severity="warning")
        return replying

    @work(group="session-action", exclusive=True, exit_on_error=False)
    async def action_delete(self) -> None:
        session = self.highlighted
        if session is None:
            return
        if not await self.app.push_screen_wait(ConfirmDeleteScreen(session.title)):
            return
        was_current = session.id == self.library.current_session_id
        await self.library.delete_session(session.id)
        self.chat_stale = self.chat_stale or was_current
        self.notify(f"Deleted {one_line(session.title)}.")
        self.refresh_list()
