"""Provides `ChatBackend`, the port a UI drives a chat session through.

The agent implements the protocol; the UI only consumes the `AgentEvent`s that `send` yields (approval
included: an `ApprovalRequested` event carries the future to resolve) and sends intents back (send, cancel).
Tests and benchmarks drive the same screen with a scripted backend.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:  # event and record classes load with the engine, after the first paint
    from tui_agent.agent.events import AgentEvent
    from tui_agent.agent.tree import TreeObserver, Unsubscribe
    from tui_agent.history.export import ExportFormat
    from tui_agent.history.models import Message, SearchHit, Session


class ChatBackend(Protocol):
    """A chat session as the screen sees it."""

    @property
    def model(self) -> str:
        """Model name for the status bar."""
        ...

    @property
    def endpoint(self) -> str:
        """"offline model" or the endpoint's host, for the status bar."""
        ...

    @property
    def session_title(self) -> str:
        """Current session title (may change after the first prompt)."""
        ...

    @property
    def session_usage(self) -> tuple[int, int]:
        """Tokens (in, out) the current session has used, earlier runs included."""
        ...

    @property
    def notices(self) -> list[str]:
        """Sentences to show once at start (recovered database, skipped plugins, offline model…)."""
        ...

    def start(self) -> None:
        """Begin any background preparation; called once the first frame is up. May do nothing."""

    def watch_unsaved(self, observer: Callable[[str | None], None]) -> Unsubscribe:
        """Tell `observer` what history is not saving and why ("database locked (3 pending)"; None: all is
        saved) now and whenever that changes; returns how to stop. May be called before the engine exists."""
        ...

    def send(self, prompt: str) -> AsyncIterator[AgentEvent]:
        """Run one turn, yielding its events up to and including `TurnFinished`."""
        ...

    def retry(self) -> AsyncIterator[AgentEvent]:
        """Ask again for the session's last reply; it is kept in history as replaced (`ReplyReplaced` first)."""
        ...

    def continue_reply(self) -> AsyncIterator[AgentEvent]:
        """Have the model go on with the session's last reply; its text is added to that reply."""
        ...

    def cancel(self) -> None:
        """Cancel the running turn (no-op when idle); the event stream then ends with an interrupted turn."""

    def subscribe_tree(self, observer: TreeObserver) -> Unsubscribe:
        """Follow the live task tree (commander node events; each tool call is a node); returns how to stop.

        May be called before the engine exists; the subscription then starts when it does.
        """
        ...

    def cancel_node(self, node_id: int | str) -> bool:
        """Cancel one running node of the task tree and its subtree; False if it is not running."""
        ...

    # -- sessions (the session screen, resume, export) --------------------------------------------
    @property
    def current_session_id(self) -> str | None:
        """The session being continued; None until a new one gets its first prompt."""
        ...

    async def load_history(self, before_position: int | None = None, limit: int = 50) -> list[Message]:
        """A page of the current session oldest first: the newest `limit`, or those before a position."""
        ...

    async def list_sessions(self, limit: int = 200) -> list[Session]:
        """Stored sessions, most recently active first."""
        ...

    async def search_sessions(self, query: str, limit: int = 50) -> list[SearchHit]:
        """Full-text search over every session's messages."""
        ...

    async def session_messages(self, session_id: str, limit: int = 500) -> list[Message]:
        """The last messages of any session, oldest first (to choose where to fork)."""
        ...

    async def rename_session(self, session_id: str, title: str) -> None: ...

    async def fork_session(self, session_id: str, message_id: str) -> Session:
        """A new session holding the messages up to and including `message_id` (not opened)."""
        ...

    async def delete_session(self, session_id: str) -> None:
        """Delete a session; deleting the current one starts a new one."""

    async def open_session(self, session_id: str) -> Session:
        """Make a stored session current: the next prompt continues it with its whole history."""
        ...

    async def new_session(self) -> None:
        """Start afresh: the next prompt creates a new session."""

    async def export_session(self, export_format: ExportFormat = "markdown") -> tuple[str, str] | None:
        """(title, Markdown or JSON) of the current session, or None before its first prompt."""
        ...

    # -- models (the palette's "Switch model") ----------------------------------------------------
    async def list_models(self) -> list[str]:
        """Model ids the endpoint offers; raises an error with a readable message when it cannot say."""
        ...

    def switch_model(self, name: str) -> None:
        """Use `name` from the next request on; the conversation and the session are kept."""

    async def close(self) -> None:
        """Cancel what runs and release resources; called when the app exits."""
