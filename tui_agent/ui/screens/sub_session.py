"""Provides `SubSessionScreen`: a sub-agent's stored session, read only, over the chat, and `show_sub_session`,
which the chat screen runs when an `ask_*` call's panel asks for it (`o`).

A live call's panel knows its sub-agent's session from its events; a resumed one knows only the call, so the
session is looked up among the stored ones: the child of the call's message run by the call's agent (the
n-th of them for the n-th such call of the message). The screen shows the messages as plain, sanitised text
(the task it was given, its replies with their reasoning as one line, its tool calls one line each), each
cut at `MESSAGE_CHARS`; Esc closes it, Ctrl+O opens the session as the current one instead (when no turn
runs). A failure to find or read it is said in a notification; the chat goes on.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.content import Content
from textual.widgets import Static

from tui_agent.errors import user_message
from tui_agent.sanitize import reveal, sanitize
from tui_agent.status import Role
from tui_agent.ui.fresh_chat import FreshChatWanted
from tui_agent.ui.screens.reporting import ReportingModal
from tui_agent.ui.screens.session_dialogs import one_line
from tui_agent.ui.widgets.tool_status import STATUS_LABEL

if TYPE_CHECKING:
    from textual.app import App

    from tui_agent.agent.port import SessionLibrary
    from tui_agent.agent.records import Message
    from tui_agent.tool_call import ToolCall
    from tui_agent.ui.engine import EngineSlot
    from tui_agent.ui.widgets.tool_panel import ToolPanel, ToolPanels

    class SubSessionHost(Protocol):
        """What showing a sub-agent's session uses of the chat screen."""

        @property
        def app(self) -> App[Any]: ...

        @property
        def engine(self) -> EngineSlot: ...

        @property
        def tool_panels(self) -> ToolPanels: ...

        @property
        def idle(self) -> bool: ...


MESSAGE_CHARS = 20_000
"""Characters of one message shown (an export has them all)."""
LOOKUP_LIMIT = 1000
"""Stored sessions searched for a resumed call's sub-agent session (most recent first)."""


async def find_sub_session(library: SessionLibrary, call: ToolCall, agent: str, nth: int = 0) -> str | None:
    """The stored session agent `agent` ran for `call`: the `nth` (oldest first) child of the call's message
    run by that agent; None when there is none (the call never ran, or history did not keep it)."""
    children = [
        session
        for session in await library.list_sessions(limit=LOOKUP_LIMIT)
        if session.parent_message_id == call.message_id and session.agent == agent
    ]
    children.sort(key=lambda session: session.created_at)
    return children[nth].id if nth < len(children) else None


async def show_sub_session(screen: SubSessionHost, panel: ToolPanel) -> None:
    """Show the session of the sub-agent `panel`'s call runs; open it as the current one if asked to."""
    run, app = panel.sub_agent, screen.app
    if run is None:
        return
    try:
        backend = await screen.engine.engine()
        if run.session_id is None:
            alike = [c.key for c in screen.tool_panels.calls_of(panel.call.message_id) if c.name == panel.call.name]
            run.session_id = await find_sub_session(backend, panel.call, run.agent, alike.index(panel.call.key))
        if run.session_id is None:
            app.notify(f"No stored session of {reveal(run.agent)} for this call.", severity="warning", markup=False)
            return
        messages = await backend.session_messages(run.session_id)
    except Exception as error:  # a session deleted meanwhile, history unavailable...
        app.notify(f"Could not open the session of {reveal(run.agent)}: {user_message(error)}", severity="error")
        return
    if not await app.push_screen_wait(SubSessionScreen(run.agent, messages)):
        return
    if not screen.idle:
        app.notify("A reply is running: press Esc to stop it before switching sessions.", severity="warning")
        return
    await backend.open_session(run.session_id)
    app.post_message(FreshChatWanted())


def message_view(message: Message, agent: str) -> Content:
    """One stored message as plain lines: who, reasoning folded, text (cut), tool calls."""
    who = {Role.USER: "task", Role.ASSISTANT: agent}.get(message.role, message.role.value)
    lines = [Content.styled(reveal(who), "bold $accent" if message.role is Role.ASSISTANT else "bold")]
    for kind, text in message.part_texts.items():
        name = "thought" if kind == "reasoning" else kind
        lines.append(Content.styled(f"▸ {name} · {len(text):,} chars", "dim italic"))
    text = sanitize(message.content)
    if len(text) > MESSAGE_CHARS:
        text = text[:MESSAGE_CHARS] + f"\n… {len(text) - MESSAGE_CHARS:,} more characters (export the session)"
    if text:
        lines.append(Content(text))
    for call in message.tool_calls:
        glyph = STATUS_LABEL[call.status].split(" ", 1)[0]
        outcome = one_line(call.result or call.error or "", 80)
        lines.append(Content.assemble(f"  {glyph} ", (reveal(call.name), "italic"), (f"  {outcome}", "dim")))
    return Content("\n").join(lines)


class SubSessionScreen(ReportingModal[bool]):
    """A sub-agent's session, read only; dismisses True when the person asks to open it as the current one."""

    DEFAULT_CSS = """
    SubSessionScreen { align: center middle; }
    #sub-session {
        width: 90%;
        height: 90%;
        border: thick $accent;
        background: $surface;
        padding: 0 1;
    }
    #sub-session-messages { height: 1fr; }
    #sub-session-messages Static { margin: 0 0 1 0; }
    #sub-session-help { height: 1; color: $text-muted; }
    """

    BINDINGS = [
        Binding("escape", "dismiss(False)", "Close", id="close_sub_session"),
        Binding("ctrl+o", "dismiss(True)", "Open as the current session", id="open_sub_session"),
    ]

    def __init__(self, agent: str, messages: list[Message]) -> None:
        super().__init__()
        self.agent = agent
        self.messages = messages

    def compose(self) -> ComposeResult:
        with Vertical(id="sub-session") as frame:
            frame.border_title = Content(f"Session of the sub-agent {reveal(self.agent)} (read only)")
            with VerticalScroll(id="sub-session-messages"):
                for message in self.messages:
                    yield Static(message_view(message, self.agent), classes="sub-session-message")
                if not self.messages:
                    yield Static(Content.styled("Nothing stored yet.", "dim"))
            yield Static(Content("Esc close · Ctrl+O open as the current session"), id="sub-session-help")

    def on_mount(self) -> None:
        self.query_one("#sub-session-messages").focus()
        self.query_one("#sub-session-messages", VerticalScroll).scroll_end(animate=False)
