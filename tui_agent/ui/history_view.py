"""Provides `HistoryView`: shows the current session's stored messages in the chat screen, newest page first.

A resumed session looks as it was left: user and assistant messages (each one finished widget), markers
under interrupted and failed replies, their errors, and a tool panel per stored call with its arguments,
result, status and duration. Older pages are fetched from the backend when the person scrolls to the top
(after the chat log has put back any entries it let go above), so opening a long session costs one page;
the log then lets the newest entries go, so a long scroll up costs no more per page than the first.
The first page of a resumed session is one step earlier: read at boot from the file (`EngineSlot.early_page`)
and shown while the engine is built; the engine's own page then follows only when there was none.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING

from textual.widget import Widget

from tui_agent.errors import EngineUnavailableError
from tui_agent.status import MessageStatus, Role, is_cut_off
from tui_agent.ui.engine import EngineSlot
from tui_agent.ui.long_lived import freeze_start_up
from tui_agent.ui.team_stop import stop_lines
from tui_agent.ui.widgets.chat_log import ChatLog
from tui_agent.ui.widgets.tool_panel import ToolPanels

if TYPE_CHECKING:  # loaded with the first page or the engine, after the first paint
    from tui_agent.agent.records import Message, SessionPeek, TeamStop, ToolCall

REDO_OFFERED = (MessageStatus.INTERRUPTED, MessageStatus.FAILED)
"""A reply that ended so is marked, and when it is the session's last, retry and continue are offered."""
HISTORY_PAGE = 30
"""Messages fetched per page (the first one and each older one)."""


def tool_update(call: ToolCall) -> ToolCall:
    """A stored call as its panel shows it: a call never finished has no duration (its epoch times stay
    apart from the live monotonic clock, and only a finished call's two times are compared)."""
    if call.started_at is not None and call.finished_at is not None:
        return call
    return call.replace(started_at=None, finished_at=None)


def message_widgets(message: Message, reasoning: str = "collapsed") -> list[Widget]:
    """The chat-log entries one stored message becomes (nothing for system and tool rows); its reasoning as
    `reasoning` says (see `ChatLog.reasoning`), its other parts as their views say."""
    # after-paint (~6 ms with the Markdown view): only a session with messages needs them
    # deferred: the message widgets load with the first message
    from tui_agent.ui.widgets.messages import AgentLabel, AssistantMessage, ErrorNotice, MessageMarker, UserMessage

    if (compaction := compaction_widgets(message)) is not None:
        return compaction
    if message.role is Role.USER:
        return [UserMessage(message.content, message.id, message.attachments)]
    if message.role is not Role.ASSISTANT:
        return []
    replaced = message.replaced_by is not None
    widgets: list[Widget] = [AgentLabel(message.agent)] if message.agent else []  # a team member's reply
    widgets.extend(part_blocks(message, reasoning))
    widgets.append(
        AssistantMessage.finished(
            message.id,
            message.content,
            message.status,
            replaced,
            thought_only=len(widgets) > bool(message.agent) and not message.content.strip(),
        )
    )
    cut_off = is_cut_off(message.status, message.error)
    if replaced or message.status in REDO_OFFERED:
        widgets.append(MessageMarker(message.status, message.error if cut_off else None, replaced=replaced))
    if message.error and not cut_off:  # a cut-off reply's marker says it
        widgets.append(ErrorNotice(message.error))
    return widgets


def compaction_widgets(message: Message) -> list[Widget] | None:
    """A compaction's summary (a `system` message), or a message compacted into one (one collapsed line); None
    for any other message."""
    # deferred: the message widgets load with the first message
    from tui_agent.ui.widgets.messages import CompactedMessage, SummaryMessage

    if message.role is Role.SYSTEM:
        return [SummaryMessage(message.content)]
    if message.compacted_by is None or message.role not in (Role.USER, Role.ASSISTANT):
        return None
    return [CompactedMessage("you" if message.role is Role.USER else "assistant", message.content)]


def part_blocks(message: Message, reasoning: str) -> list[Widget]:
    """A stored reply's parts other than its text, one block each in stored order (its thinking block first;
    none for an empty part or a hidden kind; see `tui_agent.ui.widgets.parts`)."""
    if not message.part_texts:
        return []
    from tui_agent.ui.widgets.parts import stored_block  # deferred: with the message widgets, after the first frame

    alone = not message.content.strip()
    blocks = (stored_block(message.id, kind, text, reasoning, alone=alone) for kind, text in message.part_texts.items())
    return [block for block in blocks if block is not None]


class HistoryView:
    """Loads the current session into one chat screen's log and tool panels."""

    def __init__(self, engine: EngineSlot, log: ChatLog, panels: ToolPanels, *, page: int = HISTORY_PAGE) -> None:
        self.engine, self.log, self.panels, self.page = engine, log, panels, page
        self.early: SessionPeek | None = None
        """The page read from the file before the engine was built, if one was."""
        self.oldest_position: int | None = None
        """Position of the oldest message shown; None before anything was loaded."""
        self.loading = False
        self.loaded_messages = 0
        self.team_stops: Mapping[str, TeamStop] = {}
        """Why each team run of the session stopped, by the message it stopped after (said after it)."""

    @property
    def exhausted(self) -> bool:
        """Everything stored is shown (or there was nothing to show)."""
        return self.oldest_position is None or self.oldest_position <= 0

    @property
    def early_title(self) -> str:
        """The title to show before the engine is built: the early page's session's, else a new one's."""
        return self.early.session.title if self.early is not None else "New session"

    @property
    def early_usage(self) -> tuple[int, int]:
        """Tokens (in, out) the early page's session had used (nothing before the engine otherwise)."""
        usage = self.early.usage if self.early is not None else None
        return (usage.prompt_tokens, usage.completion_tokens) if usage is not None else (0, 0)

    async def show_early(self) -> bool:
        """Show the newest page read at boot straight from the file, before the engine is built (once, and
        only while it is not); False when there was none to show."""
        read, self.engine.early_page = self.engine.early_page, None
        if read is None or self.engine.ready is not None:
            return False
        self.early = await read(self.page)
        if self.early is None:
            return False
        self.team_stops = self.early.team_stops
        await self.show_page(self.early.messages)
        return True

    async def show_latest(self) -> int:
        """Show the newest page of the current session; returns how many messages it had."""
        backend = await self.engine.engine()
        messages = await backend.load_history(None, self.page)
        self.team_stops = backend.team_stops
        return await self.show_page(messages)

    async def show_at(self, message_id: str) -> bool:
        """Show the current session with message `message_id` (a search hit opened) at the top of the view,
        marked (`-found`): pages are read back from the newest until they hold it. A message that shows nothing
        itself (a tool's result) marks the nearest one before it. False when the branch shown does not hold it
        (it is then shown as usual, at its end)."""
        backend = await self.engine.engine()
        messages = await backend.load_history(None, self.page)
        while messages and all(m.id != message_id for m in messages) and messages[0].position > 0:
            older = await backend.load_history(messages[0].position, self.page)
            if not older:
                break
            messages = older + messages
        self.team_stops = backend.team_stops
        at = next((i for i, message in enumerate(messages) if message.id == message_id), None)
        if at is None:
            await self.show_page(messages)
            return False
        self.loading = True
        try:
            self.oldest_position = messages[0].position
            self.loaded_messages += len(messages)
            self._add_panels(messages, older=False)
            entries = self._entry_lists(messages)
            while at > 0 and not entries[at]:
                at -= 1
            widgets = [widget for widgets in entries for widget in widgets]
            if not widgets:
                return False
            found = await self.log.show_from(widgets, sum(len(widgets) for widgets in entries[:at]))
            found.add_class("-found")
            self._offer_redo(messages[-1])
            return True
        finally:
            self.loading = False

    async def show_page(self, messages: list[Message]) -> int:
        """Show `messages`, the newest page of the session."""
        self.loading = True
        try:
            if messages:
                self.oldest_position = messages[0].position
                self.loaded_messages += len(messages)
                self._add_panels(messages, older=False)
                await self.log.append_settled(self._entries(messages))
                self._offer_redo(messages[-1])
                self.log.scroll_end(animate=False)
            return len(messages)
        finally:
            self.loading = False

    def on_scroll(self, scroll_y: float) -> None:
        """The log scrolled: at the top, with nothing of its own left to put back, fetch the previous page."""
        if scroll_y <= 0 and not self.loading and not self.exhausted and self.log.hidden_count == 0:
            self.loading = True
            self.log.run_worker(self.load_older(), group="history", exclusive=True)

    async def load_older(self) -> int:
        """Mount the page before the oldest shown, keeping the view where it was; returns its size."""
        self.loading = True
        try:
            if self.exhausted or self.oldest_position is None:
                return 0
            messages = await (await self.engine.engine()).load_history(self.oldest_position, self.page)
            if not messages:
                self.oldest_position = 0
                return 0
            self.oldest_position = messages[0].position
            self.loaded_messages += len(messages)
            self._add_panels(messages, older=True)
            await self.log.add_older(self._entries(messages))
            return len(messages)
        finally:
            self.loading = False

    def _offer_redo(self, last: Message) -> None:
        if last.role is Role.ASSISTANT and last.status in REDO_OFFERED and last.replaced_by is None:
            has_text = bool(last.content.strip()) and not last.tool_calls
            self.log.show_actions(can_continue=has_text or is_cut_off(last.status, last.error))

    def _entries(self, messages: list[Message]) -> list[Widget]:
        return [widget for widgets in self._entry_lists(messages) for widget in widgets]

    def _entry_lists(self, messages: list[Message]) -> list[list[Widget]]:
        """The entries each message becomes, message by message (a team's stop line after its last)."""
        entries = [[*message_widgets(message, self.log.reasoning)] for message in messages]
        if self.team_stops and (lines := stop_lines(messages, self.team_stops)):
            # deferred: the message widgets load with the first message
            from tui_agent.ui.widgets.messages import SystemLine

            for at, line in lines.items():
                entries[at].append(SystemLine(line))
        return entries

    def _add_panels(self, messages: Iterable[Message], *, older: bool) -> None:
        messages = list(messages)
        for message in messages:
            self.panels.note_speaker(message.id, message.agent)
        updates = [tool_update(call) for message in messages for call in message.tool_calls]
        if older:
            self.panels.add_earlier(updates)
        else:
            for update in updates:
                self.panels.update_call(update)


def attach_history(
    screen: Widget,
    engine: EngineSlot,
    log: ChatLog,
    panels: ToolPanels,
    on_loaded: Callable[[], None] = lambda: None,
    *,
    at: str | None = None,
) -> HistoryView:
    """Give a chat screen its history: the newest page now (`at`: from that message on, see `show_at`), older
    pages on scroll to the top.

    A session that `--resume`/`--continue` could not open is said inline, once, above the fresh one.
    `on_loaded` runs once the first page is shown (the status bar then shows the resumed session's title),
    and again once the engine is there (whose session it now is).
    """
    view = HistoryView(engine, log, panels)
    screen.watch(log, "scroll_y", view.on_scroll, init=False)

    async def first_page() -> None:
        if at is None and await view.show_early():
            on_loaded()
        try:
            if at is not None:
                await view.show_at(at)
            elif view.early is None:
                await view.show_latest()
        except EngineUnavailableError:  # said by the app (the build's worker) and by the turn that needs it
            return
        freeze_start_up(screen.app)  # the engine and the first session live as long as the app
        if failure := engine.take_resume_failure():
            log.add_error(failure, title="Resume")
        on_loaded()

    screen.run_worker(first_page(), group="history", exit_on_error=False, description="load history")
    return view
