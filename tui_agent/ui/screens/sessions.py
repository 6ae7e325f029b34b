"""Provides `SessionsScreen`: every stored session, filtered as you type, to open, rename, fork or delete.

Typing filters by title and by full-text search over message content, on every branch (hits show a snippet),
over the whole history, a page at a time (the next when the list is read to its end).
Enter opens the highlighted session in the chat screen (resumed, history shown, on the branch of the search
hit); Ctrl+R renames, Ctrl+F forks from a
chosen message and opens the fork, Ctrl+D deletes after a confirmation, Ctrl+N starts a new session.
A sub-agent's session is listed under its parent's (`tui_agent.history.nesting`), indented and named after its
agent, when its parent is listed too.
An action that fails raises out of its worker; the app's one worker handler says why (a notification).
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from textual import work
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.content import Content
from textual.widgets import Input, OptionList, Static
from textual.widgets.option_list import Option

from tui_agent.agent.port import ChatBackend, ConversationPort
from tui_agent.agent.records import Session, SessionMatch, nest
from tui_agent.ui.screens.chat import ChatScreen
from tui_agent.ui.screens.reporting import ReportingScreen
from tui_agent.ui.screens.session_dialogs import ConfirmDeleteScreen, ForkScreen, RenameScreen, one_line
from tui_agent.ui.textual_private import let_switch_out

PAGE = 100
"""Sessions read at a time; the next page is read when the list is read or scrolled to its end."""
EVERY_MESSAGE = 1_000_000
"""A page size no session reaches: the whole active branch (read only when a search hit is opened)."""
HELP = "Enter open · Ctrl+R rename · Ctrl+F fork · Ctrl+D delete · Ctrl+N new session · Esc back"
BUSY_FORK = "A reply is running: let it finish (or stop it with Esc in the chat) before forking."


def last_activity(when: datetime) -> str:
    return when.strftime("%Y-%m-%d %H:%M")


Row = tuple[Session, str | None]
"""A session listed, and the search snippet that found it (None: found by title, or no filter)."""


def session_row(session: Session, snippet: str | None = None, *, current: bool = False, depth: int = 0) -> Content:
    """Title, then last activity, model and message count; a search snippet under it when there is one.
    `depth`: how far under its parent a sub-agent's session is, which its agent's name then leads."""
    count = f"{session.message_count} message{'s' if session.message_count != 1 else ''}"
    meta = " · ".join(part for part in (last_activity(session.updated_at), session.model or "", count) if part)
    indent = "    " * depth
    title = Content.assemble(indent, ("● " if current else "  ", "bold"))
    if depth and session.agent:
        title = Content.assemble(title, "↳ ", (one_line(session.agent, 30), "bold $accent"), " · ")
    title = Content.assemble(title, (one_line(session.title or "Untitled"), "bold"))
    lines = [title, Content.styled(f"{indent}  {meta}", "dim")]
    if snippet:
        lines.append(Content.styled(f"{indent}  {one_line(snippet, 100)}", "italic"))
    return Content("\n").join(lines)


async def open_on_branch(backend: ConversationPort, message_id: str) -> None:
    """Make the branch through a search hit active when the open session's active branch does not hold it
    (search covers every branch; a hit on the branch shown already leaves it as it is)."""
    shown = await backend.load_history(None, EVERY_MESSAGE)
    if all(message.id != message_id for message in shown):
        await backend.switch_branch(message_id)


def show_fresh_chat(app: App[Any], *, note: str | None = None, then_send: Sequence[str] = ()) -> None:
    """Close everything above the chat screen and replace it with a new one showing the current session
    (with `note` after it and `then_send` sent then: see `ChatScreen`).

    Runs as an app worker: the screen asking for it (this one, usually) is closed on the way.
    """
    app.run_worker(_replace_chat(app, note, then_send), group="fresh-chat", exclusive=True, exit_on_error=False)


async def _replace_chat(app: App[Any], note: str | None = None, then_send: Sequence[str] = ()) -> None:
    while len(app.screen_stack) > 1 and not isinstance(app.screen, ChatScreen):
        await app.pop_screen()
    old = app.screen
    if not isinstance(old, ChatScreen):
        return
    fresh = ChatScreen(old.engine, old.settings, note=note, then_send=then_send, unsent=old.take_unsent())
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

    def __init__(self, backend: ChatBackend) -> None:
        super().__init__()
        self.backend = backend
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
        page = await self.backend.find_sessions(query, PAGE)
        self._listed, self._rows, self.hits = query, [], {}
        self._add(page)

    @work(group="session-more", exclusive=True, exit_on_error=False)
    async def more(self) -> None:
        """Add the next page of the sessions listed."""
        query, offset = self._listed, len(self._rows)
        page = await self.backend.find_sessions(query, PAGE, offset)
        if (query, offset) == (self._listed, len(self._rows)):  # not listed anew meanwhile
            self._add(page)

    def _add(self, page: list[SessionMatch]) -> None:
        self._more = len(page) == PAGE
        for match in page:
            session, hit = match.session, match.hit
            self._rows.append((session, hit.snippet if hit is not None and not match.by_title else None))
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
        current = self.backend.current_session_id
        ordered = nest(rows, lambda row: row[0])
        self.sessions = {session.id: session for (session, _), _ in ordered}
        options.clear_options()
        shown = [(session_row(s, snip, current=s.id == current, depth=depth), s.id) for (s, snip), depth in ordered]
        options.add_options([Option(row, id=session_id) for row, session_id in shown])
        if rows:
            ids = list(self.sessions)
            options.highlighted = ids.index(keep) if keep in self.sessions else 0
        if not rows:
            text = "No session matches." if self.query_text else "No sessions yet: your first prompt starts one."
            options.add_option(Option(Content.styled(text, "dim"), disabled=True))

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
        """Resume the session and show it in a fresh chat screen (on the branch of the search hit, if any)."""
        await self.backend.open_session(session_id)
        if self.query_text and (hit := self.hits.get(session_id)) is not None:
            await open_on_branch(self.backend, hit)
        show_fresh_chat(self.app)

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
        await self.backend.new_session()
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
        await self.backend.rename_session(session.id, title)  # e.g. a history opened read-only raises
        self.notify(f"Renamed to {one_line(title)}.")
        self.refresh_list()

    @work(group="session-action", exclusive=True, exit_on_error=False)
    async def action_fork(self) -> None:
        """Fork the highlighted session from a chosen message and open the fork; refused, with nothing made,
        while a reply runs (the fork could not be opened until it ends)."""
        session = self.highlighted
        if session is None or self._refused_while_replying():
            return
        messages = await self.backend.session_messages(session.id)
        if not messages:
            self.notify("This session has no messages to fork from.", severity="warning")
            return
        message_id = await self.app.push_screen_wait(ForkScreen(session.title, messages))
        if not message_id or self._refused_while_replying():  # a queued prompt may have started a reply meanwhile
            return
        fork = await self.backend.fork_session(session.id, message_id)
        try:
            await self.backend.open_session(fork.id)
        except Exception:
            await self.backend.delete_session(fork.id)  # a fork that could not be opened is not left behind
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
        was_current = session.id == self.backend.current_session_id
        await self.backend.delete_session(session.id)
        self.chat_stale = self.chat_stale or was_current
        self.notify(f"Deleted {one_line(session.title)}.")
        self.refresh_list()
