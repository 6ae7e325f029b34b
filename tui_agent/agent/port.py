"""Provides the port a UI drives the agent through, split by concern so a screen (and a test double) names only
what it uses: `ConversationPort` (send, retry, continue, edit, regenerate, branches, cancel, the task tree),
`AgentsPort` (the agent or team answering), `UsagePort` (model, meter, context windows, compaction),
`SessionLibrary` (the stored sessions) and `ToolsPort` (the MCP servers; approvals come in a turn's events).
`ChatPort` is one session (conversation, agents, usage), `ChatBackend` all of them (what the app holds) and
`Engine` what building it hands the app.

The agent implements the port once (`tui_agent.agent.agent.Agent`; mypy checks it where
`tui_agent.agent.services.BuiltAgent.backend` returns it as a `ChatBackend`); the UI only consumes the
`AgentEvent`s a turn yields (approval included: an `ApprovalRequested` event carries the future to resolve) and
sends intents back (send, cancel, cancel a node).
Tests and benchmarks drive the same screens with `tui_agent.testing.ScriptedBackend`. The values the port's
methods take and return are history's; the UI names them through `tui_agent.agent.records`.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable, Collection, Mapping, Sequence
from typing import TYPE_CHECKING, Protocol, TypeAlias

if TYPE_CHECKING:  # the UI's first frame imports this module; event and record classes load with the engine
    from tui_agent.agent.compaction import Compaction
    from tui_agent.agent.events import AgentEvent
    from tui_agent.agent.meter import Meter
    from tui_agent.agent.rewind import FilesPlan, RestoreOutcome, Rewind
    from tui_agent.agent.tree import TreeObserver, Unsubscribe
    from tui_agent.agents.profiles import AgentProfile
    from tui_agent.commands.catalogue import SlashCommand
    from tui_agent.commands.command_files import Expansion
    from tui_agent.history.attachments import Attachment, AttachmentRef
    from tui_agent.history.export import ExportFormat
    from tui_agent.history.models import Message, SearchHit, Session, Siblings
    from tui_agent.history.peek import SessionPeek
    from tui_agent.history.session_search import SessionMatch
    from tui_agent.history.team_runs import TeamStop
    from tui_agent.tools.mcp.overview import ServerOverview as ServerOverview  # one of them, in that screen
    from tui_agent.tools.mcp.overview import ToolLine as ToolLine
    from tui_agent.tools.mcp.servers import McpServers as McpServers  # the MCP screen shows them (`ToolsPort`)
    from tui_agent.tools.modes import Permissions


EarlyPage: TypeAlias = "Callable[[int], Awaitable[SessionPeek | None]]"
"""Reads a resumed session's newest page (that many messages) without the engine; None: wait for it."""
NoticeObserver: TypeAlias = "Callable[[str], None]"
"""Told one sentence for the person (history saved again, an MCP server crashed...)."""


class ConversationPort(Protocol):
    """One session's conversation as a screen sees it: its pages and branches, the turns it sends (each an event
    stream), their cancelling and task tree, and what history and the run say meanwhile."""

    @property
    def session_title(self) -> str:
        """Current session title (may change after the first prompt)."""
        ...

    @property
    def current_session_id(self) -> str | None:
        """The session being continued; None until a new one gets its first prompt."""
        ...

    @property
    def team_stops(self) -> Mapping[str, TeamStop]:
        """Why each team run of the current session stopped, as stored, by the message it stopped after (the
        line is shown again there when the session is opened); empty when no team ran in it."""
        ...

    async def load_history(self, before_position: int | None = None, limit: int = 50) -> list[Message]:
        """A page of the current session's active branch oldest first: the newest `limit`, or those before a
        position (a retried reply comes with its retry, marked `replaced_by`); redraws a branch after a switch."""
        ...

    def watch_unsaved(self, observer: Callable[[str | None], None]) -> Unsubscribe:
        """Tell `observer` what history is not saving and why ("database locked (3 pending)"; None: all is
        saved) now and whenever that changes; returns how to stop."""
        ...

    def watch_notices(self, observer: NoticeObserver) -> Unsubscribe:
        """Tell `observer` each notice from now on (history's disk full / saved again, MCP servers' news)."""
        ...

    def send(self, prompt: str, attachments: Sequence[Attachment] = ()) -> AsyncIterator[AgentEvent]:
        """Run one turn (the prompt with its files and images), yielding its events up to and including
        `TurnFinished`."""
        ...

    def retry(self) -> AsyncIterator[AgentEvent]:
        """Regenerate the session's last reply (see `regenerate`)."""
        ...

    def regenerate(self, message_id: str, model: str | None = None) -> AsyncIterator[AgentEvent]:
        """Ask again for reply `message_id` (with `model` for this once, if given): a sibling reply to the same
        prompt on a new, active branch; the old one is kept, `replaced_by` the new (`ReplyReplaced` first)."""
        ...

    def edit(
        self, message_id: str, text: str, attachments: Sequence[Attachment] | None = None
    ) -> AsyncIterator[AgentEvent]:
        """Send `text` as a new version of user message `message_id` (a sibling on a new, active branch) and
        answer it; the turn's `TurnStarted.branches_from` names `message_id`. The old branch stays.
        `attachments`: the new version's files and images (None: the old version's)."""
        ...

    def continue_reply(self) -> AsyncIterator[AgentEvent]:
        """Have the model go on with the session's last reply (cut off, or failed with text): a sibling reply
        on a new, active branch, starting with its text (`AssistantMessageStarted.continues` names the cut-off
        one, which stays on its branch), the rest streamed after it."""
        ...

    async def prompt_attachments(self, message_id: str) -> list[Attachment]:
        """The files and images prompt `message_id` was sent with, with their bytes (an edit starts from them)."""
        ...

    async def stored_attachments(self, refs: Sequence[AttachmentRef]) -> list[Attachment]:
        """The files and images `refs` name, with the bytes history keeps for them, in order (Up in the prompt
        brings an earlier run's prompt back with them); one whose bytes are no longer stored is left out."""
        ...

    async def siblings(self, message_id: str) -> Siblings:
        """The messages beside `message_id` (itself included), oldest first, and its index (for `‹2/3›`)."""
        ...

    async def switch_branch(self, message_id: str) -> str:
        """Make the branch through `message_id` the active one (its newest leaf, returned): the model gets it
        next, and `load_history` pages along it (tool calls come with their messages)."""
        ...

    def cancel(self) -> None:
        """Cancel the running turn (no-op when idle); the event stream then ends with an interrupted turn."""

    def subscribe_tree(self, observer: TreeObserver) -> Unsubscribe:
        """Follow the live task tree (commander node events; each tool call is a node); returns how to stop."""
        ...

    def cancel_node(self, node_id: int | str) -> bool:
        """Cancel one running node of the task tree and its subtree; False if it is not running."""
        ...


class FilesPort(Protocol):
    """The files the conversation tree carries (`agent/file_rewinds.py`): plans shown to the person first, then
    restored on confirmation."""

    async def active_leaf(self) -> str | None:
        """The newest message of the active branch (None: no session yet)."""
        ...

    async def plan_rewind(self, message_id: str) -> Rewind:
        """What "rewind to here" on `message_id` does to the files and where the conversation goes on."""
        ...

    async def plan_files_before(self, message_id: str) -> FilesPlan:
        """The files brought back to the point before `message_id` (about to be regenerated or edited)."""
        ...

    async def plan_branch_files(self, left: str | None) -> FilesPlan:
        """The files brought from the branch left (its leaf) to the one now active."""
        ...

    async def plan_undo_restore(self) -> FilesPlan | None:
        """The last restore taken back; None when there was none."""
        ...

    async def restore_files(self, plan: FilesPlan, overwrite: Collection[str] = ()) -> RestoreOutcome:
        """Do `plan`; a conflicting file is overwritten only when named in `overwrite`."""
        ...


class AgentsPort(Protocol):
    """Who writes the session's replies: its agent (profile) and system prompt, or a team."""

    @property
    def agent(self) -> str:
        """The agent (profile) the session runs, for the status bar; "" when none (the config's settings)."""
        ...

    @property
    def session_system_prompt(self) -> str:
        """The system prompt the model is sent in this session ("" when there is none)."""
        ...

    def list_agents(self) -> list[AgentProfile]:
        """The agents a session may run, by name."""
        ...

    def memory_files(self) -> list[str]:
        """A line per memory file (AGENTS.md...) in the system prompt, and per file refused (`agents.memory`)."""
        ...

    async def reload_memory(self) -> list[str]:
        """Read the memory files again (one was edited: `/memory`, `#`), told from the next request on; returns
        `memory_files`' lines."""
        ...

    async def switch_agent(self, name: str) -> None:
        """Run agent `name` from the next turn on (its prompt, tools, model, budgets), stored with the session;
        an unknown name raises an error whose message lists the agents."""

    async def set_system_prompt(self, text: str) -> None:
        """Make `text` this session's system prompt from the next turn on, stored ("" for none)."""

    async def list_teams(self) -> list[tuple[str, str]]:
        """The teams that can run: (name, description), by name."""
        ...

    @property
    def team(self) -> str:
        """The team the session's prompts go to ("": its agent), as chosen, run, or restored on resume."""
        ...

    async def use_team(self, name: str | None) -> None:
        """Send the session's prompts to team `name` from now on (None: to its agent), stored with the session so
        a resume goes on with it; raises a `UserError` for a team that cannot run."""
        ...

    def run_team(self, name: str, prompt: str) -> AsyncIterator[AgentEvent]:
        """Have team `name` work on `prompt` in this session: every member turn's events (each reply's
        `AssistantMessageStarted.agent` names its member), a `TeamStopped` saying why, then one `TurnFinished`."""
        ...

    def pause_team(self) -> bool:
        """Have the team working now pause after the member speaking, so the person can speak (their next prompt
        to the team goes on from there); False when no team is working."""
        ...


class UsagePort(Protocol):
    """The model and what using it costs: model and endpoint, tokens, cost and context (the meter, the served
    context windows, compaction)."""

    @property
    def model(self) -> str:
        """Model name for the status bar."""
        ...

    @property
    def endpoint(self) -> str:
        """ "offline model" or the endpoint's host, for the status bar."""
        ...

    @property
    def session_usage(self) -> tuple[int, int]:
        """Tokens (in, out) the current session has used, earlier runs included."""
        ...

    @property
    def meter(self) -> Meter:
        """Cost (last reply, session) and context (tokens of the active branch, the model's window) now."""
        ...

    def learn_context_windows(self) -> asyncio.Future[None]:
        """Ask the endpoint, in the background and once, for its models' context windows (for the gauge); done
        once `meter` has them (or the endpoint said none)."""

    async def compact(self, *, auto: bool = False) -> Compaction:
        """Summarise the older turns into one message sent in their place from now on (in pieces when they do
        not fit the window at once); the originals stay in history and on screen, marked compacted. Raises a
        `UserError` saying why when it cannot; a failure pauses automatic compaction (`Meter.compacts_first`).
        `auto`: asked because the context is full, before a prompt."""
        ...

    async def list_models(self) -> list[str]:
        """Model ids the endpoint offers; raises an error with a readable message when it cannot say."""
        ...

    def switch_model(self, name: str) -> None:
        """Use `name` from the next request on; the conversation and the session are kept."""


class CommandsPort(Protocol):
    """The run's own `/` commands: the user's and the project's Markdown commands and the MCP servers' prompts
    (the built-in ones are the app's: `tui_agent.commands.catalogue.BUILTINS`)."""

    def slash_commands(self) -> list[SlashCommand]:
        """The commands as the `/` menu lists them (files first, then MCP prompts)."""
        ...

    async def expand_command(self, name: str, arguments: str) -> Expansion:
        """What command `name` sends, with `arguments` (what was typed after it) filled in, and who should answer
        it; raises `UserError` (an unknown name, a missing argument, a server's failure) with the sentence."""
        ...


class ChatPort(ConversationPort, AgentsPort, UsagePort, FilesPort, CommandsPort, Protocol):
    """One chat session as the chat screen sees it: its conversation, who answers, and the model's usage."""

    @property
    def permissions(self) -> Permissions:
        """The permission mode its tools run in (Shift+Tab cycles it)."""
        ...


class ToolsPort(Protocol):
    """The run's tool sources a screen shows (approvals come in a turn's events: `ApprovalRequested`)."""

    @property
    def mcp_servers(self) -> McpServers | None:
        """The run's MCP servers (for the MCP screen); None when there are none to show."""
        ...


class SessionLibrary(Protocol):
    """The stored sessions (the session screen, resume, export), and which of them is current."""

    @property
    def current_session_id(self) -> str | None:
        """The session being continued; None until a new one gets its first prompt."""
        ...

    async def list_sessions(self, limit: int = 200) -> list[Session]:
        """Stored sessions, most recently active first."""
        ...

    async def search_sessions(self, query: str, limit: int = 50) -> list[SearchHit]:
        """Full-text search over every session's messages."""
        ...

    async def find_sessions(self, query: str, limit: int = 100, offset: int = 0) -> list[SessionMatch]:
        """Sessions whose title or messages hold the words of `query`, most recently active first, after the
        `offset` first: a page of the whole history (every session when `query` has no word); each with its
        last reply and cost (`SessionMatch.glance`)."""
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

    async def open_session(self, session_id: str, at: str | None = None) -> Session:
        """Make a stored session current: the next prompt continues it with its whole history. `at`: a message
        of it (a search hit, on any branch): its branch becomes the active one when it is not already."""
        ...

    async def new_session(self) -> None:
        """Start afresh: the next prompt creates a new session."""

    async def export_session(self, export_format: ExportFormat = "markdown") -> tuple[str, str] | None:
        """(title, Markdown or JSON) of the current session, or None before its first prompt."""
        ...


class ChatBackend(ChatPort, SessionLibrary, Protocol):
    """A session and the library it belongs to: what the app holds once the engine is built."""


class Engine(ToolsPort, Protocol):
    """What building the engine hands the app: the backend, the run's tool sources (`ToolsPort`), what to say
    about start-up, how to shut down."""

    @property
    def backend(self) -> ChatBackend:
        """The session and the library."""
        ...

    @property
    def notices(self) -> list[str]:
        """Sentences to show once at start (recovered database, skipped plugins, offline model…)."""
        ...

    @property
    def resume_failure(self) -> str | None:
        """Why the session asked for on the command line could not be resumed (shown inline once)."""
        ...

    @property
    def alarms(self) -> list[str]:
        """Notices worth repeating after the app has gone (a history file moved aside)."""
        ...

    async def close(self) -> None:
        """Cancel what runs and release resources (once); called when the app exits."""
