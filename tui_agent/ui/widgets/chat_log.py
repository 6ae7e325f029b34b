"""Provides `ChatLog`: the scrolling conversation on the left, addressed by message id.

Every finished message is one widget, and only a window of entries stays mounted (`LogWindow`, which it is
built on). A reply's reasoning is a `ThinkingBlock` entry just above it, made as `reasoning` says
("collapsed", "expanded", or "hidden": no block at all); a part of another kind is a block of its own, as
its view in `tui_agent.ui.widgets.parts` says; `t` (the log focused) opens or closes the newest one. The log
stays scrolled to the newest entry until the person scrolls away; anything new brings the newest entries
back. The entry widgets (and their markdown renderer) load with the first entry, so the
empty log of the first frame does not wait for them.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from textual.binding import Binding
from textual.widget import Widget

from tui_agent.status import MessageStatus, is_cut_off
from tui_agent.ui.widgets.log_window import LogWindow

if TYPE_CHECKING:
    from tui_agent.agent.records import AttachmentRef
    from tui_agent.ui.widgets.messages import (
        AssistantMessage,
        Entry,
        MessageMarker,
        ReplyActions,
        UserMessage,
    )
    from tui_agent.ui.widgets.thinking import ThinkingBlock


class ChatLog(LogWindow):
    """The conversation: user and assistant messages, their reasoning, markers and inline errors."""

    DEFAULT_CSS = """
    ChatLog > .-found { background: $accent 20%; border-left: outer $accent; }
    """
    """A message opened from a search hit (`-found`) stands out until it is let go."""
    BINDINGS = [Binding("t", "toggle_thinking", "Show / hide the latest thinking", show=False, id="toggle_thinking")]

    def __init__(
        self,
        *,
        id: str | None = None,  # noqa: A002
        reasoning: str = "collapsed",
    ) -> None:
        super().__init__(id=id)
        self.reasoning = reasoning
        """How replies' reasoning is shown: "collapsed", "expanded" or "hidden" (the `[ui] reasoning` setting)."""
        self._assistant: dict[str, AssistantMessage] = {}
        self._blocks: dict[str, dict[str, ThinkingBlock]] = {}
        """The live blocks of replies' parts other than their text, by message id, then kind."""
        self._markers: dict[str, MessageMarker] = {}
        self.last_error: str | None = None
        self._actions: ReplyActions | None = None

    def _forget(self, entries: Sequence[Entry]) -> None:
        # deferred: the message widgets load with the first message
        from tui_agent.ui.widgets.messages import AssistantMessage

        # deferred: with the message widgets, after the first frame
        from tui_agent.ui.widgets.thinking import ThinkingBlock

        super()._forget(entries)

        for entry in entries:
            if isinstance(entry, AssistantMessage):
                self._assistant.pop(entry.message_id, None)
                self._markers.pop(entry.message_id, None)
            elif isinstance(entry, ThinkingBlock):
                self._blocks.get(entry.message_id, {}).pop(entry.kind, None)

    # -- the conversation ------------------------------------------------------------------------------
    def add_user(self, prompt: str, attachments: Sequence[AttachmentRef] = ()) -> UserMessage:
        # deferred: the message widgets load with the first message
        from tui_agent.ui.widgets.messages import UserMessage

        message = UserMessage(prompt, attachments=attachments)
        self.last_error = None
        self._add(message)
        self.anchor()
        return message

    def start_assistant(
        self, message_id: str, text: str = "", agent: str | None = None, continues: str | None = None
    ) -> AssistantMessage:
        """The reply's widget, made for a new reply (under its team member's label, `agent`; `text`: what it
        says so far); a continuation of reply `continues` streams on in that reply's widget when it is shown."""
        message = self._assistant.get(message_id) or self.shown_reply(message_id)
        if message is None and continues is not None:
            message = self._carry_on(continues, message_id)
        if message is None:
            # deferred: the message widgets load with the first message
            from tui_agent.ui.widgets.messages import AgentLabel, AssistantMessage

            if agent:
                self._add(AgentLabel(agent))

            message = self._assistant[message_id] = AssistantMessage(message_id)
            message.set_text(text)
            self._add(message)
        return message

    def _carry_on(self, cut_off: str, message_id: str) -> AssistantMessage | None:
        """The cut-off reply's widget (its part blocks too) becomes reply `message_id`'s, which starts with its
        text, and streams again: the text goes on where it stopped (the cut-off reply stays on its branch)."""
        message = self._assistant.pop(cut_off, None) or self.shown_reply(cut_off)
        if message is None or not message.closed:
            return None
        if (marker := self._markers.pop(cut_off, None) or self._marker_after(message)) is not None:
            marker.remove()
        # deferred: with the message widgets, after the first frame
        from tui_agent.ui.widgets.thinking import ThinkingBlock

        blocks = self._blocks.pop(cut_off, {})
        for entry in self.entries:  # live ones, and those loaded from history
            if isinstance(entry, ThinkingBlock) and entry.message_id == cut_off:
                blocks.setdefault(entry.kind, entry)
        for block in blocks.values():
            block.message_id = message_id
        self._blocks[message_id] = blocks
        message.message_id, self._assistant[message_id] = message_id, message
        message.branch_mark.show(0, 1)  # its own mark comes when the turn ends
        message.reopen()
        self.anchor()
        return message

    def shown_reply(self, message_id: str) -> AssistantMessage | None:
        """The mounted widget of a reply, live or loaded from history."""
        # deferred: the message widgets load with the first message
        from tui_agent.ui.widgets.messages import AssistantMessage

        return next(
            (entry for entry in self.entries if isinstance(entry, AssistantMessage) and entry.message_id == message_id),
            None,
        )

    def _marker_after(self, message: AssistantMessage) -> MessageMarker | None:
        # deferred: the message widgets load with the first message
        from tui_agent.ui.widgets.messages import MessageMarker

        children = list(self.children)
        following = children[children.index(message) + 1] if message in children[:-1] else None
        return following if isinstance(following, MessageMarker) else None

    def mark_replaced(self, message_id: str) -> None:
        """A retry replaces this reply: dim it, and say so under it."""
        # deferred: the message widgets load with the first message
        from tui_agent.ui.widgets.messages import MessageMarker

        message = self._assistant.get(message_id) or self.shown_reply(message_id)
        if message is None:
            return
        message.replaced = True
        if (marker := self._marker_after(message)) is not None:
            marker.remove()
        self._markers[message_id] = MessageMarker(message.status, replaced=True)
        self.mount(self._markers[message_id], after=message)

    def show_actions(self, *, can_continue: bool) -> None:
        """Offer retry (and continue) under the last entry: the last reply failed or was cut off."""
        # deferred: the message widgets load with the first message
        from tui_agent.ui.widgets.messages import ReplyActions

        self.hide_actions()
        self._actions = ReplyActions(can_continue=can_continue)
        self._add(self._actions)

    def hide_actions(self) -> None:
        """Something new starts: the offer no longer applies."""
        if self._actions is not None and self._actions.is_attached:
            self._actions.remove()
        self._actions = None

    @property
    def actions(self) -> ReplyActions | None:
        return self._actions

    def cut_from(self, entry: Widget | None) -> set[str]:
        """Take away for good every entry from `entry` on (with those let go below), or all of them when None:
        the conversation leaves that branch (edit, regenerate, switch). Returns the ids of the replies taken
        away, whose tool calls go with them."""
        entries = self.entries
        gone = entries[entries.index(entry) :] if entry in entries else ([] if entry is not None else entries)
        dropped = self._below + (self._above if entry is None else [])
        ids = {getattr(e, "message_id", None) for e in gone} | {letgo.message_id for letgo in dropped}
        self._forget(gone)
        self._below.clear()
        if entry is None:
            self._above.clear()
        if self._actions in gone:
            self._actions = None
        self.last_error = None
        self.remove_children(gone)
        self._window_changed()
        self.anchor()
        return {message_id for message_id in ids if message_id}

    def append(self, message_id: str, text: str) -> None:
        if blocks := self._blocks.get(message_id):
            for block in blocks.values():
                if not block.done:  # the answer begins (or goes on): the thinking is over for now
                    block.finish(ended=False)
        (self._assistant.get(message_id) or self.start_assistant(message_id)).append(text)

    def append_part(self, message_id: str, kind: str, text: str) -> None:
        """More of a reply's part of `kind` (reasoning, ...), into its block: made above the reply at the first
        piece, the same block when it comes after the answer began or when the reply is continued (loaded from
        history too); nothing when the kind is hidden."""
        # deferred: with the message widgets, after the first frame
        from tui_agent.ui.widgets.parts import is_hidden, live_block

        if is_hidden(kind, self.reasoning):
            return
        block = self._blocks.get(message_id, {}).get(kind)
        if block is None:
            block = self._shown_block(message_id, kind)
        if block is None:
            block = live_block(message_id, kind, self.reasoning)
            self.mount(block, before=self.start_assistant(message_id))
        self._blocks.setdefault(message_id, {})[kind] = block
        block.append(text)

    def _shown_block(self, message_id: str, kind: str) -> ThinkingBlock | None:
        """The mounted block of a reply's part of `kind`, live or loaded from history."""
        # deferred: with the message widgets, after the first frame
        from tui_agent.ui.widgets.thinking import ThinkingBlock

        return next(
            (
                entry
                for entry in self.entries
                if isinstance(entry, ThinkingBlock) and entry.message_id == message_id and entry.kind == kind
            ),
            None,
        )

    def thinking(self, message_id: str, kind: str = "reasoning") -> ThinkingBlock | None:
        """The block of a live reply's reasoning (or part of `kind`), if it has one."""
        return self._blocks.get(message_id, {}).get(kind)

    def action_toggle_thinking(self) -> None:
        """Open or close the newest thinking block on screen."""
        # deferred: with the message widgets, after the first frame
        from tui_agent.ui.widgets.thinking import ThinkingBlock

        blocks = [entry for entry in self.entries if isinstance(entry, ThinkingBlock)]
        if blocks:
            blocks[-1].action_toggle_expanded()

    def _end_thinking(self, message: AssistantMessage) -> None:
        """The reply ended: its thinking is over; a reply that is all reasoning shows as its block alone."""
        blocks = list(self._blocks.get(message.message_id, {}).values())
        alone = bool(blocks) and not message.text.strip()
        for block in blocks:
            block.finish(alone=alone)
        if blocks:
            message.thought_only = alone

    def finish(self, message_id: str, status: MessageStatus, error: str | None = None, *, closed: bool = True) -> None:
        """Show a reply's final status; `closed=False` when the UI finishes it first (Esc)."""
        message = self._assistant.get(message_id)
        if message is not None and not message.closed:
            before = message.status
            message.finish(status, closed=closed)
            self._end_thinking(message)
            self._update_marker(message, before, error if is_cut_off(status, error) else None)
        if error and not is_cut_off(status, error):  # a cut-off reply's marker says it
            self.add_error(error)

    def _update_marker(self, message: AssistantMessage, before: MessageStatus, note: str | None = None) -> None:
        """One marker under a reply that did not finish normally, matching its latest status."""
        if message.status is before:
            return
        marker = self._markers.pop(message.message_id, None)
        if marker is not None:
            marker.remove()
        if message.status in (MessageStatus.INTERRUPTED, MessageStatus.FAILED):
            # deferred: the message widgets load with the first message
            from tui_agent.ui.widgets.messages import MessageMarker

            marker = self._markers[message.message_id] = MessageMarker(message.status, note)
            self.mount(marker, after=message)

    def interrupt_streaming(self) -> None:
        """Stop every streaming reply now (Esc): what arrived stays, marked interrupted."""
        for message_id, message in self._assistant.items():
            if message.streaming:
                self.finish(message_id, MessageStatus.INTERRUPTED, closed=False)

    def close_open(self) -> None:
        """The turn is over: every reply the backend did not close is closed as it stands."""
        for message_id, message in list(self._assistant.items()):
            if not message.closed:
                status = MessageStatus.INTERRUPTED if message.streaming else message.status
                self.finish(message_id, status)

    def add_error(self, message: str, *, title: str = "Error") -> None:
        if message == self.last_error:
            return  # the failed message and the failed turn often carry the same sentence
        self.last_error = message
        # deferred: the message widgets load with the first message
        from tui_agent.ui.widgets.messages import ErrorNotice

        self._add(ErrorNotice(message, title=title))

    def add_system(self, text: str) -> None:
        """A line from tui-agent itself (not from the model), e.g. that the offline model answers."""
        # deferred: the message widgets load with the first message
        from tui_agent.ui.widgets.messages import SystemLine

        self._add(SystemLine(text))

    def add_run_line(self, text: str) -> None:
        """A line about the whole run (who answers it), above the conversation: the engine says it a moment after
        start, and a prompt sent sooner was drawn first (the line then came under it)."""
        # deferred: the message widgets load with the first message
        from tui_agent.ui.widgets.messages import SystemLine

        first = next((entry for entry in self.entries if not isinstance(entry, SystemLine)), None)
        if first is None or self.hidden_count:  # no message yet (above the welcome, if any), or a long resume
            self.add_system(text)
        else:
            self.mount(SystemLine(text), before=first)

    def assistant(self, message_id: str) -> AssistantMessage | None:
        return self._assistant.get(message_id)

    @property
    def assistant_messages(self) -> list[AssistantMessage]:
        return list(self._assistant.values())
