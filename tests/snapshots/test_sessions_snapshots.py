"""Snapshots of the session screen (Ctrl+S) on the scripted backend: the list at 80×24 (the least useful details
left out) and 160×45 (all of them: agent, model, messages, cost, when; each row's last reply under it), a
full-text filter with its snippet, and the delete confirmation. Fixed dates and clock, sizes and no cursor blink,
so the pictures are stable."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from decimal import Decimal

from textual.pilot import Pilot
from textual.widgets import Input

from tests.ui.helpers import FIXED_NOW, SIZE, showing, wait_until
from tui_agent.history.models import Message
from tui_agent.status import MessageStatus, Role
from tui_agent.testing.scripted import ScriptedBackend
from tui_agent.ui.app import TuiAgentApp
from tui_agent.ui.screens.session_dialogs import ConfirmDeleteScreen
from tui_agent.ui.screens.sessions import SessionsScreen

SnapCompare = Callable[..., bool]
WHEN = datetime(2026, 11, 20, 9, 30, tzinfo=UTC)
NOW = WHEN.replace(minute=32)
"""The rows' clock: two minutes after the newest session's last activity."""
NARROW, WIDE = (80, 24), (160, 45)


def message(role: Role, content: str, n: int) -> Message:
    return Message(f"m{n}", "", n, role, content, MessageStatus.COMPLETE, None, None, None, WHEN, WHEN)


def exchange(*pairs: tuple[str, str]) -> list[Message]:
    out: list[Message] = []
    for prompt, reply in pairs:
        out += [message(Role.USER, prompt, len(out)), message(Role.ASSISTANT, reply, len(out) + 1)]
    return out


def three_sessions() -> TuiAgentApp:
    backend = ScriptedBackend()
    backend.add_session(
        "Weather in Oslo",
        exchange(("Weather in Oslo?", "Cold and clear, -3 °C.")),
        model="gpt-4o-mini",
        updated_at=WHEN.replace(day=18, hour=14, minute=5),
        cost=Decimal("0.0042"),
    )
    backend.add_session(
        "Sourdough starter: feeding schedule and flour ratios",
        exchange(
            ("How do I feed a sourdough starter?", "Equal weights of flour and water, once a day."),
            ("And if it smells of acetone?", "Feed it twice a day."),
        ),
        model="llama3.1:8b",
        updated_at=WHEN.replace(day=19, hour=8, minute=12),
        agent="baker",
    )
    backend.add_session(
        "Refactor the tool runner",
        exchange(("Split run_tools in two", "Done: see the diff.")),
        model="offline",
        updated_at=WHEN,
        agent="coder",
        cost=Decimal("1.25"),
    )
    return TuiAgentApp(backend, clock=lambda: FIXED_NOW, cursor_blink=False)


async def open_sessions(pilot: Pilot[None]) -> SessionsScreen:
    """The session screen as Ctrl+S opens it, with the rows' clock fixed at `NOW`."""
    app = pilot.app
    assert isinstance(app, TuiAgentApp)
    backend = await app.engine()
    assert isinstance(backend, ScriptedBackend)
    await app.push_screen(SessionsScreen(backend.sessions, now=lambda: NOW))  # the library alone is all it takes
    await wait_until(
        pilot,
        lambda: isinstance(pilot.app.screen, SessionsScreen) and len(pilot.app.screen.sessions) == 3,
        "three sessions listed",
    )
    await pilot.pause()
    screen = pilot.app.screen
    assert isinstance(screen, SessionsScreen)
    return screen


def test_session_list_at_80_columns(snap_compare: SnapCompare) -> None:
    assert snap_compare(three_sessions(), terminal_size=NARROW, run_before=open_sessions)


def test_session_list_at_160_columns(snap_compare: SnapCompare) -> None:
    assert snap_compare(three_sessions(), terminal_size=WIDE, run_before=open_sessions)


def test_session_list_filtered_by_message_text(snap_compare: SnapCompare) -> None:
    async def run_before(pilot: Pilot[None]) -> None:
        screen = await open_sessions(pilot)
        await pilot.press(*"acetone")
        await wait_until(
            pilot, lambda: len(screen.sessions) == 1 and screen.query_one(Input).value == "acetone", "filtered to one"
        )
        await pilot.pause()

    assert snap_compare(three_sessions(), terminal_size=NARROW, run_before=run_before)


def test_delete_confirmation(snap_compare: SnapCompare) -> None:
    async def run_before(pilot: Pilot[None]) -> None:
        await open_sessions(pilot)
        await pilot.press("down", "ctrl+d")
        await wait_until(pilot, lambda: showing(pilot.app, ConfirmDeleteScreen), "confirmation")
        await pilot.pause()

    assert snap_compare(three_sessions(), terminal_size=SIZE, run_before=run_before)
