"""Provides the chat log's entries: user and assistant messages, status markers and inline errors (a reply's
reasoning is an entry of its own, `ThinkingBlock`, above the reply).

Untrusted text is sanitised and shown through `Content`/`Text` objects, never as markup. An assistant
message streams through `MarkdownView` with writes coalesced by time, not by delta: a delta only joins a
list; the first shows at once, later ones at most every `FLUSH_INTERVAL` seconds, or every
`FLUSH_SHARE`-th multiple of what the last flush cost when it cost more (with the rendering of the pieces
it settled, done after it), so a fast stream (or a costly tail) cannot saturate the event loop, whatever
the size of the deltas.
"""

from __future__ import annotations

import time
import zlib
from collections.abc import Sequence
from functools import partial
from typing import TYPE_CHECKING

from textual.content import Content
from textual.reactive import var
from textual.strip import Strip
from textual.timer import Timer
from textual.widget import Widget
from textual.widgets import Static

from tui_agent.sanitize import StreamSanitizer, sanitize
from tui_agent.status import MessageStatus
from tui_agent.ui.input_first import MAX_WAIT, keys_waiting
from tui_agent.ui.widgets.branch_mark import BranchMark, branch_css
from tui_agent.ui.widgets.let_go import LetGo
from tui_agent.ui.widgets.markdown_view import MarkdownView
from tui_agent.ui.widgets.thinking import ThinkingBlock

if TYPE_CHECKING:
    from tui_agent.agent.records import AttachmentRef

FLUSH_INTERVAL = 0.05
FLUSH_SHARE = 4
"""A flush waits at least this many times its predecessor's cost: the UI keeps most of its time for keys."""


USER_PREVIEW_LINES = 40
USER_PREVIEW_CHARS = 4000


def preview(text: str) -> str:
    """A very long prompt (a big paste) is shown by its beginning and its size; all of it is still sent."""
    lines = text.splitlines()
    if len(lines) <= USER_PREVIEW_LINES and len(text) <= USER_PREVIEW_CHARS:
        return text
    shown = "\n".join(lines[:USER_PREVIEW_LINES])[:USER_PREVIEW_CHARS]
    return f"{shown}\n… ({len(lines):,} lines, {len(text):,} characters in all)"


class UserMessage(Static):
    """What the person sent, shown literally."""

    DEFAULT_CSS = """
    UserMessage {
        margin: 1 0 0 0;
        padding: 0 1;
        border-left: outer $role-user;
        color: $role-user;
        background: $boost;
    }
    """ + branch_css("UserMessage")

    def __init__(self, prompt: str, message_id: str | None = None, attachments: Sequence[AttachmentRef] = ()) -> None:
        text = Content(preview(sanitize(prompt)))
        if attachments:  # the files and images it carried, as chips under its text
            chips = Content.styled(" ".join(sanitize(ref.label) for ref in attachments), "bold $accent")
            text = Content("\n").join([text, chips]) if prompt else chips
        super().__init__(text)
        self.prompt = prompt
        self.message_id = message_id
        """Its id in history: known when loaded, or once its turn has started (edit, branches)."""
        self.attachments = tuple(attachments)
        self.branch_mark = BranchMark(self)

    def on_mount(self) -> None:
        if self.message_id is not None:
            self.post_message(BranchMark.Wanted(self, self.message_id))

    def render_line(self, y: int) -> Strip:
        return self.branch_mark.highlighted(super().render_line(y), y)

    @property
    def settled(self) -> bool:
        return True

    def let_go(self) -> LetGo:
        return LetGo(partial(UserMessage, self.prompt, self.message_id, self.attachments))


class AssistantMessage(MarkdownView):
    """One assistant reply: streams as markdown, then settles into a single rendered block.

    Esc finishes it locally at once (`finish(..., closed=False)`); text the backend had already produced
    before the cancel took effect still lands until the backend closes the message, so the screen shows
    exactly what history keeps.
    """

    DEFAULT_CSS = """
    AssistantMessage {
        margin: 1 0 0 0;
        padding: 0 1;
        color: $role-assistant;
    }
    AssistantMessage.-interrupted {
        border-left: outer $warning;
    }
    AssistantMessage.-failed {
        border-left: outer $warning;
    }
    AssistantMessage.-replaced {
        color: $text-muted;
        max-height: 6;
    }
    AssistantMessage.-thought-only {
        display: none;
    }
    """ + branch_css("AssistantMessage")

    replaced = var(False, toggle_class="-replaced")
    """A retry replaced this reply: it is kept, dimmed and cut to a few lines, and no longer sent."""
    thought_only = var(False, toggle_class="-thought-only")
    """The reply is all reasoning: its thinking block shows it, and this empty widget is hidden."""

    def __init__(self, message_id: str) -> None:
        super().__init__()
        self.message_id = message_id
        self.status = MessageStatus.STREAMING
        self.closed = False
        """The backend has sent the message's final status; nothing more will be added."""
        self._sanitizer = StreamSanitizer()
        self._pending: list[str] = []
        self._last_flush = 0.0
        self._interval = FLUSH_INTERVAL
        self._timer: Timer | None = None
        self._held_since = 0.0
        """When a timed flush began waiting for the frame of a key on its way to the screen (0: none waits)."""
        self.branch_mark = BranchMark(self, self._version_known)

    def on_mount(self) -> None:
        self.post_message(BranchMark.Wanted(self, self.message_id))

    def _version_known(self, index: int, count: int) -> None:
        """A retried reply's note under it says which version it is, once that is known."""
        if self.replaced and isinstance(self.parent, Widget):
            siblings = list(self.parent.children)
            after = siblings.index(self) + 1 if self in siblings else len(siblings)
            if after < len(siblings) and isinstance(marker := siblings[after], MessageMarker):
                marker.show_version(index, count)

    def render_line(self, y: int) -> Strip:
        return self.branch_mark.highlighted(super().render_line(y), y)

    @property
    def streaming(self) -> bool:
        return self.status is MessageStatus.STREAMING

    @property
    def settled(self) -> bool:
        """Nothing will change any more."""
        return self.closed

    @classmethod
    def finished(
        cls, message_id: str, text: str, status: MessageStatus, replaced: bool = False, thought_only: bool = False
    ) -> AssistantMessage:
        """A reply as stored: its whole text, in its final status (`replaced`: a retry replaced it; `thought_only`:
        it is all reasoning, which its thinking block shows, so this empty widget is not)."""
        reply = cls(message_id)
        reply.set_text(text)
        reply.finish(status)
        reply.replaced = replaced
        reply.thought_only = thought_only
        return reply

    def let_go(self) -> LetGo:
        make = partial(
            AssistantMessage.finished, self.message_id, self.text, self.status, self.replaced, self.thought_only
        )
        return LetGo(make, self.message_id, len(self.text))

    def reopen(self) -> None:
        """The reply is being continued: it streams again, its new text after what it shows."""
        self.remove_class(f"-{self.status.value}")
        self.status, self.closed = MessageStatus.STREAMING, False
        self._sanitizer = StreamSanitizer()
        self.thaw()

    def append(self, chunk: str) -> None:
        """Add streamed text; it is drawn now if nothing was drawn in the last interval, else soon."""
        if self.closed:
            return
        self._pending.append(self._sanitizer.feed(chunk))
        if self._timer is None and not self._held_since:  # late chunks after Esc too: the turn may drain hundreds
            wait = self._last_flush + self._interval - time.monotonic()
            if wait <= 0:
                self._timed_flush()
            else:
                self._timer = self.set_timer(wait, self._timed_flush, name="stream-flush")

    def _timed_flush(self) -> None:
        """A flush on the stream's clock; a key on its way to the screen goes first: the flush (its batch of
        settling and rendering, ~30 ms) waits for the frame that shows the key, for `MAX_WAIT` at most."""
        self._timer = None
        now = time.monotonic()
        held = self._held_since or now
        if self.is_attached and keys_waiting(self.app) and now - held < MAX_WAIT:
            self._held_since = held
            self.call_after_refresh(self._after_key_frame)
            return
        self.flush()

    def _after_key_frame(self) -> None:
        if self._held_since:  # still held (a reply that finished meanwhile was flushed then)
            self._timed_flush()

    def flush(self) -> None:
        """Draw everything received so far."""
        if self._timer is not None:
            self._timer.stop()
            self._timer = None
        self._held_since = 0.0
        start = time.monotonic()
        if any(self._pending):
            self.set_text(self.text + "".join(self._pending))
        self._pending.clear()
        self._last_flush = time.monotonic()
        # the pieces a flush settles are rendered after it (in turns of their own, in frames): part of its cost
        cost = self._last_flush - start + self.take_render_seconds()
        self._interval = max(FLUSH_INTERVAL, FLUSH_SHARE * cost)

    def finish(self, status: MessageStatus, *, closed: bool = True) -> None:
        """The reply reached its final status (`closed=False`: shown as such before the backend confirms)."""
        if self.closed:
            return
        self.closed = closed
        if closed:
            self._pending.append(self._sanitizer.flush())
        self.flush()
        if status is not self.status:
            self.remove_class(f"-{self.status.value}")
            self.status = status
            self.add_class(f"-{status.value}")
        if closed and not self.streaming:  # after Esc the text may still grow: frozen when the backend closes it
            self.freeze()


MARKER_TEXT = {
    MessageStatus.INTERRUPTED: "⏹ interrupted — the reply above was stopped before it finished",
    MessageStatus.FAILED: "✗ failed — the reply above is incomplete",
}
REPLACED_TEXT = "↺ retried — the newer version below is the one the model sees"
"""Under a retried reply until its place among its versions is known (then `replaced_text` says it)."""


def replaced_text(index: int, count: int) -> str:
    """Under a retried reply: which version it is, in the words of the `‹1/2›` mark above it."""
    return f"↺ version {index + 1} of {count} — retried; the newer version below is the one the model sees"


class MessageMarker(Static):
    """A one-line note under a reply that did not finish normally."""

    DEFAULT_CSS = """
    MessageMarker {
        padding: 0 1;
        color: $text-warning;
        text-style: italic;
    }
    MessageMarker.-failed {
        color: $text-error;
    }
    """

    def __init__(self, status: MessageStatus, note: str | None = None, *, replaced: bool = False) -> None:
        """`note`, when given, is shown instead of the status's own words (a reply cut at the token limit);
        a reply replaced by a retry says so instead."""
        text = f"✂ {sanitize(note)}" if note else MARKER_TEXT.get(status, status.value)
        super().__init__(Content(REPLACED_TEXT if replaced else text), classes=f"-{status.value}")
        self.status, self.note, self.replaced = status, note, replaced

    def on_mount(self) -> None:
        """Mounted under a retried reply whose place is already known (a retry of a reply with a mark): say it."""
        if self.replaced and isinstance(self.parent, Widget):
            siblings = list(self.parent.children)
            before = siblings[siblings.index(self) - 1] if siblings.index(self) > 0 else None
            if isinstance(before, AssistantMessage) and (branch := before.branch_mark.branch) is not None:
                self.show_version(*branch)

    def show_version(self, index: int, count: int) -> None:
        if self.replaced and count > 1:
            self.update(Content(replaced_text(index, count)))

    @property
    def settled(self) -> bool:
        return True

    def let_go(self) -> LetGo:
        return LetGo(partial(MessageMarker, self.status, self.note, replaced=self.replaced))


class ReplyActions(Static):
    """Under the last reply when it failed or was cut off: what can be done about it, as keys and links."""

    DEFAULT_CSS = """
    ReplyActions {
        padding: 0 1;
        color: $text-muted;
    }
    """

    def __init__(self, *, can_continue: bool) -> None:
        links = ["[@click=screen.retry_reply]↻ retry[/] [dim](ctrl+r)[/]"]
        if can_continue:
            links.append("[@click=screen.continue_reply]⏵ continue[/] [dim](ctrl+g)[/]")
        super().__init__(Content.from_markup(" · ".join(links)))  # our own words only: markup is safe here
        self.can_continue = can_continue

    @property
    def settled(self) -> bool:
        return True

    def let_go(self) -> LetGo:
        return LetGo(partial(ReplyActions, can_continue=self.can_continue))


class ErrorNotice(Static):
    """An error shown in the conversation, saying what happened and what to do."""

    DEFAULT_CSS = """
    ErrorNotice {
        margin: 1 0 0 0;
        padding: 0 1;
        border: round $role-error;
        border-title-color: $role-error;
        color: $text;
    }
    """

    def __init__(self, message: str, *, title: str = "Error") -> None:
        super().__init__(Content(sanitize(message)))
        self.message, self.title = message, title
        self.border_title = Content(title)

    @property
    def settled(self) -> bool:
        return True

    def let_go(self) -> LetGo:
        return LetGo(partial(ErrorNotice, self.message, title=self.title))


class SystemLine(Static):
    """A line from tui-agent itself in the conversation (which model answers, when it is the offline one)."""

    DEFAULT_CSS = """
    SystemLine {
        margin: 1 0 0 0;
        padding: 0 1;
        color: $text-muted;
        text-style: italic;
    }
    """

    def __init__(self, text: str) -> None:
        super().__init__(Content(f"ℹ {sanitize(text)}"))
        self.text = text

    @property
    def settled(self) -> bool:
        return True

    def let_go(self) -> LetGo:
        return LetGo(partial(SystemLine, self.text))


AGENT_COLOURS = ("primary", "secondary", "accent", "success", "warning")
"""Theme colours a team member's label may take: the same name always gets the same one (`agent_colour`)."""


def agent_colour(name: str) -> str:
    """The theme colour of an agent's label: a stable hash of its name (not Python's, which varies per run)."""
    return AGENT_COLOURS[zlib.crc32(name.encode()) % len(AGENT_COLOURS)]


class AgentLabel(Static):
    """Above a team member's reply: who wrote it, in the member's own colour."""

    DEFAULT_CSS = "AgentLabel { margin: 1 0 0 0; padding: 0 1; text-style: bold; height: 1; }\n" + "\n".join(
        f"AgentLabel.-{colour} {{ color: $text-{colour}; }}" for colour in AGENT_COLOURS
    )

    def __init__(self, agent: str) -> None:
        super().__init__(Content(f"▍{sanitize(agent)}"), classes=f"-{agent_colour(agent)}")
        self.agent = agent

    @property
    def settled(self) -> bool:
        return True

    def let_go(self) -> LetGo:
        return LetGo(partial(AgentLabel, self.agent))


COMPACTED_PREVIEW = 90
"""Characters of a compacted message shown on its one line."""
SUMMARY_TITLE = "▣ summary — the model is sent this instead of the messages marked compacted"


class CompactedMessage(Static):
    """A message compacted into a summary: kept in the view as one dimmed line ("⋯ compacted", who, how it
    began); a click shows it whole (and hides it again)."""

    DEFAULT_CSS = """
    CompactedMessage {
        padding: 0 1;
        color: $text-muted;
    }
    CompactedMessage.-open {
        color: $text;
    }
    """

    opened = var(False, toggle_class="-open")

    def __init__(self, who: str, text: str) -> None:
        self.who, self.text = who, text
        super().__init__(self._shown(False))

    def _shown(self, opened: bool) -> Content:
        text = sanitize(self.text).strip() or "(tool calls only)"
        if not opened:
            line = " ".join(text.split())
            text = line if len(line) <= COMPACTED_PREVIEW else line[: COMPACTED_PREVIEW - 1] + "…"
        return Content.assemble(("⋯ compacted ", "italic"), (f"{self.who}: ", "bold"), text)

    def on_click(self) -> None:
        self.opened = not self.opened
        self.update(self._shown(self.opened))

    @property
    def settled(self) -> bool:
        return True

    def let_go(self) -> LetGo:
        return LetGo(partial(CompactedMessage, self.who, self.text))


class SummaryMessage(Static):
    """A compaction's summary, where it was made: what the model is sent in place of the compacted messages."""

    DEFAULT_CSS = """
    SummaryMessage {
        margin: 1 0 0 0;
        padding: 0 1;
        border-left: outer $accent;
        color: $text-muted;
    }
    """

    def __init__(self, text: str) -> None:
        super().__init__(Content.assemble((SUMMARY_TITLE, "bold"), "\n", sanitize(text)))
        self.text = text

    @property
    def settled(self) -> bool:
        return True

    def let_go(self) -> LetGo:
        return LetGo(partial(SummaryMessage, self.text))


MarkedMessage = UserMessage | AssistantMessage
"""A message of the conversation tree (a prompt or a reply): it has a `branch_mark`."""

Entry = (
    UserMessage
    | ThinkingBlock
    | AgentLabel
    | AssistantMessage
    | MessageMarker
    | ErrorNotice
    | ReplyActions
    | SystemLine
    | CompactedMessage
    | SummaryMessage
)
"""Everything the chat log holds."""
