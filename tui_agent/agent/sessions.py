"""Provides `SessionActions`: what the agent does with stored sessions besides chatting in one.

List, search, rename, fork, delete, open (resume), start afresh and export — each a thin step over the
`HistoryStore`, kept here so `Agent` stays about turns. `Agent` mixes it in. The current session is a tree:
`siblings` and `switch_branch` walk it, and whatever changes the active branch rebuilds what the model is sent
from that branch alone (`_reload_conversation`; after a switch, at the next prompt, so walking branches reads
only the pages shown); `load_history` pages along it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from tui_agent.agent.conversation import Conversation
from tui_agent.agent.meter import estimate_tokens
from tui_agent.agent.turn import SessionTotals, TurnServices
from tui_agent.errors import UserError
from tui_agent.history import attachment_rows
from tui_agent.history.attachments import Attachment, AttachmentRef
from tui_agent.history.export import ExportFormat
from tui_agent.history.models import Message, SearchHit, Session, Siblings
from tui_agent.history.session_search import SessionMatch
from tui_agent.history.store import HistoryStore
from tui_agent.history.team_runs import TeamStop
from tui_agent.status import Role


class SessionBusyError(UserError, RuntimeError):
    """A session change was asked for while a reply is running."""


class NotInSessionError(UserError, LookupError):
    """A branch action named a message that is not in the current session (or of the wrong role)."""


BUSY_MESSAGE = "A reply is still running: press Esc to stop it first."


class SessionActions:
    """Session management for `Agent` (which provides the attributes declared here)."""

    store: HistoryStore
    system_prompt: str | None
    _session: Session | None
    _conversation: Conversation
    _services: TurnServices
    _switched: Session | None = None
    _team_stops: Mapping[str, TeamStop]
    """The current session's team stops (`team_stops`), read when it is opened and after each team run."""
    """A session whose branch was switched: the model's context is read from the new branch before the next prompt."""

    if TYPE_CHECKING:  # Agent's own resume rebuilds the conversation; `_turn_saved` waits for a turn's final writes

        async def resume(self, session_id: str) -> Session: ...

        async def _turn_saved(self) -> None: ...

    def _turn_running(self) -> bool:
        return getattr(self, "_job", None) is not None

    @property
    def current_session_id(self) -> str | None:
        """The id of the session being continued (None until the first prompt of a new one)."""
        return self._session.id if self._session is not None else None

    @property
    def team_stops(self) -> Mapping[str, TeamStop]:
        """Why each team run of the current session stopped, by the message it stopped after (as stored)."""
        return self._team_stops

    async def load_history(self, before_position: int | None = None, limit: int = 50) -> list[Message]:
        """A page of the current session, oldest first: the newest `limit`, or those before a position."""
        if self._session is None:
            return []
        await self._turn_saved()  # the last reply's final text, not the last streaming save
        if before_position is None:
            return await self.store.load_tail(self._session.id, limit)
        return await self.store.load_before(self._session.id, before_position, limit)

    async def siblings(self, message_id: str) -> Siblings:
        """The messages beside `message_id` (same parent, itself included), oldest first, and its index."""
        found = await self.store.siblings(message_id)
        if self._session is None or found.messages[found.index].session_id != self._session.id:
            raise NotInSessionError("That message is not in the current session.")
        return found

    async def switch_branch(self, message_id: str) -> str:
        """Make the branch through `message_id` active (down to its newest leaf) and the model's next context;
        returns that leaf's id. Tool calls come with the messages that made them."""
        if self._turn_running():
            raise SessionBusyError(BUSY_MESSAGE)
        await self._turn_saved()  # the branch is read after the last reply's final write
        session, _ = await self._message_here(message_id)
        leaf = await self.store.switch_to(message_id)
        self._switched = session  # read at the next prompt: switching back and forth costs no reading of the branch
        return leaf

    async def _context_after_switch(self) -> None:
        """Before a prompt is added: the model's context follows a branch switched to since the last turn."""
        switched, self._switched = self._switched, None
        if switched is not None and switched is self._session:
            await self._reload_conversation(switched)

    async def _message_here(self, message_id: str, role: Role | None = None) -> tuple[Session, Message]:
        """The current session and its message `message_id` (of `role`, when given)."""
        session = self._session
        found = await self.store.siblings(message_id) if session is not None else None
        message = found.messages[found.index] if found is not None else None
        if session is None or message is None or message.session_id != session.id:
            raise NotInSessionError("That message is not in the current session.")
        if role is not None and message.role is not role:
            raise NotInSessionError(f"That message is not a {'prompt' if role is Role.USER else 'reply'}.")
        return session, message

    async def prompt_attachments(self, message_id: str) -> list[Attachment]:
        """The files and images prompt `message_id` (of the current session) was sent with, with their bytes:
        an edit of it starts from them (one whose bytes are missing is left out)."""
        _, message = await self._message_here(message_id, Role.USER)
        data = await self.store.attachment_data(ref.hash for ref in message.attachments)
        return attachment_rows.restore([message], data).get(message.id, [])

    async def stored_attachments(self, refs: Sequence[AttachmentRef]) -> list[Attachment]:
        """The files and images `refs` name, with their stored bytes (one no longer stored is left out)."""
        data = await self.store.attachment_data(ref.hash for ref in refs)
        return [Attachment.restored(ref, data[ref.hash]) for ref in refs if ref.hash in data]

    async def _reload_conversation(self, session: Session) -> None:
        """What the model sees, from the active branch (a replaced reply drops out)."""
        self._switched = None
        kept = await self.store.load_tail(session.id, await self.store.count_messages(session.id))
        refused = self._conversation.images_refused  # the same model: images stay left out (a retry after a 400)
        self._conversation = await self._conversation_of(kept, session)
        self._conversation.images_refused = refused
        self._services.meter.measure(kept, estimate_tokens(self._conversation.request()))

    async def _conversation_of(self, stored: list[Message], session: Session) -> Conversation:
        """What the model sees of `stored`, prompts with their files and images (their bytes read back)."""
        data = await self.store.attachment_data(attachment_rows.stored_hashes(stored))
        restored = attachment_rows.restore(stored, data)
        return Conversation.from_history(stored, session.system_prompt, restored, payloads=data)

    async def list_sessions(self, limit: int = 200) -> list[Session]:
        """Stored sessions, most recently active first."""
        await self._turn_saved()
        return await self.store.list_recent(limit)

    async def search_sessions(self, query: str, limit: int = 50) -> list[SearchHit]:
        """Messages in any session containing the words of `query`."""
        await self._turn_saved()
        return await self.store.search(query, limit)

    async def find_sessions(self, query: str, limit: int = 100, offset: int = 0) -> list[SessionMatch]:
        """Sessions whose title or messages hold the words of `query`, most recently active first, after the
        `offset` first: a page of the whole history (every session when `query` has no word)."""
        await self._turn_saved()
        return await self.store.find_sessions(query, limit, offset)

    async def session_messages(self, session_id: str, limit: int = 500) -> list[Message]:
        """The last `limit` messages of any session, oldest first (to pick one to fork from)."""
        await self._turn_saved()
        return await self.store.load_tail(session_id, limit)

    async def rename_session(self, session_id: str, title: str) -> None:
        await self.store.rename_session(session_id, title)
        if self._session is not None and self._session.id == session_id:
            self._session.title = title

    async def fork_session(self, session_id: str, message_id: str) -> Session:
        """A copy of the session up to and including `message_id` (not opened)."""
        await self._turn_saved()
        return await self.store.fork_session(session_id, message_id)

    async def delete_session(self, session_id: str) -> None:
        """Delete a session; deleting the current one starts a new one."""
        if self.current_session_id == session_id:
            await self.new_session()
        await self.store.delete_session(session_id)

    async def open_session(self, session_id: str) -> Session:
        """Continue a stored session (see `Agent.resume`)."""
        return await self.resume(session_id)

    async def new_session(self) -> None:
        """Start afresh: the next prompt creates a new session."""
        if self._turn_running():
            raise SessionBusyError(BUSY_MESSAGE)
        self._session, self._team_stops = None, {}
        self._conversation = Conversation(self.system_prompt)
        self._services.totals = SessionTotals()
        self._services.meter.reset()

    async def export_session(self, export_format: ExportFormat = "markdown") -> tuple[str, str] | None:
        """(title, Markdown or JSON) of the current session, tool calls included; None before the first prompt."""
        if self._session is None:
            return None
        await self._turn_saved()
        export = self.store.export_json if export_format == "json" else self.store.export_markdown
        return self._session.title, await export(self._session.id)
