"""Provides `TurnView`: how the chat screen shows a turn's events as they come.

`render_event` takes each `AgentEvent` to its place: text and parts to the chat log, tool calls to the tool
column and the task tree, questions to the approval modal (`ask_approval`; a sub-agent's names the agent),
usage and waits to the status line. At the turn's end it shows why a turn stopped short, offers retry or
continue under a reply that failed or was cut off, and rings when a long turn ends while the person is away.
The chat screen holds one (`ChatScreen.turn_view`); its `TurnRunner` hands it each event of the turns it runs.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Protocol, assert_never

from tui_agent.status import MessageStatus, TurnEndReason, is_cut_off
from tui_agent.ui.team_stop import stop_line
from tui_agent.ui.textual_private import write_to_terminal

if TYPE_CHECKING:  # the events load with the engine, after the first paint
    from tui_agent.agent.events import (
        AgentEvent,
        ApprovalRequested,
        AssistantMessageFinished,
        SubAgentEvent,
        TurnFinished,
    )
    from tui_agent.tool_call import Decision
    from tui_agent.ui.hosts import ChatEngine, ChatWidgets, ScreenNode
    from tui_agent.ui.widgets.task_tree import TaskTree
    from tui_agent.ui.widgets.tool_panel import Clock

    class BranchMarks(Protocol):
        """The screen's `‹2/3›` marks (`Branches`), asked again when a turn made a sibling."""

        def turn_started(self, user_message_id: str) -> None: ...

        def sibling_made(self) -> None: ...

        def turn_ended(self) -> None: ...

    class TurnViewHost(ScreenNode, ChatWidgets, ChatEngine, Protocol):
        """What the turn view shows events on: the chat screen."""

        @property
        def task_tree(self) -> TaskTree | None: ...

        @property
        def branches(self) -> BranchMarks: ...


TURN_END_TITLES = {TurnEndReason.BUDGET: "Stopped: budget reached", TurnEndReason.ERROR: "Error"}


class TurnView:
    """How one chat screen shows its turns' events; it owns what it remembers between them."""

    def __init__(self, screen: TurnViewHost, clock: Clock) -> None:
        self.screen = screen
        self._clock = clock
        self.waiting = False
        """The status bar says what the reply waits for (until its first text, tool call or end)."""
        self.turn_began = 0.0
        """When the running turn's events began (`clock`), for the notice of a long turn's end."""
        self.last_finished: AssistantMessageFinished | None = None
        """The turn's latest reply to reach its final status (retry and continue are offered for it)."""

    def begin_turn(self) -> None:
        """A turn's events are about to come."""
        self.last_finished = None
        self.turn_began = self._clock()

    def ask_approval(self, request: ApprovalRequested, agent: str | None = None) -> None:
        """Show the approval modal; the choice answers the turn's question (Esc in it: deny). A turn that ends
        first (cancelled) cancels the question, which takes the modal away. `agent`: the sub-agent asking."""
        from tui_agent.tool_call import Decision  # deferred: loads with the engine, after the first frame

        # deferred: with the first approval, after the first frame
        from tui_agent.ui.screens.approval import ApprovalScreen

        screen = self.screen
        answer = request.answer
        if answer.done():
            return
        modal = ApprovalScreen(request.call, agent=agent)

        def decided(decision: Decision | None) -> None:
            if not answer.done():
                answer.set_result(decision or Decision.DENY)

        def withdrawn(future: asyncio.Future[Decision]) -> None:
            if future.cancelled() and screen.app.screen is modal:
                screen.app.pop_screen()

        screen.app.push_screen(modal, callback=decided)
        answer.add_done_callback(withdrawn)

    def render_event(self, event: AgentEvent) -> None:
        """Show one event from the turn."""
        from tui_agent.agent import events  # deferred: loaded by the engine before any event exists

        screen = self.screen
        log = screen.chat_log
        if type(event) is events.AssistantTextDelta and not self.waiting:  # most events: nothing else to check
            log.append(event.message_id, event.text)
            return
        if self.waiting and not isinstance(event, events.ReplyWaiting | events.UsageUpdated):
            self.waiting = False  # the reply began (or ended): "replying" again
            screen.status_bar.set_waiting(None)
        match event:  # a kind left out fails mypy (`assert_never`)
            case events.AssistantTextDelta():
                log.append(event.message_id, event.text)
            case events.AssistantPartDelta():
                log.append_part(event.message_id, event.kind, event.text)
            case events.ToolCallUpdated():
                screen.tool_panels.update_call(event.call)
                if screen.task_tree is not None:
                    screen.task_tree.follow_call(event.call)
            case events.ApprovalRequested():
                self.ask_approval(event)
            case events.ReplyWaiting():
                self.waiting = True
                screen.status_bar.set_waiting(event)
            case events.AssistantMessageStarted():
                log.start_assistant(event.message_id, event.text, event.agent, event.continues)
                screen.tool_panels.note_speaker(event.message_id, event.agent)
                if event.continues is not None:
                    screen.branches.sibling_made()
                    screen.tool_panels.forget_calls_of({event.continues})  # calls cut at the token limit: not run
            case events.AssistantMessageFinished():
                self.last_finished = event
                log.finish(event.message_id, event.status, event.error)
            case events.ReplyReplaced():
                log.mark_replaced(event.message_id)
                screen.branches.sibling_made()
            case events.UsageUpdated():
                screen.status_bar.set_usage(event.prompt_tokens, event.completion_tokens)
                if screen.backend is not None:
                    screen.status_bar.set_meter(screen.backend.meter)
            case events.TurnStarted():
                screen.branches.turn_started(event.user_message_id)
                screen.show_status()
            case events.TurnFinished():
                self._turn_finished(event)
            case events.SubAgentEvent():
                self._render_sub_agent(event)
            case events.TeamStopped():
                log.add_system(stop_line(event.team, event.reason, event.rounds))
            case _:
                assert_never(event)

    def _render_sub_agent(self, event: SubAgentEvent) -> None:
        """A sub-agent's event: shown in its call's panel; its tool calls in the task tree, its questions asked."""
        from tui_agent.agent import events  # deferred: loads with the engine, after the first frame
        from tui_agent.ui.widgets.sub_agent import innermost  # deferred: with the first delegation only

        screen = self.screen
        screen.tool_panels.follow_sub_agent(event)
        agents, inner = innermost(event)
        if isinstance(inner, events.ToolCallUpdated) and screen.task_tree is not None:
            screen.task_tree.follow_call(inner.call)
        elif isinstance(inner, events.ApprovalRequested):
            self.ask_approval(inner, agent=" → ".join(agents))

    def _turn_finished(self, event: TurnFinished) -> None:
        screen = self.screen
        screen.chat_log.close_open()  # a message the backend never closed is not left "streaming"
        if event.reason in TURN_END_TITLES:
            reason = "The reply stopped at the turn's budget." if event.reason is TurnEndReason.BUDGET else ""
            screen.chat_log.add_error(event.error or reason or "The reply failed.", title=TURN_END_TITLES[event.reason])
        self._offer_redo()
        screen.show_status()
        screen.branches.turn_ended()
        self._ring_if_away(event)

    def _ring_if_away(self, event: TurnFinished) -> None:
        """A long turn ended while the person is in another window: the terminal rings (`[ui] notify`)."""
        screen = self.screen
        what = "reply ready" if event.reason is TurnEndReason.DONE else f"reply ended ({event.reason.value})"
        notice = getattr(screen.app, "turn_notice", None)
        took = self._clock() - self.turn_began
        if notice is not None and (sequence := notice.sequence_for(took, screen.app.app_focus, what)):
            write_to_terminal(screen.app, sequence)

    def _offer_redo(self) -> None:
        """Under a reply that failed or was cut off: retry it, or continue it when it has text or was cut at the
        token limit (a tool call cut while written included: Continue has the model write it again)."""
        screen = self.screen
        ended = self.last_finished
        if ended is None or ended.status not in (MessageStatus.FAILED, MessageStatus.INTERRUPTED):
            return
        reply = screen.chat_log.assistant(ended.message_id)
        has_text = reply is not None and bool(reply.text.strip())
        screen.chat_log.show_actions(can_continue=has_text or is_cut_off(ended.status, ended.error))
