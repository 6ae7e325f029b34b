"""A chat screen drawn in place of another keeps the run's settings: `[ui] attach_paste_over` and
`attach_max_bytes` (read from the app's settings, `settings_of`) hold after a new session, an opened session, a fork, a
compaction and a sub-agent's session opened as the current one.

They were lost on the way (the fresh screen was built from a hand-picked few of the old one's settings), so a
short paste that the configured limit offers as an attachment went into the box as text.
The real stack (SQLite file, real agent, offline model over HTTP), except for the sub-agent's session, which the
scripted backend provides (its run would take a sub-agent's whole turn).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from textual import events
from textual.pilot import Pilot

from tests.ui.helpers import FIXED_NOW, chat, send, showing, wait_until
from tests.ui.sessions_stack import RealStack, Turn, build_and_resume, seed, stack_serving
from tests.ui.test_sub_agents import ASK, delegating, researcher_turn, stored
from tui_agent.agent.endpoint import EndpointChoice
from tui_agent.agent.resume import ResumeRequest
from tui_agent.boot import early_page
from tui_agent.config import Settings, UiSettings
from tui_agent.status import Role
from tui_agent.testing.scripted import ScriptedBackend
from tui_agent.ui.app import TuiAgentApp
from tui_agent.ui.screens.attach_paste import AttachPasteScreen
from tui_agent.ui.screens.chat import ChatScreen
from tui_agent.ui.screens.session_dialogs import ForkScreen
from tui_agent.ui.screens.sessions import SessionsScreen
from tui_agent.ui.screens.sub_session import SubSessionScreen
from tui_agent.ui.widgets.prompt import AttachLimits

SIZE = (130, 40)
LIMITS = AttachLimits(paste_over=40, max_bytes=1_000)
"""Far below the defaults (20,000 characters, 256 KB): a 60-character paste is offered as an attachment."""
LIMITED = UiSettings.model_validate({"attach_paste_over": LIMITS.paste_over, "attach_max_bytes": LIMITS.max_bytes})
TURNS = [Turn("What is sourdough?", "A bread leavened by a starter."), Turn("And rye?", "Rye sourdough is denser.")]


@pytest.fixture
def stack(tmp_path: Path) -> Iterator[RealStack]:
    yield from stack_serving(tmp_path)  # the offline model's own behaviour: it writes summaries too


def app_with_limits(stack: RealStack, resume: ResumeRequest | None = None) -> TuiAgentApp:
    """The app as `tui-agent [--continue]` runs it with `[ui] attach_paste_over = 40`, `attach_max_bytes = 1000`."""
    settings = Settings(db=stack.db, ui=LIMITED)
    choice = EndpointChoice(stack.server.base_url, "scripted", "test-key")
    return TuiAgentApp(
        lambda: build_and_resume(settings, choice, resume),
        model=choice.model,
        endpoint=choice.label,
        early_page=early_page(stack.db, resume) if resume is not None else None,
        clock=lambda: FIXED_NOW,
        cursor_blink=False,
        settings=settings,
    )


async def fresh_screen(pilot: Pilot[None], old: ChatScreen) -> ChatScreen:
    """The chat screen drawn in place of `old`, once it is up."""
    await wait_until(
        pilot, lambda: showing(pilot.app, ChatScreen) and pilot.app.screen is not old, "a fresh chat screen"
    )
    return chat(pilot)


async def limits_kept(pilot: Pilot[None], screen: ChatScreen) -> None:
    """The screen's prompt has the configured limits, and acts on them: a paste over 40 characters is offered
    as an attachment (Esc: nothing pasted)."""
    assert screen.prompt_input.attach_limits == LIMITS
    await wait_until(pilot, lambda: pilot.app.focused is screen.prompt_input, "the prompt focused")
    screen.prompt_input.post_message(events.Paste("sixty characters of a log line, over the limit of forty!!"))
    await wait_until(pilot, lambda: showing(pilot.app, AttachPasteScreen), "the paste offered as an attachment")
    await pilot.press("escape")
    await wait_until(pilot, lambda: pilot.app.screen is screen, "back in the chat")


async def test_the_first_screen_has_the_limits(stack: RealStack) -> None:
    app = app_with_limits(stack)
    async with app.run_test(size=SIZE) as pilot:
        await limits_kept(pilot, chat(pilot))


async def test_a_new_session_keeps_the_limits(stack: RealStack) -> None:
    app = app_with_limits(stack)
    async with app.run_test(size=SIZE) as pilot:
        first = chat(pilot)
        await send(pilot, "What is sourdough?")
        await pilot.press("ctrl+n")
        await limits_kept(pilot, await fresh_screen(pilot, first))


async def test_an_opened_session_keeps_the_limits(stack: RealStack) -> None:
    await seed(stack.db, "Sourdough", TURNS)
    app = app_with_limits(stack)
    async with app.run_test(size=SIZE) as pilot:
        first = chat(pilot)
        await pilot.press("ctrl+s")
        await wait_until(pilot, lambda: showing(app, SessionsScreen) and bool(app.screen.sessions), "listed")  # type: ignore[attr-defined]
        await pilot.press("enter")
        await limits_kept(pilot, await fresh_screen(pilot, first))


async def test_a_fork_keeps_the_limits(stack: RealStack) -> None:
    await seed(stack.db, "Sourdough", TURNS)
    app = app_with_limits(stack)
    async with app.run_test(size=SIZE) as pilot:
        first = chat(pilot)
        await pilot.press("ctrl+s")
        await wait_until(pilot, lambda: showing(app, SessionsScreen) and bool(app.screen.sessions), "listed")  # type: ignore[attr-defined]
        await pilot.press("ctrl+f")
        await wait_until(pilot, lambda: showing(app, ForkScreen), "the fork dialog")
        await pilot.press("enter")  # from the newest message
        await limits_kept(pilot, await fresh_screen(pilot, first))


async def test_a_compaction_keeps_the_limits(stack: RealStack) -> None:
    await seed(stack.db, "Sourdough", TURNS)
    app = app_with_limits(stack, ResumeRequest(latest=True))
    async with app.run_test(size=SIZE) as pilot:
        first = chat(pilot)
        await wait_until(pilot, lambda: first.backend is not None and len(first.chat_log.entries) >= 4, "resumed")
        await pilot.press("f9")
        screen = await fresh_screen(pilot, first)
        await wait_until(pilot, lambda: "compacted" in str(screen.chat_log.entries[-1].render()), "the note")
        await limits_kept(pilot, screen)


async def test_a_sub_agents_session_opened_as_the_current_one_keeps_the_limits() -> None:
    backend = ScriptedBackend()
    app = TuiAgentApp(backend, clock=lambda: FIXED_NOW, cursor_blink=False, settings=Settings(ui=LIMITED))
    child = backend.add_session("Find the weather", [stored("task", Role.USER), stored("It rains.", Role.ASSISTANT)])
    backend.add_script(delegating(*researcher_turn(), session_id=child.id))
    async with app.run_test() as pilot:
        first = chat(pilot)
        await send(pilot, "Ask the researcher about Oslo")
        panel = first.tool_panels.panel(ASK)
        assert panel is not None
        panel.focus()
        await pilot.press("o")
        await wait_until(pilot, lambda: showing(app, SubSessionScreen), "its session shown")
        await pilot.press("ctrl+o")
        await limits_kept(pilot, await fresh_screen(pilot, first))
