"""Provides `ChatLog`: the scrolling conversation on the left, addressed by message id.

Frame cost must not grow with history: every finished message is one widget, and only the newest
entries stay mounted (Textual lays out every mounted widget on every frame). Older entries are let go
and mounted again, a page at a time, when the person scrolls to the top. The log stays scrolled to the
newest entry until the person scrolls away.
"""

from __future__ import annotations

from textual.containers import VerticalScroll
from textual.content import Content
from textual.widgets import Static

from tui_agent.status import MessageStatus
from tui_agent.ui.widgets.messages import AssistantMessage, Entry, ErrorNotice, MessageMarker, UserMessage

ENTRY_TYPES = (UserMessage, AssistantMessage, MessageMarker, ErrorNotice)
KEEP_MOUNTED = 30
"""Entries left mounted after trimming."""
TRIM_AT = 45
"""Trim once this many entries are mounted (the gap keeps trimming rare)."""
PAGE = 20
"""Entries mounted again per scroll to the top."""


class ChatLog(VerticalScroll):
    """The conversation: user and assistant messages, markers and inline errors."""

    def __init__(self, *, id: str | None = None) -> None:  # noqa: A002
        super().__init__(id=id)
        self._assistant: dict[str, AssistantMessage] = {}
        self._markers: dict[str, MessageMarker] = {}
        self._hidden: list[Entry] = []
        """Entries let go, oldest first (their widgets are never mounted again; copies are)."""
        self.last_error: str | None = None

    def compose(self):  # type: ignore[no-untyped-def]
        yield Static(id="earlier")

    def on_mount(self) -> None:
        self.anchor()
        self._show_hidden_count()

    @property
    def entries(self) -> list[Entry]:
        return [child for child in self.children if isinstance(child, ENTRY_TYPES)]

    @property
    def hidden_count(self) -> int:
        return len(self._hidden)

    def _add(self, widget: Entry) -> None:
        self.mount(widget)
        self._trim()

    def _trim(self) -> None:
        """Let the oldest settled entries go when too many are mounted and the person is at the bottom."""
        entries = self.entries
        if len(entries) <= TRIM_AT or self.scroll_y < self.max_scroll_y - 1:
            return
        drop: list[Entry] = []
        for entry in entries[: len(entries) - KEEP_MOUNTED]:
            if not entry.settled:
                break
            drop.append(entry)
            if isinstance(entry, AssistantMessage):
                self._assistant.pop(entry.message_id, None)
                self._markers.pop(entry.message_id, None)
        self._hidden.extend(drop)
        self.remove_children(drop)
        self._show_hidden_count()

    def _show_hidden_count(self) -> None:
        hint = self.query_one("#earlier", Static)
        hint.display = bool(self._hidden)
        hint.update(Content(f"↑ {len(self._hidden)} earlier entries — scroll up to load them"))

    def watch_scroll_y(self, old_value: float, new_value: float) -> None:
        super().watch_scroll_y(old_value, new_value)
        if new_value <= 0 and self._hidden:
            self.call_after_refresh(self.load_earlier)

    def load_earlier(self) -> None:
        """Mount the previous page of entries above the current ones, keeping the view where it was."""
        if not self._hidden:
            return
        page, self._hidden = self._hidden[-PAGE:], self._hidden[:-PAGE]
        copies = [entry.recreate() for entry in page]
        height_before = self.virtual_size.height
        self.mount_all(copies, after=self.query_one("#earlier"))
        self._show_hidden_count()
        self.call_after_refresh(lambda: self.scroll_to(y=self.virtual_size.height - height_before, animate=False))

    def add_user(self, prompt: str) -> UserMessage:
        message = UserMessage(prompt)
        self.last_error = None
        self._add(message)
        self.anchor()
        return message

    def start_assistant(self, message_id: str) -> AssistantMessage:
        message = self._assistant.get(message_id)
        if message is None:
            message = self._assistant[message_id] = AssistantMessage(message_id)
            self._add(message)
        return message

    def append(self, message_id: str, text: str) -> None:
        self.start_assistant(message_id).append(text)

    def finish(self, message_id: str, status: MessageStatus, error: str | None = None, *,
               closed: bool = True) -> None:
        """Show a reply's final status; `closed=False` when the UI finishes it first (Esc)."""
        message = self._assistant.get(message_id)
        if message is not None and not message.closed:
            before = message.status
            message.finish(status, closed=closed)
            self._update_marker(message, before)
        if error:
            self.add_error(error)

    def _update_marker(self, message: AssistantMessage, before: MessageStatus) -> None:
        """One marker under a reply that did not finish normally, matching its latest status."""
        if message.status is before:
            return
        marker = self._markers.pop(message.message_id, None)
        if marker is not None:
            marker.remove()
        if message.status in (MessageStatus.INTERRUPTED, MessageStatus.FAILED):
            marker = self._markers[message.message_id] = MessageMarker(message.status)
            self.mount(marker, after=message)

    def interrupt_streaming(self) -> None:
        """Stop every streaming reply now (Esc): what arrived stays, marked interrupted."""
        for message_id, message in self._assistant.items():
            if message.streaming:
                self.finish(message_id, MessageStatus.INTERRUPTED, closed=False)

    def close_open(self) -> None:
        """The turn is over: every reply the backend did not close is closed as it stands."""
        for message_id, message in self._assistant.items():
            if not message.closed:
                status = MessageStatus.INTERRUPTED if message.streaming else message.status
                self.finish(message_id, status)

    def add_error(self, message: str, *, title: str = "Error") -> None:
        if message == self.last_error:
            return  # the failed message and the failed turn often carry the same sentence
        self.last_error = message
        self._add(ErrorNotice(message, title=title))

    def assistant(self, message_id: str) -> AssistantMessage | None:
        return self._assistant.get(message_id)

    @property
    def assistant_messages(self) -> list[AssistantMessage]:
        return list(self._assistant.values())
