"""Benchmark: opening stored sessions with `--resume`, against opening an empty session in the same run.

Sessions of 200 and of 10,000 messages (the large one with 2,000 tool calls) are written into a real
history file. Each is opened with `tui-agent --offline --resume ID` in a pseudo-terminal; the clock stops
when the session's title is in the status bar, which the chat screen shows once the newest page of
messages is mounted. Targets: <= 500 ms and <= 2x the empty case for both.

Scrolling (headless, the real app on the same file): every scroll to the top of the 10,000-message session
until everything is loaded, timed to the next frame; p95 against the same steps on the empty session
(target <= 5x), and the count of messages shown at the end (must be all of them).

    python bench/resume.py [--runs N]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from startup import first_frame_seconds

from tui_agent.agent.deferred import DeferredAgent
from tui_agent.agent.endpoint import EndpointChoice
from tui_agent.agent.services import build_agent
from tui_agent.config import Settings
from tui_agent.history.store import HistoryStore
from tui_agent.status import MessageStatus, ToolStatus
from tui_agent.ui.app import TuiAgentApp
from tui_agent.ui.screens.chat import ChatScreen

SIZE = (120, 40)


async def seed(db: Path, title: str, messages: int, tool_calls: int) -> str:
    """A session of `messages` (prompt/reply pairs), `tool_calls` of them spread over the replies."""
    store = await HistoryStore.open(db)
    try:
        session = await store.create_session(title, model="offline")
        turns = messages // 2
        every = max(1, turns // tool_calls) if tool_calls else 0
        for n in range(turns):
            _, reply = await store.begin_turn(session.id, f"question {n}: what about item {n}?", model="offline")
            if every and n % every == 0 and n // every < tool_calls:
                arguments = f'{{"location": "City {n}"}}'
                await store.record_tool_call(reply.id, f"call-{n}", "get_current_weather", arguments,
                                             {"location": f"City {n}"})
                await store.update_tool_call(reply.id, f"call-{n}", ToolStatus.RUNNING)
                await store.update_tool_call(reply.id, f"call-{n}", ToolStatus.DONE, result=f"sunny in City {n}")
            await store.finish_message(reply.id, MessageStatus.COMPLETE,
                                       content=f"Answer {n}:\n\n- a point\n- another\n\n`code {n}` reply-{n}-end")
        return session.id
    finally:
        await store.close()


def open_seconds(db: Path, session_id: str, title: bytes, env: dict[str, str], runs: int) -> float:
    """Median seconds from spawn until the session's title is in the status bar (its newest page is shown)."""
    command = [sys.executable, "-m", "tui_agent", "--offline", "--db", str(db), "--resume", session_id]
    return statistics.median(first_frame_seconds(command, title, env) for _ in range(runs))


SCROLL_BUDGET = 90.0
"""Seconds of scrolling before giving up on loading everything (what was loaded by then is reported)."""


async def scroll_frames(db: Path, session_id: str) -> tuple[list[float], int]:
    """Seconds per scroll-to-top until all is loaded (or the budget is spent), and how many were shown then."""
    settings = Settings(db=db)
    choice = EndpointChoice(None, "offline")

    async def build():  # type: ignore[no-untyped-def]
        built = await build_agent(settings, choice)
        await built.agent.resume(session_id)
        return built

    backend = DeferredAgent(build, model="offline", endpoint="offline model")
    app = TuiAgentApp(backend, cursor_blink=False)
    steps: list[float] = []
    async with app.run_test(size=SIZE) as pilot:
        await backend.ready()
        screen = app.screen
        assert isinstance(screen, ChatScreen)
        view = screen.history
        while view.loading or (view.loaded_messages == 0 and not view.exhausted):
            await pilot.pause(0.01)
        began = time.perf_counter()
        while time.perf_counter() - began < SCROLL_BUDGET:
            start = time.perf_counter()
            screen.chat_log.scroll_home(animate=False)
            await pilot.pause()
            while view.loading:
                await pilot.pause()
            steps.append(time.perf_counter() - start)
            if view.exhausted and screen.chat_log.hidden_count == 0:
                break
        shown = view.loaded_messages
    await backend.close()
    return steps, shown


def p95(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))]


def result(metric: str, value: float, base: float, target: str) -> None:
    print(f"result: {metric}={value:.1f} baseline={base:.1f} ratio={value / base:.2f} target={target}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as home:
        db = Path(home) / "history.db"
        began = time.perf_counter()
        empty = asyncio.run(seed(db, "empty-session-title", 0, 0))
        small = asyncio.run(seed(db, "small-session-title", 200, 40))
        large = asyncio.run(seed(db, "large-session-title", 10_000, 2_000))
        print(f"info: seeded 3 sessions in {time.perf_counter() - began:.1f}s")
        env = {**os.environ, "TUI_AGENT_HOME": home, "TERM": "xterm-256color"}
        env.pop("OPENAI_BASE_URL", None)
        open_seconds(db, empty, b"empty-session-title", env, 1)  # warm the file cache
        base = open_seconds(db, empty, b"empty-session-title", env, args.runs)
        small_s = open_seconds(db, small, b"small-session-title", env, args.runs)
        large_s = open_seconds(db, large, b"large-session-title", env, args.runs)
        print(f"info: empty {base * 1000:.0f} ms, 200 messages {small_s * 1000:.0f} ms, "
              f"10,000 messages {large_s * 1000:.0f} ms (median of {args.runs}, to the session on screen)")
        empty_steps, _ = asyncio.run(scroll_frames(db, empty))
        large_steps, shown = asyncio.run(scroll_frames(db, large))
    print(f"info: scrolled to the top {len(large_steps)} times in at most {SCROLL_BUDGET:.0f}s; {shown} of 10000 "
          f"messages shown at the end; last steps {[round(step * 1000) for step in large_steps[-3:]]} ms")
    result("resume_200_ms", small_s * 1000, base * 1000, "<=500")
    result("resume_10000_ms", large_s * 1000, base * 1000, "<=500")
    result("resume_200_vs_empty", small_s * 1000, base * 1000, "ratio<=2")
    result("resume_10000_vs_empty", large_s * 1000, base * 1000, "ratio<=2")
    result("scroll_frame_p95_ms", p95(large_steps) * 1000, p95(empty_steps) * 1000, "ratio<=5")
    print(f"result: loaded_at_top={shown} baseline=10000 ratio={shown / 10000:.2f} target==1")


if __name__ == "__main__":
    main()
