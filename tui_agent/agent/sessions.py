"""Provides `SessionActions`: what the agent does with stored sessions besides chatting in one.

List (each session with its last reply and cost), search, rename, fork, delete, open (resume, on a search hit's
branch), start afresh and export — each a thin step over the `HistoryStore`, kept here so the agent stays about
turns. The current session is a tree: `siblings` and `switch_branch` walk it, and whatever changes the active branch
rebuilds what the model is sent from that branch alone (`ChatState.reload_conversation`; after a switch, at the next
prompt, so walking branches reads only the pages shown); `load_history` pages along it. It changes the session of a
`ChatState`, waits for `Turns`' writes, and has the agent's choice go on with what an opened session ran
(`restore`).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping, Sequence

from tui_agent.agent.chat_state import ChatState
from tui_agent.agent.chat_state import NotInSessionError as NotInSessionError
from tui_agent.agent.meter import estimate_tokens
from tui_agent.agent.turn import SessionTotals
from tui_agent.agent.turns import BUSY_MESSAGE, TurnInProgressError, Turns
from tui_agent.agents.memory import with_memory
from tui_agent.errors import UserError
from tui_agent.history import attachment_rows
from tui_agent.history.attachments import Attachment, AttachmentRef
from tui_agent.history.export import ExportFormat
from tui_agent.history.models import Message, SearchHit, Session, Siblings
from tui_agent.history.session_search import SessionMatch
from tui_agent.history.team_runs import TeamStop
from tui_agent.status import Role


class SessionBusyError(UserError, RuntimeError):
    """A session change was asked for while a reply is running."""


class SessionNotFoundError(LookupError):
    """No stored session has the given id (or id prefix)."""


class SessionActions:
    """The current session's pages and branches, and the stored sessions."""

    def __init__(self, state: ChatState, turns: Turns, restore: Callable[[Session], Awaitable[None]]) -> None:
        self._state, self._turns = state, turns
        self._restore = restore
        """Goes on with the agent, or the team, an opened session ran."""

    @property
    def current_session_id(self) -> str | None:
        """The id of the session being continued (None until the first prompt of a new one)."""
        session = self._state.session
        return session.id if session is not None else None

    @property
    def team_stops(self) -> Mapping[str, TeamStop]:
        """Why each team run of the current session stopped, by the message it stopped after (as stored)."""
        return self._state.team_stops

    async def resume(self, session_id: str) -> Session:
        """Continue a stored session: the model gets its whole history, tool calls and results included."""
        state, store = self._state, self._state.store
        if self._turns.busy:
            raise TurnInProgressError(BUSY_MESSAGE)
        await self._turns.saved()
        session = await store.get_session(session_id)
        if session is None:
            raise SessionNotFoundError(f"There is no session {session_id!r} (see `tui-agent sessions list`).")
        stored = await store.load_tail(session.id, await store.count_messages(session.id))
        state.session, state.team_stops = session, await store.team_stops(session.id)
        await self._restore(session)
        state.conversation = await state.conversation_of(stored, session)
        services = state.services
        services.totals = SessionTotals.of(stored)
        subs = await store.sub_usage(session.id)  # its sub-agents' tokens count in its total, as they did live
        services.totals.prompt_tokens += subs.prompt_tokens
        services.totals.completion_tokens += subs.completion_tokens
        sent = with_memory(state.conversation.request(), services.memory)  # the gauge counts the memory files
        services.meter.load(stored, session.model, estimate_tokens(sent))
        return session

    async def load_history(self, before_position: int | None = None, limit: int = 50) -> list[Message]:
        """A page of the current session, oldest first: the newest `limit`, or those before a position."""
        if self._state.session is None:
            return []
        await self._turns.saved()  # the last reply's final text, not the last streaming save
        if before_position is None:
            return await self._state.store.load_tail(self._state.session.id, limit)
        return await self._state.store.load_before(self._state.session.id, before_position, limit)

    async def siblings(self, message_id: str) -> Siblings:
        """The messages beside `message_id` (same parent, itself included), oldest first, and its index."""
        found = await self._state.store.siblings(message_id)
        if self._state.session is None or found.messages[found.index].session_id != self._state.session.id:
            raise NotInSessionError("That message is not in the current session.")
        return found

    async def switch_branch(self, message_id: str) -> str:
        """Make the branch through `message_id` active (down to its newest leaf) and the model's next context;
        returns that leaf's id. Tool calls come with the messages that made them."""
        if self._turns.running:
            raise SessionBusyError(BUSY_MESSAGE)
        await self._turns.saved()  # the branch is read after the last reply's final write
        session, _ = await self._state.message_here(message_id)
        leaf = await self._state.store.switch_to(message_id)
        self._state.switched = (
            session  # read at the next prompt: switching back and forth costs no reading of the branch
        )
        return leaf

    async def prompt_attachments(self, message_id: str) -> list[Attachment]:
        """The files and images prompt `message_id` (of the current session) was sent with, with their bytes:
        an edit of it starts from them (one whose bytes are missing is left out)."""
        _, message = await self._state.message_here(message_id, Role.USER)
        data = await self._state.store.attachment_data(ref.hash for ref in message.attachments)
        return attachment_rows.restore([message], data).get(message.id, [])

    async def stored_attachments(self, refs: Sequence[AttachmentRef]) -> list[Attachment]:
        """The files and images `refs` name, with their stored bytes (one no longer stored is left out)."""
        data = await self._state.store.attachment_data(ref.hash for ref in refs)
        return [Attachment.restored(ref, data[ref.hash]) for ref in refs if ref.hash in data]

    async def list_sessions(self, limit: int = 200) -> list[Session]:
        """Stored sessions, most recently active first."""
        await self._turns.saved()
        return await self._state.store.list_recent(limit)

    async def search_sessions(self, query: str, limit: int = 50) -> list[SearchHit]:
        """Messages in any session containing the words of `query`."""
        await self._turns.saved()
        return await self._state.store.search(query, limit)

    async def find_sessions(self, query: str, limit: int = 100, offset: int = 0) -> list[SessionMatch]:
        """Sessions whose title or messages hold the words of `query`, most recently active first, after the
        `offset` first: a page of the whole history (every session when `query` has no word)."""
        await self._turns.saved()
        return await self._state.store.find_sessions(query, limit, offset, self._state.services.meter.prices)

    async def session_messages(self, session_id: str, limit: int = 500) -> list[Message]:
        """The last `limit` messages of any session, oldest first (to pick one to fork from)."""
        await self._turns.saved()
        return await self._state.store.load_tail(session_id, limit)

    async def rename_session(self, session_id: str, title: str) -> None:
        await self._state.store.rename_session(session_id, title)
        if self._state.session is not None and self._state.session.id == session_id:
            self._state.session.title = title

    async def fork_session(self, session_id: str, message_id: str) -> Session:
        """A copy of the session up to and including `message_id` (not opened)."""
        await self._turns.saved()
        return await self._state.store.fork_session(session_id, message_id)

    async def delete_session(self, session_id: str) -> None:
        """Delete a session; deleting the current one starts a new one."""
        if self.current_session_id == session_id:
            await self.new_session()
        await self._state.store.delete_session(session_id)

    async def open_session(self, session_id: str, at: str | None = None) -> Session:
        """Continue a stored session (see `resume`); `at`: a message of it (a search hit, on any branch) whose
        branch is made the active one when it is not already."""
        session = await self.resume(session_id)
        if at is not None:
            shown = await self.load_history(None, await self._state.store.count_messages(session.id))
            if all(message.id != at for message in shown):
                await self.switch_branch(at)
        return session

    async def new_session(self) -> None:
        """Start afresh: the next prompt creates a new session."""
        if self._turns.running:
            raise SessionBusyError(BUSY_MESSAGE)
        self._state.start_afresh()

    async def export_session(self, export_format: ExportFormat = "markdown") -> tuple[str, str] | None:
        """(title, Markdown or JSON) of the current session, tool calls included; None before the first prompt."""
        if self._state.session is None:
            return None
        await self._turns.saved()
        export = self._state.store.export_json if export_format == "json" else self._state.store.export_markdown
        return self._state.session.title, await export(self._state.session.id)
