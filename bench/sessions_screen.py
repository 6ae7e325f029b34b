"""Benchmark: a history of many sessions (default 100,000) against an empty one, in the same run (issue 28).

Lines (each a ratio to the empty history measured in the same run, best of --runs, the two taking turns so that
the machine's load falls on both alike):
- open: `HistoryStore.open` of a file a tui-agent closed cleanly (its stamp matches: no whole-file quick_check),
  what every start (`-p hi`, the TUI) pays. Also printed, not targeted: the open that does check the whole file
  (no stamp: new to this machine), as the before.
- first page: what the sessions screen (Ctrl+S) waits for before it lists anything - the newest page of sessions
  and their rows' glances (last reply, cost): `find_sessions("", PAGE, prices=...)` with the screen's own page
  size, the one read the agent makes for the screen.
- screen shown: the real app (headless, on the file), from Ctrl+S in the chat screen to the end of the first
  frame that draws the list (its first page of rows; for the empty history its "No sessions yet" line). What a
  person waits for; the read above is inside it.
- search page: the first page of a filter found in old sessions only (the defect was: hits only among the 200
  newest), and the count of all its hits read page by page (must be every one).
Targets: open ratio <= 1.2, first page and screen shown ratios <= 1.5.
An info line splits the first page's ratio: a history of exactly one page (the rows' own making) against the empty
one, and the big history against that one page (what the history's size adds: pages of its indexes read cold).

    python bench/sessions_screen.py [--sessions N] [--runs N]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sqlite3
import sys
import tempfile
import time
import uuid
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))
from frames import PAINTED, PROBE

from tui_agent.agent.endpoint import EndpointChoice
from tui_agent.agent.services import build_agent
from tui_agent.config import Settings
from tui_agent.history import check_policy
from tui_agent.history.store import HistoryStore
from tui_agent.prices import PriceTable
from tui_agent.ui.app import TuiAgentApp
from tui_agent.ui.screens.chat import ChatScreen
from tui_agent.ui.screens.sessions import PAGE, SessionsScreen  # the screen's own first page

OLD_HITS = 150
"""The oldest sessions mention zebras; no newer one does."""


def build(path: Path, total: int) -> None:
    """`total` sessions of a prompt and a reply each, with plain sqlite3 in one transaction."""
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute("BEGIN")
    now = time.time()
    for n in range(total):
        sid = uuid.uuid4().hex
        animal = "zebra" if n >= total - OLD_HITS else "horse"
        conn.execute(
            "INSERT INTO sessions (id, title, created_at, updated_at, message_count) VALUES (?, ?, ?, ?, ?)",
            (sid, f"session {n}", now - n, now - n, 2),
        )
        ask, reply = uuid.uuid4().hex, uuid.uuid4().hex
        conn.executemany(
            "INSERT INTO messages (id, session_id, position, role, content, status, created_at, "
            "updated_at, parent_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [
                (ask, sid, 0, "user", f"tell me about the {animal} number {n}", "complete", now, now, None),
                (reply, sid, 1, "assistant", f"The {animal} is an animal ({n}).", "complete", now, now, ask),
            ],
        )
        conn.execute("UPDATE sessions SET active_leaf_id = ? WHERE id = ?", (reply, sid))
    conn.execute("COMMIT")
    conn.close()


async def best_of_turns(runs: int, *fns: Callable[[], Awaitable[Any]]) -> list[float]:
    """Each of `fns`' best time, the runs taking turns (one of each, `runs` times)."""
    best = [float("inf")] * len(fns)
    for _ in range(runs):
        for n, fn in enumerate(fns):
            start = time.perf_counter()
            await fn()
            best[n] = min(best[n], time.perf_counter() - start)
    return best


async def opened(path: Path) -> None:
    store = await HistoryStore.open(path)
    await store.close()


async def first_page(path: Path) -> None:
    store = await HistoryStore.open(path)
    try:
        await store.find_sessions("", PAGE, prices=PriceTable.with_overrides())
    finally:
        await store.close()


async def every_hit(path: Path, word: str) -> int:
    store = await HistoryStore.open(path)
    try:
        found, offset = 0, 0
        while page := await store.find_sessions(word, PAGE, offset):
            found += len(page)
            offset += len(page)
        return found
    finally:
        await store.close()


def _listed_now(app: TuiAgentApp) -> int:
    """What the frame about to be drawn lists: the sessions screen's options (0 while it has none)."""
    screen = app.screen
    return screen.option_list.option_count if isinstance(screen, SessionsScreen) else 0


async def screen_shown(path: Path) -> float:
    """Seconds from Ctrl+S in the chat screen to the end of the first frame drawing the session list."""
    settings = Settings(db=path)

    async def build():  # type: ignore[no-untyped-def]
        return await build_agent(settings, EndpointChoice(None, "offline"))

    app = TuiAgentApp(build, model="offline", endpoint="offline model", cursor_blink=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await app.engine()
        while not isinstance(app.screen, ChatScreen):
            await pilot.pause(0.01)
        await pilot.pause()
        PROBE[:] = [lambda: _listed_now(app)]
        PAINTED.clear()
        start = time.perf_counter()
        await pilot.press("ctrl+s")
        while not any(listed for _, listed in PAINTED):
            await asyncio.sleep(0.001)
        PROBE.clear()
        return next(end for end, listed in PAINTED if listed) - start


def result(metric: str, value: float, baseline: float, target: str) -> None:
    print(f"result: {metric}={value:.4g} baseline={baseline:.4g} ratio={value / baseline:.3g} target={target}")


async def main(args: argparse.Namespace) -> None:
    print(f"load: {os.getloadavg()[0]:.2f} {os.getloadavg()[1]:.2f} {os.getloadavg()[2]:.2f}")
    with tempfile.TemporaryDirectory(prefix="bench-sessions-") as tmp:
        empty, big = Path(tmp) / "empty.db", Path(tmp) / "big.db"
        for path in (empty, big):
            await opened(path)  # created, stamped
        start = time.perf_counter()
        build(big, args.sessions)
        print(f"{args.sessions:,} sessions built in {time.perf_counter() - start:.1f} s, {big.stat().st_size >> 20} MB")
        check_policy.forget(big)
        start = time.perf_counter()
        await opened(big)  # new to this machine: checked whole, then stamped
        checked = time.perf_counter() - start
        base_open, big_open = await best_of_turns(args.runs, lambda: opened(empty), lambda: opened(big))
        print(f"open with the whole-file check (the before, every start): {checked * 1000:.0f} ms")
        result("open_s", big_open, base_open, "ratio<=1.2")
        one_page = Path(tmp) / "page.db"
        await opened(one_page)
        build(one_page, PAGE)
        base_page, page_page, big_page = await best_of_turns(
            args.runs, lambda: first_page(empty), lambda: first_page(one_page), lambda: first_page(big)
        )
        result("sessions_screen_first_page_s", big_page, base_page, "ratio<=1.5")
        print(
            f"info: first page of a history of one page ({PAGE} sessions): {page_page * 1000:.2f} ms, of the empty "
            f"one {base_page * 1000:.2f} ms (the rows' own making: {page_page / base_page:.2f}x), of "
            f"{args.sessions:,} sessions {big_page * 1000:.2f} ms (what the history's size adds: "
            f"{big_page / page_page:.2f}x)"
        )
        shown: list[list[float]] = [[], []]
        for _ in range(args.runs):  # taking turns, as above; each run its own app (a first Ctrl+S each)
            for times, path in zip(shown, (empty, big), strict=True):
                times.append(await screen_shown(path))
        base_shown, big_shown = (min(times) for times in shown)
        result("sessions_screen_shown_s", big_shown, base_shown, "ratio<=1.5")
        hits = await every_hit(big, "zebra")
        print(f"result: search_hits={hits} baseline={OLD_HITS} ratio={hits / OLD_HITS:.3g} target=ratio>=1")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sessions", type=int, default=100_000)
    parser.add_argument("--runs", type=int, default=5)
    asyncio.run(main(parser.parse_args()))
