"""Provides `ChatLog`: the scrolling conversation on the left, addressed by message id.

It keeps one widget per finished message (frame cost must not grow with history) and stays scrolled to
the newest entry until the person scrolls away.
"""

from __future__ import annotations

from textual.containers import VerticalScroll
from textual.widget import Widget

from tui_agent.status import MessageStatus
from tui_agent.ui.widgets.messages import AssistantMessage, ErrorNotice, MessageMarker, UserMessage


class ChatLog(VerticalScroll):
    """The conversation: user and assistant messages, markers and inline errors."""

    def __init__(self, *, id: str | None = None) -> None:  # noqa: A002
        super().__init__(id=id)
        self._assistant: dict[str, AssistantMessage] = {}
        self._markers: dict[str, MessageMarker] = {}
        self.last_error: str | None = None

    def on_mount(self) -> None:
        self.anchor()

    def _add(self, widget: Widget) -> None:
        self.mount(widget)

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
