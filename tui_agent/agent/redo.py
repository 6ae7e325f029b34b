"""Provides `RedoTurns`: the turns that write a new version of something already in the session.

`edit(id, text)` sends a new version of a prompt as its sibling on a new branch; `regenerate(id, model)` and
`retry()` (the last reply) add a new reply beside an old one (kept in history with `replaced_by`, left out of
what the model sees) — one mechanism, `_redo`. `continue_reply()` adds a sibling too: it starts with the
cut-off reply's text, and the model, shown that text once and asked to go on (`CONTINUE_PROMPT`, sent once,
never stored), writes the rest into it; the cut-off reply stays on its branch. It writes through the session's
`ChatState`, holds `Turns`' slot, and has the agent's `RunTurn` run each turn.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator, Sequence
from contextlib import contextmanager
from typing import Protocol

from tui_agent.agent.chat_state import ChatState
from tui_agent.agent.events import AgentEvent, MessageStatus, ReplyReplaced, TurnStarted
from tui_agent.agent.turn import Continuation
from tui_agent.agent.turns import Turns
from tui_agent.errors import UserError
from tui_agent.history.attachments import Attachment
from tui_agent.history.models import Message, Session
from tui_agent.status import Role, is_cut_off


class NothingToRedoError(UserError, RuntimeError):
    """Retry or continue was asked for, but the session's last message is not a reply that can be redone."""


class RunTurn(Protocol):
    """Runs a turn whose first response goes into `message_id`, yielding its events to `TurnFinished`."""

    def __call__(
        self,
        session: Session,
        message_id: str,
        turn_id: str,
        continuation: Continuation | None = None,
        agent: str | None = None,
    ) -> AsyncIterator[AgentEvent]: ...


class RedoTurns:
    """Edit, regenerate, retry and continue in the current session."""

    def __init__(self, state: ChatState, turns: Turns, run: RunTurn) -> None:
        self._state, self._turns, self._run = state, turns, run

    async def edit(
        self, message_id: str, text: str, attachments: Sequence[Attachment] | None = None
    ) -> AsyncIterator[AgentEvent]:
        """Send `text` as a new version of user message `message_id`: a sibling of it on a new branch, made
        active, answered by a turn (`TurnStarted.branches_from` names `message_id`); the old branch stays.
        `attachments`: the new version's files and images (None: the old version's, kept)."""
        async with self._turns.slot:
            await self._turns.saved()
            session, old = await self._state.message_here(message_id, Role.USER)
            kept = old.attachments if attachments is None else ()
            user = await self._state.store.add_sibling(
                old.id, Role.USER, text, attachments=kept, files=attachments or ()
            )
            reply = await self._state.store.append_message(
                session.id, Role.ASSISTANT, "", MessageStatus.STREAMING, model=self._state.model
            )
            await self._state.reload_conversation(session)
            turn_id = self._turns.next_id()
            yield TurnStarted(session.id, user.id, text, turn_id=turn_id, branches_from=old.id)
            async for event in self._run(session, reply.id, turn_id):
                yield event

    async def regenerate(self, message_id: str, model: str | None = None) -> AsyncIterator[AgentEvent]:
        """Ask again for reply `message_id` (with `model` for this once, if given): a sibling reply to the same
        prompt on a new branch, made active (`ReplyReplaced` first names the old one, which stays in history)."""
        async with self._turns.slot:
            await self._turns.saved()
            session, old = await self._state.message_here(message_id, Role.ASSISTANT)
            async for event in self._redo(session, old, model):
                yield event

    async def retry(self) -> AsyncIterator[AgentEvent]:
        """Regenerate the session's last reply (failed, cut off, or any other): see `regenerate`."""
        async with self._turns.slot:
            await self._turns.saved()
            session, last = await self._last_reply()
            async for event in self._redo(session, last):
                yield event

    async def _redo(self, session: Session, old: Message, model: str | None = None) -> AsyncIterator[AgentEvent]:
        """Retry and regenerate: a new reply beside `old` (kept, `replaced_by` it), then the turn that writes it;
        the model sees the new branch only."""
        if old.status is MessageStatus.STREAMING:
            raise NothingToRedoError("That reply is still being written (in another window?); wait for it.")
        with self._model_for_turn(model):
            reply = await self._state.store.replace_reply(session.id, old.id, model=self._state.model)
            await self._state.reload_conversation(session)
            turn_id = self._turns.next_id()
            yield ReplyReplaced(old.id, turn_id=turn_id)
            async for event in self._run(session, reply.id, turn_id):
                yield event

    @contextmanager
    def _model_for_turn(self, model: str | None) -> Iterator[None]:
        """Use `model` until the block ends (a regeneration's own model), then the one chosen before again."""
        before = self._state.model
        if model is None or model == before:
            yield
            return
        self._state.switch_model(model)
        try:
            yield
        finally:
            if self._state.model == model:  # not switched meanwhile by the person
                self._state.switch_model(before)

    async def continue_reply(self) -> AsyncIterator[AgentEvent]:
        """Have the model go on with the session's last reply from where it stopped (Esc, the token limit, a
        failure): a sibling reply on a new, active branch holds its text and the new text after it (one whole
        reply for the model from then on); the cut-off one stays as it was, on its own branch."""
        async with self._turns.slot:
            await self._turns.saved()
            session, last = await self._last_reply()
            cut_off = is_cut_off(last.status, last.error)  # its calls, if any, were cut while written: none ran
            if not cut_off and (last.tool_calls or not last.content.strip()):
                raise NothingToRedoError(
                    "The last reply has no text to continue (it ended in tool calls, or before "
                    "any text arrived): retry it instead."
                )
            reply = await self._state.store.add_sibling(
                last.id,
                Role.ASSISTANT,
                last.content,
                MessageStatus.STREAMING,
                model=self._state.model,
                agent=last.agent,
            )
            await self._state.carry_team_stop(session, last.id)
            await self._state.reload_conversation(
                session
            )  # (a `streaming` reply is not sent: the turn shows its text once)
            continuation = Continuation(last.id, last.content, last.part_texts)
            async for event in self._run(session, reply.id, self._turns.next_id(), continuation, agent=last.agent):
                yield event

    async def _last_reply(self) -> tuple[Session, Message]:
        """The current session and its last message, which must be a finished reply (to retry or continue)."""
        session = self._state.session
        last = (await self._state.store.load_tail(session.id, 1)) if session is not None else []
        if session is None or not last or last[0].role is not Role.ASSISTANT:
            raise NothingToRedoError("There is no reply to retry or continue yet: send a prompt first.")
        if last[0].status is MessageStatus.STREAMING:
            raise NothingToRedoError("The last reply is still being written (in another window?); wait for it.")
        return session, last[0]
