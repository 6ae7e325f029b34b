"""Prompts waiting to be sent are not lost when the chat screen is replaced (a new session, another session opened):
the fresh screen's prompt box holds them, oldest first, with their files and the box's own unsent text, and a
notice says why they were not sent. They were meant for the conversation the old screen showed, so none is sent
to the new one unasked. Before, they were dropped with the old screen.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from textual.pilot import Pilot

from tests.ui.helpers import chat, send, showing, wait_until
from tests.ui.sessions_stack import RealStack, Turn, seed, stack_serving, stored
from tests.ui.test_queued_prompts import gated_reply, queue
from tui_agent.agent.resume import ResumeRequest
from tui_agent.history.attachments import Attachment
from tui_agent.status import Role
from tui_agent.testing.scripted import Gate, ScriptedBackend
from tui_agent.ui.app import TuiAgentApp
from tui_agent.ui.screens.chat import ChatScreen
from tui_agent.ui.screens.sessions import SessionsScreen
from tui_agent.ui.textual_private import notifications
from tui_agent.ui.widgets.messages import UserMessage

SIZE = (130, 40)
TURNS = [Turn("What is sourdough?", "A bread leavened by a starter."), Turn("And rye?", "Rye sourdough is denser.")]
SLOW_SUMMARY = {"text": "The person asked about sourdough and rye.", "first_token_delay": 60}
"""The summary a compaction asks for, an answer that takes long to start (a slow model)."""


async def fresh_screen(pilot: Pilot[None], old: ChatScreen) -> ChatScreen:
    await wait_until(
        pilot, lambda: showing(pilot.app, ChatScreen) and pilot.app.screen is not old, "a fresh chat screen"
    )
    return chat(pilot)


def said(app: TuiAgentApp, words: str) -> bool:
    return any(words in notice.message for notice in notifications(app))


async def test_queued_prompts_go_to_the_new_sessions_prompt_box_with_their_files() -> None:
    gate = Gate()
    backend = ScriptedBackend([gated_reply(gate)])
    app = TuiAgentApp(backend, cursor_blink=False)
    async with app.run_test(size=SIZE) as pilot:
        await send(pilot, "first", wait=False)
        await wait_until(pilot, lambda: gate.reached, "mid-reply")
        old = chat(pilot)
        old.prompt_input.set_attachments([Attachment.of_text("notes.md", "# notes")])
        await queue(pilot, "two", "three")
        old.prompt_input.insert("a draft")
        await pilot.press("ctrl+n")
        screen = await fresh_screen(pilot, old)
        box = screen.prompt_input
        await wait_until(pilot, lambda: box.text == "two\n\nthree\n\na draft", lambda: repr(box.text))
        assert [a.name for a in box.attachments] == ["notes.md"]  # "two"'s file
        await wait_until(pilot, lambda: said(app, "2 prompts that waited were not sent"), "the notice")
        gate.open()  # the old turn's end sends nothing: the queue went with the prompts
        await wait_until(pilot, lambda: not old.is_attached or old.retired, "the old screen gone")
        assert backend.prompts == ["first"] and not screen.queued.prompts and not list(screen.query(UserMessage))


@pytest.fixture
def stack(tmp_path: Path) -> Iterator[RealStack]:
    yield from stack_serving(tmp_path, {"replies": [SLOW_SUMMARY]})


async def test_a_prompt_queued_during_a_compaction_goes_to_the_new_sessions_prompt_box(stack: RealStack) -> None:
    """The real stack: a prompt sent while the summary is written waits; Ctrl+N then (the agent starts afresh:
    no reply runs) brings it to the new session's box, and sending it from there starts that session."""
    await seed(stack.db, "Sourdough", TURNS)
    app, _ = stack.app(ResumeRequest(latest=True))
    async with app.run_test(size=SIZE) as pilot:
        old = chat(pilot)
        await wait_until(pilot, lambda: old.backend is not None and len(old.chat_log.entries) >= 4, "resumed")
        await pilot.press("f9")
        await wait_until(pilot, lambda: old.status_bar.compacting, "compacting")
        await send(pilot, "what about spelt?", wait=False)
        await wait_until(pilot, lambda: old.queued.prompts == ["what about spelt?"], "queued")
        await pilot.press("ctrl+n")
        screen = await fresh_screen(pilot, old)
        await wait_until(pilot, lambda: screen.prompt_input.text == "what about spelt?", "in the new prompt box")
        await wait_until(pilot, lambda: said(app, "A prompt that waited was not sent"), "the notice")
        await wait_until(pilot, lambda: screen.idle, "nothing sent unasked")
        await pilot.press("enter")
        await wait_until(pilot, lambda: [u.prompt for u in screen.query(UserMessage)] == ["what about spelt?"], "sent")
    sessions, messages = await stored(stack.db)
    assert [s.title for s in sessions] == ["what about spelt?", "Sourdough"]
    assert [(m.role, m.content) for m in messages][:1] == [(Role.USER, "what about spelt?")]


async def test_queued_prompts_go_to_the_prompt_box_of_another_session_opened() -> None:
    gate = Gate()
    backend = ScriptedBackend([gated_reply(gate)])
    other = backend.add_session("Rye bread", [])
    app = TuiAgentApp(backend, cursor_blink=False)
    async with app.run_test(size=SIZE) as pilot:
        await send(pilot, "first", wait=False)
        await wait_until(pilot, lambda: gate.reached, "mid-reply")
        old = chat(pilot)
        await queue(pilot, "two")
        await pilot.press("ctrl+s")
        await wait_until(pilot, lambda: showing(app, SessionsScreen) and other.id in app.screen.sessions, "listed")  # type: ignore[attr-defined]
        app.screen.open(other.id)  # type: ignore[attr-defined]
        screen = await fresh_screen(pilot, old)
        await wait_until(pilot, lambda: screen.prompt_input.text == "two", lambda: repr(screen.prompt_input.text))
        assert backend.current_session_id == other.id
        await wait_until(pilot, lambda: said(app, "A prompt that waited was not sent"), "the notice")
        gate.open()
        await wait_until(pilot, lambda: old.retired or not old.is_attached, "the old screen gone")
        assert backend.prompts == ["first"]
