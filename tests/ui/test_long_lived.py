"""What the app takes out of the garbage collector's reach stays put over a session: turns add nothing to it.

`gc.freeze()` moves every object that exists into a generation the collector never looks at again; done at
each turn it kept each turn's garbage (a finished reply's widgets, events, requests) for good. bench/memory.py
measures what that cost in memory; here, on the real stack (offline model over HTTP, real agent, SQLite), the
frozen count after many turns is what it was after the first ones. And the full collection the tuned collector
makes rare runs when a turn has ended, while the person reads (its garbage cycles freed before the next turn).
"""

from __future__ import annotations

import gc
from pathlib import Path
from typing import Any

from tests.fixtures.offline import strict_scenario
from tests.ui.helpers import app_on_real_agent, chat, send, wait_until
from tui_agent.agent.endpoint import EndpointChoice
from tui_agent.config import Settings
from tui_agent.offline.server import BackgroundServer

REPLY = "## Done\n\n- the build **passed**\n- see `module.py`\n\n```python\nprint('ok')\n```\n"


async def test_turns_freeze_nothing_more(tmp_path: Path) -> None:
    with BackgroundServer(strict_scenario({"replies": [{"text": REPLY, "chunk_size": 4}], "then": "repeat_last"})) as s:
        app, _ = app_on_real_agent(Settings(db=tmp_path / "history.db"), EndpointChoice(s.base_url, "m", "key"))
        async with app.run_test(size=(120, 36)) as pilot:
            for turn in range(2):  # the engine is built and the first page shown (which freezes what lives on)
                await send(pilot, f"warm-up {turn}")
            await wait_until(pilot, lambda: not [w for w in app.workers if w.group == "history"], "history loaded")
            frozen = gc.get_freeze_count()
            for turn in range(8):
                await send(pilot, f"turn {turn}")
            assert len(chat(pilot).chat_log.assistant_messages) >= 8
            # Frozen objects freed since (by reference counting) leave it: it may shrink, never grow.
            assert gc.get_freeze_count() <= frozen, f"{gc.get_freeze_count() - frozen} objects frozen by 8 turns"


async def test_new_sessions_freeze_nothing_more(tmp_path: Path) -> None:
    """A fresh chat screen (Ctrl+N) replaces the last one: what the last one showed is garbage from then on."""
    with BackgroundServer(strict_scenario({"replies": [{"text": REPLY, "chunk_size": 4}], "then": "repeat_last"})) as s:
        app, _ = app_on_real_agent(Settings(db=tmp_path / "history.db"), EndpointChoice(s.base_url, "m", "key"))
        async with app.run_test(size=(120, 36)) as pilot:
            await send(pilot, "warm-up")
            await wait_until(pilot, lambda: not [w for w in app.workers if w.group == "history"], "history loaded")
            frozen = gc.get_freeze_count()
            for session in range(4):
                screen = chat(pilot)
                await pilot.press("ctrl+n")
                await wait_until(pilot, lambda: pilot.app.screen is not screen and chat(pilot).is_mounted, "new")  # noqa: B023
                await send(pilot, f"session {session}")
                await wait_until(pilot, lambda: not [w for w in app.workers if w.group == "history"], "its history")
            assert gc.get_freeze_count() <= frozen, f"{gc.get_freeze_count() - frozen} objects frozen by 4 sessions"


async def test_a_full_collection_runs_once_a_turn_has_ended(tmp_path: Path) -> None:
    """The collector runs only when asked here (automatic collections off), so what runs is the app's."""
    full: list[bool] = []  # one per full collection: whether the screen was idle then
    screens: list[Any] = []

    def observed(phase: str, info: dict[str, int]) -> None:
        if phase == "start" and info["generation"] == 2 and screens:
            full.append(screens[0].idle)

    automatic = gc.isenabled()
    gc.disable()
    gc.callbacks.append(observed)
    try:
        with BackgroundServer(strict_scenario({"replies": [{"text": REPLY}], "then": "repeat_last"})) as s:
            app, _ = app_on_real_agent(Settings(db=tmp_path / "history.db"), EndpointChoice(s.base_url, "m", "key"))
            async with app.run_test(size=(120, 36)) as pilot:
                screens.append(chat(pilot))
                await send(pilot, "first")
                await wait_until(pilot, lambda: bool(full), "a full collection after the turn")
                assert all(full), f"full collections while a turn ran: {full}"
    finally:
        gc.callbacks.remove(observed)
        if automatic:
            gc.enable()


async def test_a_collection_asked_for_by_a_screen_replaced_since_is_dropped_quietly(tmp_path: Path) -> None:
    """The collection is asked for after the frame that shows a turn's end; a Ctrl+N before that frame retires
    the screen, which then has no widgets to ask whether it is idle (it raised NoMatches and ended the app)."""
    with BackgroundServer(strict_scenario({"replies": [{"text": REPLY}], "then": "repeat_last"})) as s:
        app, _ = app_on_real_agent(Settings(db=tmp_path / "history.db"), EndpointChoice(s.base_url, "m", "key"))
        async with app.run_test(size=(120, 36)) as pilot:
            old = chat(pilot)
            await send(pilot, "first")
            await pilot.press("ctrl+n")
            await wait_until(pilot, lambda: pilot.app.screen is not old and chat(pilot).is_mounted, "a fresh screen")
            await wait_until(pilot, lambda: old.retired, "the old screen retired")
            old.turns._collect_garbage()  # what its after-refresh callback does when it comes this late
            await send(pilot, "second")  # the app goes on
            assert len(chat(pilot).chat_log.assistant_messages) == 1
