"""Benchmark: opening stored sessions with `--resume`, against opening an empty session in the same run.

Sessions of 200 and of 10,000 messages (the large one with 2,000 tool calls), and one of 200 replies of
50 KB of markdown each (long lists, code, a table), are written into a real history file. Each is opened
with `tui-agent --offline --resume ID` in a pseudo-terminal; the clock stops when the session's title is in
the status bar, which the chat screen shows once the newest page of messages is mounted. Target: <= 2x the
empty session opened the same way in the same run, for each (a ratio, not milliseconds: a fixed 500 ms
failed whenever the shared machine was busy, which slows the empty case just as much).

Scrolling (headless, the real app on the same file): scroll to the top of the 10,000-message session again
and again until everything is loaded; the p95 of every frame drawn meanwhile (layout + compositing +
write, as in render.py) against full-screen frames of the empty session (target <= 5x), and the count of
messages shown at the end (must be all of them). The time per page loaded is printed too. The same for the
session of long replies: opened within the same target, scrolled to the top with frames within 5x.

    python bench/resume.py [--runs N] [--only open,scroll,long_open,long_scroll]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import tempfile
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from frames import FRAMES
from startup import compile_bytecode, interleaved_medians
from textual.pilot import Pilot

from tui_agent.agent.endpoint import EndpointChoice
from tui_agent.agent.services import build_agent
from tui_agent.config import Settings
from tui_agent.history.store import HistoryStore
from tui_agent.launch import tune_garbage_collector
from tui_agent.status import MessageStatus, ToolStatus
from tui_agent.ui.app import TuiAgentApp
from tui_agent.ui.screens.chat import ChatScreen

SIZE = (120, 40)


def long_reply(n: int, size: int = 50_000) -> str:
    """About `size` characters of markdown: a heading, a long list, a code block and a table, repeated."""
    parts, part = [f"# Answer {n}\n\n"], 0
    while sum(map(len, parts)) < size:
        part += 1
        parts.append(f"## Part {part}\n\n" + "".join(f"- step {part}.{k}: wrote `out/{n}_{k}.o`\n" for k in range(40)))
        parts.append("\n```python\n" + "".join(f"x_{k} = compute({k}, {n})\n" for k in range(20)) + "```\n\n")
        parts.append("| k | v |\n|---|---|\n" + "".join(f"| {k} | {k * n} |\n" for k in range(15)) + "\n")
    return "".join(parts) + f"reply-{n}-end\n"


async def seed_long(db: Path, title: str, replies: int) -> str:
    """A session of `replies` prompt/reply pairs, each reply about 50 KB of markdown."""
    store = await HistoryStore.open(db)
    try:
        session = await store.create_session(title, model="offline")
        for n in range(replies):
            _, reply = await store.begin_turn(session.id, f"question {n}: show me everything", model="offline")
            await store.finish_message(reply.id, MessageStatus.COMPLETE, content=long_reply(n))
        return session.id
    finally:
        await store.close()


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
                await store.record_tool_call(
                    reply.id, f"call-{n}", "get_current_weather", arguments, {"location": f"City {n}"}
                )
                await store.update_tool_call(reply.id, f"call-{n}", ToolStatus.RUNNING)
                await store.update_tool_call(reply.id, f"call-{n}", ToolStatus.DONE, result=f"sunny in City {n}")
            await store.finish_message(
                reply.id,
                MessageStatus.COMPLETE,
                content=f"Answer {n}:\n\n- a point\n- another\n\n`code {n}` reply-{n}-end",
            )
        return session.id
    finally:
        await store.close()


def open_seconds(db: Path, sessions: list[tuple[str, bytes]], env: dict[str, str], runs: int) -> list[float]:
    """Median seconds from spawn until each session's title is in the status bar (its newest page is shown).

    The sessions take turns run after run, so a burst of load on the machine falls on all of them alike.
    """
    programs = [
        ([sys.executable, "-m", "tui_agent", "--offline", "--db", str(db), "--resume", session_id], title)
        for session_id, title in sessions
    ]
    return interleaved_medians(programs, env, runs)


SCROLL_BUDGET = 90.0
"""Seconds of scrolling before giving up on loading everything (what was loaded by then is reported)."""


@dataclass
class Scrolled:
    """One scroll-to-the-top run: seconds per step (a page loaded), every frame's duration, messages shown."""

    steps: list[float]
    frames: list[float]
    shown: int


@asynccontextmanager
async def resumed(db: Path, session_id: str) -> AsyncIterator[tuple[Pilot[None], ChatScreen]]:
    """The real app (headless) with `session_id` resumed and its newest page shown."""
    settings = Settings(db=db)
    choice = EndpointChoice(None, "offline")

    async def build():  # type: ignore[no-untyped-def]
        built = await build_agent(settings, choice)
        await built.agent.resume(session_id)
        return built

    app = TuiAgentApp(build, model="offline", endpoint="offline model", cursor_blink=False)
    async with app.run_test(size=SIZE) as pilot:
        await app.engine()
        screen = app.screen
        assert isinstance(screen, ChatScreen)
        while screen.history.loading or (screen.history.loaded_messages == 0 and not screen.history.exhausted):
            await pilot.pause(0.01)
        yield pilot, screen


async def scroll_frames(db: Path, session_id: str) -> Scrolled:
    """Scroll to the top until all is loaded (or the budget is spent), timing steps and frames meanwhile."""
    steps: list[float] = []
    async with resumed(db, session_id) as (pilot, screen):
        view = screen.history
        began = time.perf_counter()
        first_frame = len(FRAMES)
        while time.perf_counter() - began < SCROLL_BUDGET:
            start = time.perf_counter()
            screen.chat_log.scroll_home(animate=False)
            await pilot.pause()
            while view.loading or (screen.chat_log.scroll_y <= 0 and not view.exhausted):
                await pilot.pause()  # until the page is in and the view is back where it was, as a person waits
            steps.append(time.perf_counter() - start)
            if view.exhausted and screen.chat_log.hidden_count == 0:
                break
        frames = [duration for _, duration in FRAMES[first_frame:]]
        return Scrolled(steps, frames, view.loaded_messages)


async def repaint_frames(db: Path, session_id: str, count: int = 300) -> list[float]:
    """Durations of `count` full frames (layout, compositing, write) of the chat screen on `session_id`.

    The empty session's scrolling draws nothing, so its frames are forced: each one lays out and paints
    the whole screen, which is what a scrolling frame does at most.
    """
    async with resumed(db, session_id) as (pilot, screen):
        first_frame = len(FRAMES)
        for _ in range(count):
            screen.refresh(layout=True)
            await pilot.pause()
        return [duration for _, duration in FRAMES[first_frame:]]


def p95(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))]


def result(metric: str, value: float, base: float, target: str) -> None:
    print(f"result: {metric}={value:.1f} baseline={base:.1f} ratio={value / base:.2f} target={target}")


CASES = ("open", "scroll", "long_open", "long_scroll")
"""Parts of the run `--only` picks: opening the 200/10,000-message sessions, scrolling the large one, and
the same two for the session of long replies."""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--only", default="", help=f"comma-separated parts of the run, of {', '.join(CASES)}")
    args = parser.parse_args()
    only = set(filter(None, args.only.split(","))) or set(CASES)
    if unknown := only - set(CASES):
        parser.error(f"unknown parts: {', '.join(sorted(unknown))}")
    compile_bytecode()
    tune_garbage_collector()  # as `tui-agent` does at start
    with tempfile.TemporaryDirectory() as home:
        db = Path(home) / "history.db"
        began = time.perf_counter()
        empty = asyncio.run(seed(db, "empty-session-title", 0, 0))
        if {"open", "scroll"} & only:
            small = asyncio.run(seed(db, "small-session-title", 200, 40))
            large = asyncio.run(seed(db, "large-session-title", 10_000, 2_000))
        if {"long_open", "long_scroll"} & only:
            long = asyncio.run(seed_long(db, "long-replies-title", 200))
        print(f"info: seeded the sessions in {time.perf_counter() - began:.1f}s")
        env = {**os.environ, "TUI_AGENT_HOME": home, "TERM": "xterm-256color"}
        env.pop("OPENAI_BASE_URL", None)
        if {"open", "long_open"} & only:
            open_seconds(db, [(empty, b"empty-session-title")], env, 1)  # warm the file cache
        if "open" in only:
            base, small_s, large_s = open_seconds(
                db,
                [(empty, b"empty-session-title"), (small, b"small-session-title"), (large, b"large-session-title")],
                env,
                args.runs,
            )
            print(
                f"info: empty {base * 1000:.0f} ms, 200 messages {small_s * 1000:.0f} ms, "
                f"10,000 messages {large_s * 1000:.0f} ms (median of {args.runs}, to the session on screen)"
            )
            result("resume_200_ms", small_s * 1000, base * 1000, "ratio<=2")
            result("resume_10000_ms", large_s * 1000, base * 1000, "ratio<=2")
        if "long_open" in only:
            base, long_s = open_seconds(
                db, [(empty, b"empty-session-title"), (long, b"long-replies-title")], env, args.runs
            )
            print(
                f"info: empty {base * 1000:.0f} ms, 200 x 50 KB replies {long_s * 1000:.0f} ms "
                f"(median of {args.runs}, to the session on screen)"
            )
            result("resume_long_replies_ms", long_s * 1000, base * 1000, "ratio<=2")
        if {"scroll", "long_scroll"} & only:
            empty_frames = asyncio.run(repaint_frames(db, empty))
        if "scroll" in only:
            report_scroll(asyncio.run(scroll_frames(db, large)), empty_frames)
        if "long_scroll" in only:
            report_long_scroll(asyncio.run(scroll_frames(db, long)), empty_frames)


def report_scroll(run: Scrolled, empty_frames: list[float]) -> None:
    print(
        f"info: scrolled to the top {len(run.steps)} times ({sum(run.steps):.1f} s, {len(run.frames)} frames); "
        f"{run.shown} of 10000 messages shown at the end; per page p95 {p95(run.steps) * 1000:.0f} ms, "
        f"last pages {[round(step * 1000) for step in run.steps[-3:]]} ms"
    )
    result("scroll_frame_p95_ms", p95(run.frames) * 1000, p95(empty_frames) * 1000, "ratio<=5")
    print(f"result: loaded_at_top={run.shown} baseline=10000 ratio={run.shown / 10000:.2f} target=ratio==1")


def report_long_scroll(run: Scrolled, empty_frames: list[float]) -> None:
    print(
        f"info: long replies: scrolled to the top {len(run.steps)} times ({sum(run.steps):.1f} s, "
        f"{len(run.frames)} frames); {run.shown} of 400 messages shown at the end; "
        f"per page p95 {p95(run.steps) * 1000:.0f} ms"
    )
    result("scroll_long_replies_frame_p95_ms", p95(run.frames) * 1000, p95(empty_frames) * 1000, "ratio<=5")
    print(f"result: long_replies_loaded_at_top={run.shown} baseline=400 ratio={run.shown / 400:.2f} target=ratio==1")


if __name__ == "__main__":
    main()
